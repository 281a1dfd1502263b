// The run settings of a RunSpec, typed: h, rtol, atol, samples, max_steps and the time limit
// (docs/design.md "CLI"). Text (`--set h=1e-3`, `--h`, a sweep file's "set") is
// parsed into them once, by SetRunSettingFromText; inside the harness they are doubles.
// Unset h / rtol / atol mean "not given": the run takes its default, and a method that
// does not read a setting refuses it only when it was given (runner.cc CheckSettingsUsed).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "methods/method.h"
#include "problems/core/parameters.h"

namespace mbb {

/// Default tolerances for adaptive methods: tight enough that the baselines agree to
/// ~1e-7 on the pendulums, so a difference of methods is not a difference of settings.
inline constexpr double kDefaultRtol = 1e-10;
inline constexpr double kDefaultAtol = 1e-12;

/// samples=land or samples=interpolate (RunSettings::land_on_samples).
enum class SampleMode { kLand, kInterpolate };

/// The settings of one run (Ceres style: plain fields, defaults here, Validate names the
/// field, the value and the rule). ResolveRun turns them into the method's RunSettings.
struct RunControls {
  std::optional<double> h;     // s; fixed step, or an adaptive method's first step; unset:
                               // the problem's h_default where the method reads one
  std::optional<double> rtol;  // unset: kDefaultRtol
  std::optional<double> atol;  // unset: kDefaultAtol
  SampleMode samples = SampleMode::kLand;
  long max_steps = RunSettings{}.max_steps;  // a fixed-step run needing more is bad input
  /// Limit of the instrumented run, s of CPU time of its thread, so that a loaded machine does
  /// not reach it sooner (0: none, `--time-limit`). A run that
  /// reaches it ends `failed` with "time limit of S s reached at t = ..." and its partial
  /// metrics (docs/divergence.md).
  double time_limit_s = 0.0;

  /// False with `why` naming the field, its value and the rule it breaks: h > 0, 0 < rtol
  /// <= 1 (above 1 accepts an error larger than the solution), atol > 0, all finite;
  /// max_steps >= 1; time_limit_s >= 0 and finite.
  bool Validate(std::string* why) const;
};

/// The names `--set` accepts as run settings (h, rtol, atol, samples) with their
/// descriptions; every other `--set` key is a method parameter.
const std::vector<ParameterSpec>& RunSettingSpecs();
bool IsRunSetting(const std::string& key);

/// Parses `value` into the run setting `key` of `controls` (InputError naming `context`,
/// e.g. "--set", and the key on a malformed value). False, and nothing changed, when `key`
/// is not a run setting.
bool SetRunSettingFromText(RunControls& controls, const std::string& key, const std::string& value,
                           const std::string& context);

const char* ToString(SampleMode samples);

}  // namespace mbb
