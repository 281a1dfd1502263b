// The experiment runner: builds the problem and the method from names and parameters,
// checks applicability, runs once instrumented (metrics; also the warm-up) and then k
// timed repeats with a null observer (docs/design.md timing protocol).
#pragma once

#include <string>
#include <vector>

#include "harness/run_record.h"
#include "problems/parameters.h"

namespace mbb {

/// Everything that defines one run. `settings` holds the method settings given with
/// --set (h, rtol, atol) and the method's own parameters together.
struct RunSpec {
  std::string problem;
  std::string model_file;  // if set: the problem is this JSON model file (`--model`)
  ParameterSet problem_parameters;
  std::string method;
  ParameterSet settings;
  double t_end = 0.0;  // 0: the problem's horizon
  bool series = false;
  int repeats = 5;              // timed repeats after the instrumented run
  double time_budget_s = 20.0;  // stop repeating once the repeats took this long
  /// Wall-clock limit of the instrumented run, s (0: none, `--time-limit`). A run that
  /// reaches it ends `failed` with "time limit of S s reached at t = ..." and its partial
  /// metrics (docs/divergence.md).
  double time_limit_s = 0.0;
  /// Accepted steps the run may take (0: RunSettings::max_steps); the --all-methods grid's
  /// step budget for some cells (grid_settings.h). A fixed-step run that needs more fails
  /// before its first step, an adaptive one at the budget ("max_steps (N) reached at t = ...").
  long max_steps = 0;
  /// Warnings the result carries from the start (the grid's step budget and why).
  std::vector<std::string> notes;
  /// Print a progress line to stderr at most every 2 s of a run and of its timed repeats.
  bool progress = false;
  /// Accept h / rtol / atol the method does not read (a warning in the result) instead of
  /// refusing them (`--allow-unused`).
  bool allow_unused = false;
};

/// Default tolerances for adaptive methods: tight enough that the baselines agree to
/// ~1e-7 on the pendulums, so a difference of methods is not a difference of settings.
inline constexpr double kDefaultRtol = 1e-10;
inline constexpr double kDefaultAtol = 1e-12;

/// The spec's problem: the catalogue entry, or the model file if `model_file` is set.
Problem BuildSpecProblem(const RunSpec& spec);

/// The settings a spec resolves to (throws InputError on bad input).
struct ResolvedRun {
  Problem problem;
  const MethodEntry* entry = nullptr;
  ParameterSet method_parameters;  // without h, rtol, atol
  RunSettings settings;
  SettingsRead read;  // which of settings' h, rtol, atol the method reads (and a result records)
  /// Non-empty when the method's preferred problem form (not pinned by the user) could not
  /// be built for this problem: why; the problem is then the one given.
  std::string preferred_unavailable;
};
ResolvedRun ResolveRun(const RunSpec& spec);

/// Runs `spec`. Bad input throws InputError; a numerical failure is a record status.
RunRecord Execute(const RunSpec& spec);
RunRecord Execute(const ResolvedRun& run, const RunSpec& spec);

/// The record fields that describe the problem, method and settings (no results).
RunRecord DescribeRun(const ResolvedRun& run);

}  // namespace mbb
