// The method registry: the one list of methods, sorted by name. A method family exposes a
// function returning its entries; add the call here (docs/adding-a-method.md). No static
// self-registration: the linker drops it from static libraries. A program linking mbbench
// as a library adds its own entries with RegisterMethods before the registry's first use
// (docs/adding-a-method.md, "Outside the tree").
#include <algorithm>
#include <atomic>
#include <set>

#include "methods/energy_momentum/energy_momentum_methods.h"
#include "methods/method.h"
#include "methods/newmark/newmark_methods.h"
#include "methods/odeint/odeint_methods.h"
#include "methods/partitioning/partitioning_methods.h"
#include "methods/qr/qr_projection.h"
#include "methods/recursive/recursive_methods.h"
#ifdef MBBENCH_WITH_MUJOCO
#include "methods/mujoco/mujoco_peer.h"
#endif
#ifdef MBBENCH_WITH_SIMBODY
#include "methods/simbody/simbody_peer.h"
#endif
#include "methods/sundials/sundials_methods.h"

namespace mbb {

namespace {

// Entries given to RegisterMethods, and whether the registry has been built (then frozen:
// FindMethod hands out references into it).
std::vector<MethodEntry>& RegisteredEntries() {
  static std::vector<MethodEntry> entries;
  return entries;
}
std::atomic<bool> registry_built{false};

std::vector<MethodEntry> BuiltInEntries() {
  std::vector<MethodEntry> entries;
  using Family = std::vector<MethodEntry> (*)();
  std::vector<Family> families = {IdaMethodEntries, ArkodeMethodEntries, OdeintMethodEntries,
                                  NewmarkMethodEntries, QrMethodEntries};
  families.push_back(PartitioningMethodEntries);
  families.push_back(EnergyMomentumMethodEntries);
  families.push_back(RecursiveMethodEntries);
#ifdef MBBENCH_WITH_MUJOCO  // optional: the peer needs libmujoco-dev
  families.push_back(MujocoMethodEntries);
#endif
#ifdef MBBENCH_WITH_SIMBODY  // optional: the peer needs libsimbody-dev
  families.push_back(SimbodyMethodEntries);
#endif
  for (Family family : families)
    for (auto& entry : family()) entries.push_back(std::move(entry));
  return entries;
}

}  // namespace

void RegisterMethods(std::vector<MethodEntry> entries) {
  if (registry_built)
    throw InputError(
        "RegisterMethods after the method registry's first use: call it first in main");
  std::set<std::string> names;
  for (const auto& entry : BuiltInEntries()) names.insert(entry.name);
  for (const auto& entry : RegisteredEntries()) names.insert(entry.name);
  for (const auto& entry : entries) {
    if (entry.name.empty() || !entry.create)
      throw InputError("RegisterMethods: an entry needs a name and a create function");
    if (!names.insert(entry.name).second)
      throw InputError("RegisterMethods: method '" + entry.name + "' is already registered");
  }
  for (auto& entry : entries) RegisteredEntries().push_back(std::move(entry));
}

const std::vector<MethodEntry>& MethodRegistry() {
  static const std::vector<MethodEntry> registry = [] {
    registry_built = true;
    std::vector<MethodEntry> entries = BuiltInEntries();
    for (const auto& entry : RegisteredEntries()) entries.push_back(entry);
    std::sort(entries.begin(), entries.end(),
              [](const auto& a, const auto& b) { return a.name < b.name; });
    return entries;
  }();
  return registry;
}

const char* ToString(StepMode mode) {
  switch (mode) {
    case StepMode::kFixed:
      return "fixed";
    case StepMode::kAdaptive:
      return "adaptive";
    case StepMode::kAdaptiveOrFixed:
      return "adaptive-or-fixed";
    case StepMode::kAdaptiveFromH:
      return "adaptive-from-h";
  }
  return "?";
}

StepMode StepControl::ModeFor(const ParameterSet& parameters,
                              const std::vector<ParameterSpec>& specs) const {
  if (key_.empty()) return fixed_mode_;
  const auto resolved = parameters.Resolved(specs);
  const auto value = resolved.find(key_);
  const auto mode = modes_.find(value == resolved.end() ? std::string() : value->second);
  if (mode == modes_.end())
    throw InputError("step control: parameter '" + key_ + "' = '" +
                     (value == resolved.end() ? std::string() : value->second) +
                     "' selects no step mode");
  return mode->second;
}

SettingsRead ReadSettings(const MethodEntry& entry, const ParameterSet& method_parameters,
                          bool h_given) {
  SettingsRead read;
  read.mode = entry.step.ModeFor(method_parameters, entry.parameters);
  switch (read.mode) {
    case StepMode::kFixed:
      read.h = read.default_h = true;
      break;
    case StepMode::kAdaptive:
      read.tolerances = true;
      break;
    case StepMode::kAdaptiveOrFixed:
      read.h = true;
      read.tolerances = !h_given;
      break;
    case StepMode::kAdaptiveFromH:
      read.h = read.tolerances = read.default_h = true;
      break;
  }
  return read;
}

const MethodEntry& FindMethod(const std::string& name) {
  for (const auto& entry : MethodRegistry())
    if (entry.name == name) return entry;
  std::string known;
  for (const auto& entry : MethodRegistry()) known += (known.empty() ? "" : ", ") + entry.name;
  throw InputError("unknown method '" + name + "' (known: " + known + ")");
}

std::map<std::string, std::string> WithCurrentParameterNames(
    const std::string& method, const std::map<std::string, std::string>& parameters) {
  for (const auto& entry : MethodRegistry()) {
    if (entry.name != method) continue;
    try {
      return ParameterSet(parameters).WithCurrentNames(entry.parameters, method).values();
    } catch (const InputError&) {
      return parameters;
    }
  }
  return parameters;
}

}  // namespace mbb
