// Base class for fixed-step methods: owns the step loop, counters, observer calls and the
// checks for non-finite states, so a method implements only Begin (its workspace and the
// initial acceleration) and Step (one step of size h). Runs take N = ceil((t_end - t0)/h)
// equal steps; the harness interpolates the values at t_end when h does not divide the
// horizon (docs/methods.md).
#pragma once

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
};

struct StepStatus {
  bool ok = true;
  std::string message;  // why the step failed (Newton diverged, singular matrix, ...)
  static StepStatus Ok() { return {}; }
  static StepStatus Failed(std::string why) { return {false, std::move(why)}; }
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
  /// Advances `state` from t to t + h.
  virtual StepStatus Step(FixedStepWorkspace& workspace, double h, FixedStepState& state,
                          WorkCounters& counters) const = 0;
  /// Scalar metrics the method wants in the result after the run.
  virtual void Finish(FixedStepWorkspace& /*workspace*/,
                      std::map<std::string, double>& /*metrics*/) const {}
};

}  // namespace mbb
