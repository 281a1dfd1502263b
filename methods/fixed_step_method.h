// Base class for the suite's own fixed-step methods: a method implements only Begin (its
// workspace and the initial acceleration) and Step (one step of size h); the run protocol
// (stop times, the step sizes, the non-finite check, observer stops, max_steps, the
// messages) is RunLoop's (methods/common/run_loop.h). Runs take N = ceil((t_end - t0)/h)
// steps, N - 1 of size h and a last one shortened to land exactly on t_end (h > t_end - t0
// is one step of t_end - t0).
//
// A method may opt in to variable steps (AdaptiveSteps() true): the loop then offers Step a
// step size h (the run's h first, then the method's proposal), clamped so that the run lands
// exactly on every RunSettings::stop_times entry and on t_end; Step may take a smaller step
// (after rejecting trials, counted in WorkCounters::rejected_steps) and reports the step it
// took and the next one it proposes in StepStatus.
#pragma once

#include "methods/common/run_loop.h"
#include "methods/method.h"

namespace mbb {

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
  void RunVariable(FixedStepWorkspace& workspace, RunLoop& loop, double h, FixedStepState& state,
                   WorkCounters& counters) const;
};

}  // namespace mbb
