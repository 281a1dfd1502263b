#include "methods/fixed_step_method.h"

#include <cmath>

namespace mbb {

const char* ToString(RunStatus status) {
  switch (status) {
    case RunStatus::kOk:
      return "ok";
    case RunStatus::kFailed:
      return "failed";
    case RunStatus::kUnstable:
      return "unstable";
    case RunStatus::kNotApplicable:
      return "not_applicable";
  }
  return "failed";
}

namespace {
void Report(StepObserver& observer, const FixedStepState& s) {
  observer.OnStep({s.t, s.q, s.v, s.has_acceleration ? &s.a : nullptr,
                   s.has_multipliers ? &s.lambda : nullptr, s.has_extra ? &s.extra : nullptr});
}
}  // namespace

RunOutcome FixedStepMethod::Run(const Problem& problem, const RunSettings& settings,
                                StepObserver& observer) const {
  RunOutcome outcome;
  const double h = settings.h > 0.0 ? settings.h : problem.h_default;
  FixedStepState state;
  state.t = settings.t0;
  state.q = problem.q0;
  state.v = problem.v0;
  state.a = Vector::Zero(problem.n());
  state.lambda = Vector::Zero(problem.m());
  std::string error;
  auto workspace = Begin(problem, h, state, outcome.counters, error);
  if (!workspace) {
    outcome.status = RunStatus::kFailed;
    outcome.message = "start failed: " + error;
    return outcome;
  }
  Report(observer, state);

  // Steps so that t0 + N h >= t_end; the 1e-9 slack keeps N exact when h divides it.
  const long steps = static_cast<long>(std::ceil((settings.t_end - settings.t0) / h - 1e-9));
  if (steps > settings.max_steps) {
    outcome.status = RunStatus::kFailed;
    outcome.message = "h = " + std::to_string(h) + " needs " + std::to_string(steps) +
                      " steps, more than max_steps";
    return outcome;
  }
  for (long k = 1; k <= steps; ++k) {
    const StepStatus status = Step(*workspace, h, state, outcome.counters);
    state.t = settings.t0 + static_cast<double>(k) * h;  // no accumulated rounding
    ++outcome.counters.steps;
    if (!status.ok) {
      outcome.status = RunStatus::kFailed;
      outcome.message =
          "step " + std::to_string(k) + " (t = " + std::to_string(state.t) + "): " + status.message;
      return outcome;
    }
    if (!state.q.allFinite() || !state.v.allFinite()) {
      outcome.status = RunStatus::kUnstable;
      outcome.message = "non-finite state at step " + std::to_string(k) +
                        " (t = " + std::to_string(state.t) + ")";
      return outcome;
    }
    Report(observer, state);
    if (observer.StopRequested()) {
      outcome.status = RunStatus::kUnstable;
      outcome.message = observer.StopReason();
      return outcome;
    }
  }
  Finish(*workspace, outcome.extra_metrics);
  return outcome;
}

}  // namespace mbb
