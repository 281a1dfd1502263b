// The experiment runner: builds the problem and the method from names and parameters,
// checks applicability, runs once instrumented (metrics; also the warm-up) and then k
// timed repeats with a null observer (docs/design.md timing protocol).
#pragma once

#include <string>
#include <vector>

#include "harness/run_controls.h"
#include "harness/run_record.h"
#include "problems/core/parameters.h"

namespace mbb {

/// Everything that defines one run: the problem and its parameters, the method and its own
/// parameters (text, as the method's ParameterSpecs declare them), and the typed run
/// settings. `--set` gives both: SetFromText sorts a key=value into one or the other.
struct RunSpec {
  std::string problem;
  std::string model_file;  // if set: the problem is this JSON model file (`--model`)
  ParameterSet problem_parameters;
  std::string method;
  ParameterSet method_parameters;  // the method's own (scheme=..., formulation=...)
  RunControls settings;            // h, rtol, atol, samples, max_steps, time limit
  double t_end = 0.0;              // 0: the problem's horizon
  bool series = false;
  int repeats = 5;              // timed repeats after the instrumented run
  double time_budget_s = 20.0;  // stop repeating once the repeats took this long
  /// Warnings the result carries from the start (the grid's step budget and why).
  std::vector<std::string> notes;
  /// Print a progress line to stderr at most every 2 s of a run and of its timed repeats.
  bool progress = false;
  /// Accept h / rtol / atol the method does not read (a warning in the result) instead of
  /// refusing them (`--allow-unused`).
  bool allow_unused = false;

  /// The text boundary of `--set key=value` (the CLI, sweep files): a run setting (h, rtol,
  /// atol, samples) is parsed into `settings`, any other key is a method parameter.
  /// InputError naming `context` on a malformed number or choice.
  void SetFromText(const std::string& key, const std::string& value,
                   const std::string& context = "--set");
  void SetFromText(const ParameterSet& assignments, const std::string& context = "--set");
};

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
