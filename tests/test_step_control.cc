// A method entry declares how it steps once: MethodEntry::step (methods/method.h), a
// StepControl that is either one StepMode or the mode a choice parameter selects. The
// harness derives from it which of h, rtol, atol the method reads (ReadSettings), what it
// refuses, records and defaults; the conformance suite derives which modes to check. Here:
// the declaration is well formed for every registry entry, it agrees with the order promise,
// and every setting it declares unread is unread (the run is bit for bit the same with
// another value of it). tests/test_parameter_defaults.cc checks the other half: a setting
// declared read and given changes the run.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

#include "harness/runner.h"
#include "methods/method.h"
#include "tests/run_spec.h"

namespace mbb {
namespace {

using Values = std::map<std::string, std::string>;

// No default: an entry that leaves out `.step` does not compile, and there is no second
// field to say it again (uses_step_size, uses_tolerances, their _if forms and the promise's
// step were four declarations that nothing checked against each other).
static_assert(!std::is_default_constructible_v<StepControl>,
              "a method entry must declare its step control");

// The parameter values each entry's declaration distinguishes: the default, and each choice
// of the parameter that selects the mode.
std::vector<ParameterSet> ModeChoices(const MethodEntry& entry) {
  std::vector<ParameterSet> out = {ParameterSet()};
  for (const auto& [value, mode] : entry.step.modes())
    out.push_back(ParameterSet(Values{{entry.step.key(), value}}));
  return out;
}

TEST_CASE("every method entry's step control names a declared choice and covers it",
          "[step_control]") {
  for (const MethodEntry& entry : MethodRegistry()) {
    INFO("method " << entry.name);
    const StepControl& step = entry.step;
    if (!step.key().empty()) {
      const auto spec = std::find_if(entry.parameters.begin(), entry.parameters.end(),
                                     [&](const ParameterSpec& p) { return p.name == step.key(); });
      REQUIRE(spec != entry.parameters.end());
      CHECK_FALSE(spec->default_value.empty());  // the default mode is the spec's default
      std::set<std::string> mapped;
      for (const auto& [value, mode] : step.modes()) mapped.insert(value);
      CHECK(mapped == std::set<std::string>(spec->choices.begin(), spec->choices.end()));
    }
    // The promised fixed-step order is 0 exactly when the default mode has no fixed step.
    const StepMode mode = step.ModeFor(ParameterSet(), entry.parameters);
    CHECK((entry.promises.order == 0) ==
          (mode == StepMode::kAdaptive || mode == StepMode::kAdaptiveFromH));
  }
}

TEST_CASE("ReadSettings follows the step mode", "[step_control]") {
  const std::vector<ParameterSpec> specs = {{"integrator", "rk4", "", {"rk4", "dopri5"}}};
  const MethodEntry entry{
      .name = "probe",
      .summary = "",
      .source = "",
      .parameters = specs,
      .create = nullptr,
      .step = StepControl::ByParameter(
          "integrator", {{"rk4", StepMode::kFixed}, {"dopri5", StepMode::kAdaptiveFromH}})};
  const SettingsRead fixed = ReadSettings(entry, ParameterSet(), false);
  CHECK((fixed.mode == StepMode::kFixed && fixed.h && fixed.default_h && !fixed.tolerances));
  const SettingsRead from_h =
      ReadSettings(entry, ParameterSet(Values{{"integrator", "dopri5"}}), false);
  CHECK((from_h.h && from_h.default_h && from_h.tolerances));

  MethodEntry either = entry;
  either.step = StepMode::kAdaptiveOrFixed;
  CHECK(ReadSettings(either, ParameterSet(), false).tolerances);
  CHECK_FALSE(ReadSettings(either, ParameterSet(), true).tolerances);  // a given h: fixed
  CHECK_FALSE(ReadSettings(either, ParameterSet(), false).default_h);  // its own first step
  either.step = StepMode::kAdaptive;
  CHECK_FALSE(ReadSettings(either, ParameterSet(), true).h);
}

struct Run {
  RunOutcome outcome;
  Vector final_q;
};

// Records the last accepted state.
class LastState final : public StepObserver {
 public:
  void OnStep(const StepSample& s) override { q = s.q; }
  Vector q;
};

Run RunWith(const ResolvedRun& resolved, const RunSettings& settings) {
  LastState last;
  Run out;
  out.outcome =
      resolved.entry->create(resolved.method_parameters)->Run(resolved.problem, settings, last);
  out.final_q = last.q;
  return out;
}

bool Same(const Run& a, const Run& b) {
  return a.outcome.status == b.outcome.status &&
         a.outcome.counters.steps == b.outcome.counters.steps &&
         a.outcome.counters.rejected_steps == b.outcome.counters.rejected_steps &&
         a.final_q.size() == b.final_q.size() && a.final_q == b.final_q;
}

// A setting the declaration says is unread, changed by a factor far from 1, must leave the
// run unchanged to the last bit (same steps, same final q): else the method reads what the
// harness refuses and does not record. Short planar-pendulum runs; an entry not applicable
// there, or a mode refused there, has nothing to run.
TEST_CASE("every method leaves alone the settings its step control declares unread",
          "[step_control]") {
  int compared = 0;
  for (const MethodEntry& entry : MethodRegistry()) {
    for (const ParameterSet& mode : ModeChoices(entry)) {
      INFO("method " << entry.name << " " << ToString(entry.step.ModeFor(mode, entry.parameters)));
      ResolvedRun resolved;
      try {
        resolved = ResolveRun(Spec("planar_pendulum", entry.name, {}, mode.values(), 0.2));
      } catch (const InputError&) {
        continue;  // the mode is refused on this problem (e.g. step=adaptive needs dopri5)
      }
      if (!entry.create(resolved.method_parameters)->CheckApplicable(resolved.problem).empty())
        continue;
      const Run base = RunWith(resolved, resolved.settings);
      if (base.outcome.status != RunStatus::kOk) continue;  // a failure is no comparison
      if (!resolved.read.h) {
        RunSettings other = resolved.settings;
        other.h = (resolved.settings.t_end - resolved.settings.t0) / 7.0;
        CHECK(Same(base, RunWith(resolved, other)));
        ++compared;
      }
      if (!resolved.read.tolerances) {
        RunSettings other = resolved.settings;
        other.rtol = 1e-3;
        other.atol = 1e-4;
        CHECK(Same(base, RunWith(resolved, other)));
        ++compared;
      }
    }
  }
  CHECK(compared >= 10);  // the registry has more than ten fixed or h-free entries
}

}  // namespace
}  // namespace mbb
