#include "methods/fixed_step_method.h"

#include <algorithm>
#include <cmath>

#include "problems/format.h"

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

long FixedStepCount(double t0, double t_end, double h) {
  const double count = std::ceil((t_end - t0) / h - 1e-9);
  // Out of range of long (or not finite): reported as -1, never an undefined cast.
  if (!std::isfinite(count) || count > 9e18 || count < -9e18) return -1;
  return static_cast<long>(count);
}

namespace {
void Report(StepObserver& observer, const FixedStepState& s) {
  observer.OnStep({s.t, s.q, s.v, s.has_acceleration ? &s.a : nullptr,
                   s.has_multipliers ? &s.lambda : nullptr, s.has_extra ? &s.extra : nullptr});
}

// Hands step k to the observer unless the state is non-finite; false (with the outcome marked
// unstable) when the run must stop, for a non-finite state or at the observer's request.
bool ReportAcceptedStep(StepObserver& observer, const FixedStepState& state, long k,
                        RunOutcome& outcome) {
  if (!state.q.allFinite() || !state.v.allFinite()) {
    outcome.status = RunStatus::kUnstable;
    outcome.message =
        "non-finite state at step " + std::to_string(k) + " (t = " + FormatNumber(state.t) + ")";
    return false;
  }
  Report(observer, state);
  if (observer.StopRequested()) {
    outcome.status = RunStatus::kUnstable;
    outcome.message = observer.StopReason();
    return false;
  }
  return true;
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
  workspace->rtol = settings.rtol;
  workspace->atol = settings.atol;
  workspace->diagnostics = settings.diagnostics;
  if (AdaptiveSteps())
    return RunVariable(*workspace, settings, h, state, observer, std::move(outcome));

  // Steps so that t0 + N h >= t_end; the 1e-9 slack keeps N exact when h divides it. The
  // harness validates the count up front (ResolveRun); the guard here keeps a direct caller
  // from an undefined cast.
  const long steps = FixedStepCount(settings.t0, settings.t_end, h);
  if (steps < 1 || steps > settings.max_steps) {
    outcome.status = RunStatus::kFailed;
    outcome.message = "h = " + FormatNumber(h) + " needs " + std::to_string(steps) +
                      " steps, more than max_steps (" + std::to_string(settings.max_steps) + ")";
    return outcome;
  }
  for (long k = 1; k <= steps; ++k) {
    // The last step is shortened to land exactly on t_end.
    const double t_next = k == steps ? settings.t_end : settings.t0 + static_cast<double>(k) * h;
    // Every other step is exactly h (not t_next - t, which differs from h by rounding).
    const double step = k == steps ? settings.t_end - state.t : h;
    const StepStatus status = Step(*workspace, step, state, outcome.counters);
    state.t = t_next;  // no accumulated rounding
    ++outcome.counters.steps;
    if (!status.ok) {
      outcome.status = RunStatus::kFailed;
      outcome.message =
          "step " + std::to_string(k) + " (t = " + FormatNumber(state.t) + "): " + status.message;
      return outcome;
    }
    if (!ReportAcceptedStep(observer, state, k, outcome)) return outcome;
  }
  Finish(*workspace, outcome.extra_metrics);
  return outcome;
}

// The variable-step loop: h is the first step offered, then the method's proposal; a step is
// clamped to land exactly on the next stop time or t_end.
RunOutcome FixedStepMethod::RunVariable(FixedStepWorkspace& workspace, const RunSettings& settings,
                                        double h, FixedStepState& state, StepObserver& observer,
                                        RunOutcome outcome) const {
  size_t next_stop = 0;
  long k = 0;
  while (state.t < settings.t_end) {
    while (next_stop < settings.stop_times.size() && settings.stop_times[next_stop] <= state.t)
      ++next_stop;
    const double target =
        next_stop < settings.stop_times.size() ? settings.stop_times[next_stop] : settings.t_end;
    const bool clamped = state.t + h >= target;
    const double offered = clamped ? target - state.t : h;
    const double t_start = state.t;
    const StepStatus status = Step(workspace, offered, state, outcome.counters);
    ++k;
    ++outcome.counters.steps;
    if (!status.ok) {
      state.t = t_start;
      outcome.status = RunStatus::kFailed;
      outcome.message =
          "step " + std::to_string(k) + " (t = " + FormatNumber(t_start) + "): " + status.message;
      return outcome;
    }
    const double taken = status.h_taken > 0.0 ? status.h_taken : offered;
    const bool landed = clamped && taken == offered;
    state.t = landed ? target : t_start + taken;  // exactly on the stop time
    const double proposal = status.h_next > 0.0 ? status.h_next : h;
    // A step shortened only to land on a stop time keeps the controller's earlier proposal.
    h = landed ? std::max(h, proposal) : proposal;
    if (!ReportAcceptedStep(observer, state, k, outcome)) return outcome;
    if (outcome.counters.steps + outcome.counters.rejected_steps >= settings.max_steps &&
        state.t < settings.t_end) {
      outcome.status = RunStatus::kFailed;
      outcome.message = "max_steps (" + std::to_string(settings.max_steps) +
                        ") reached at t = " + FormatNumber(state.t);
      return outcome;
    }
  }
  Finish(workspace, outcome.extra_metrics);
  return outcome;
}

}  // namespace mbb
