// Base class for fixed-step methods: owns the step loop, counters, observer calls and the
// checks for non-finite states, so a method implements only Begin (its workspace and the
// initial acceleration) and Step (one step of size h). Runs take N = ceil((t_end - t0)/h)
// steps, N - 1 of size h and a last one shortened to land exactly on t_end (h > t_end - t0
// is one step of t_end - t0).
//
// A method may opt in to variable steps (AdaptiveSteps() true): the loop then offers Step a
// step size h (the run's h first, then the method's proposal), clamped so that the run lands
// exactly on every RunSettings::stop_times entry and on t_end; Step may take a smaller step
// (after rejecting trials, counted in WorkCounters::rejected_steps) and reports the step it
// took and the next one it proposes in StepStatus.
#pragma once

#include "methods/method.h"

namespace mbb {

/// N = ceil((t_end - t0) / h) (the 1e-9 slack keeps N exact when h divides the horizon);
/// -1 when the quotient is not finite or out of range of long.
long FixedStepCount(double t0, double t_end, double h);

/// The state a fixed-step method advances. a and lambda are valid if the flags say so.
struct FixedStepState {
  double t = 0.0;
  Vector q, v, a, lambda;
  bool has_acceleration = false;
  bool has_multipliers = false;
  Vector extra;  // reported as StepSample::extra if has_extra
  bool has_extra = false;
};

class FixedStepWorkspace {
 public:
  virtual ~FixedStepWorkspace() = default;
  /// The run's tolerances, set by Run after Begin (read by methods with AdaptiveSteps()).
  double rtol = 0.0;
  double atol = 0.0;
  /// RunSettings::diagnostics, set by Run after Begin.
  bool diagnostics = true;
};

struct StepStatus {
  bool ok = true;
  std::string message;  // why the step failed (Newton diverged, singular matrix, ...)
  /// Variable-step methods only: the step actually taken (0: the h offered) and the step
  /// proposed for the next one (0: keep the current proposal).
  double h_taken = 0.0;
  double h_next = 0.0;
  static StepStatus Ok() { return {}; }
  static StepStatus Failed(std::string why) { return {false, std::move(why), 0.0, 0.0}; }
  static StepStatus Accepted(double h_taken, double h_next) {
    return {true, std::string(), h_taken, h_next};
  }
};

class FixedStepMethod : public Method {
 public:
  RunOutcome Run(const Problem& problem, const RunSettings& settings,
                 StepObserver& observer) const final;

 protected:
  /// Allocates everything the steps need and completes `state` (e.g. the initial
  /// acceleration). Returns nullptr and sets `error` if the start fails.
  virtual std::unique_ptr<FixedStepWorkspace> Begin(const Problem& problem, double h,
                                                    FixedStepState& state, WorkCounters& counters,
                                                    std::string& error) const = 0;
  /// True if Step controls its own step size (see the file comment); default: fixed h.
  virtual bool AdaptiveSteps() const { return false; }
  /// Advances `state` from t to t + h (variable-step methods: to t + h_taken <= t + h).
  virtual StepStatus Step(FixedStepWorkspace& workspace, double h, FixedStepState& state,
                          WorkCounters& counters) const = 0;
  /// Scalar metrics the method wants in the result after the run.
  virtual void Finish(FixedStepWorkspace& /*workspace*/,
                      std::map<std::string, double>& /*metrics*/) const {}

 private:
  RunOutcome RunVariable(FixedStepWorkspace& workspace, const RunSettings& settings, double h,
                         FixedStepState& state, StepObserver& observer, RunOutcome outcome) const;
};

}  // namespace mbb
