// Regression check against committed baselines (`mbbench check`): golden results say
// "unchanged", not "correct" (SUNDIALS test/answers). A baseline is a result document; the
// check reruns it (or reads the same-named result from --against) and compares:
//   status                 equal
//   final q, outputs       |new - old| <= kAbs + kRel |old|   (kRel 1e-6, kAbs 1e-9): runs
//                          are deterministic on one machine; across compilers and CPUs
//                          adaptive step control amplifies round-off differences of ~1e-15
//                          by the error-control feedback, which stays far below 1e-6 relative
//                          at the tolerances the baselines use.
//   steps                  within 5 % (+2 steps): the same argument, for counters
//   error vs reference,
//   energy drift,
//   constraint residuals   not more than 10 x the baseline + 1e-12: a real regression moves
//                          these by orders of magnitude, round-off does not.
// A stability baseline (`mbbench.stability/1`, a limit found by `mbbench stability`) is
// rerun with its own bracket, criterion and precision; the limits h_max_stable and
// h_min_unstable must agree within 2 x the relative precision of the bisection (a trial
// near the limit classified differently on another machine moves the final bracket by at
// most its own width; twice that leaves room for both ends), and a null limit must stay null.
#pragma once

#include <string>
#include <vector>

#include "harness/run_record.h"

namespace mbb {

struct BaselineValues {
  std::string file;
  std::string problem, method;
  std::map<std::string, std::string> problem_parameters, method_parameters;
  std::optional<double> h, rtol, atol;
  double t_end = 0.0;
  std::string status;
  long steps = 0;
  std::vector<double> final_q;
  std::map<std::string, double> outputs;
  std::optional<double> error_rel, energy_abs_drift, position_residual, velocity_residual;
};

struct RegressionFinding {
  std::string file;
  std::string what;  // key, both values, the tolerance and the ratio |change| / tolerance
};

/// Compares one new record with its baseline; returns the violations.
std::vector<RegressionFinding> CompareWithBaseline(const BaselineValues& baseline,
                                                   const BaselineValues& current);

/// The configuration keys (problem and method parameters, h, rtol, atol, t_end) whose values
/// differ, as "settings.rtol: baseline 1e-10, now 1e-06". A key present on one side only (a
/// parameter added since the baseline was written) is not a difference: its default is what
/// the baseline ran with. Numbers from runs of different configurations are not comparable:
/// `mbbench check` reports such a pair as a configuration difference, not a regression.
std::vector<std::string> ConfigurationDifferences(const BaselineValues& baseline,
                                                  const BaselineValues& current);

/// What a stability baseline records: the search's inputs and the limits it found.
struct StabilityBaselineValues {
  std::string file;
  std::string problem, method;
  std::map<std::string, std::string> problem_parameters, method_parameters;
  double t_end = 0.0, h_min = 0.0, h_max = 0.0, relative_precision = 0.0;
  std::string criterion;
  double factor = 0.0, bound = 0.0;  // the criterion's parameters (0: not used)
  std::optional<double> h_max_stable, h_min_unstable;
};

/// Compares a rerun stability search with its baseline (tolerance in the header comment).
std::vector<RegressionFinding> CompareStabilityLimits(const StabilityBaselineValues& baseline,
                                                      const StabilityBaselineValues& current);

/// As ConfigurationDifferences, for the inputs of a stability search.
std::vector<std::string> StabilityConfigurationDifferences(const StabilityBaselineValues& baseline,
                                                           const StabilityBaselineValues& current);

}  // namespace mbb
