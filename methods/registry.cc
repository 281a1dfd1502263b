// The method registry: the one list of methods, sorted by name. A method family exposes a
// function returning its entries; add the call here (docs/adding-a-method.md). No static
// self-registration: the linker drops it from static libraries.
#include <algorithm>

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

const std::vector<MethodEntry>& MethodRegistry() {
  static const std::vector<MethodEntry> registry = [] {
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
    std::sort(entries.begin(), entries.end(),
              [](const auto& a, const auto& b) { return a.name < b.name; });
    return entries;
  }();
  return registry;
}

SettingsRead ReadSettings(const MethodEntry& entry, const ParameterSet& method_parameters,
                          bool h_given) {
  SettingsRead read;
  read.h =
      entry.uses_step_size_if ? entry.uses_step_size_if(method_parameters) : entry.uses_step_size;
  read.tolerances = entry.uses_tolerances_if ? entry.uses_tolerances_if(method_parameters)
                                             : entry.uses_tolerances && !(h_given && read.h);
  return read;
}

const MethodEntry& FindMethod(const std::string& name) {
  for (const auto& entry : MethodRegistry())
    if (entry.name == name) return entry;
  std::string known;
  for (const auto& entry : MethodRegistry()) known += (known.empty() ? "" : ", ") + entry.name;
  throw InputError("unknown method '" + name + "' (known: " + known + ")");
}

}  // namespace mbb
