#include "methods/fixed_step_method.h"

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
StepSample SampleOf(const FixedStepState& s) {
  return {s.t,
          s.q,
          s.v,
          s.has_acceleration ? &s.a : nullptr,
          s.has_multipliers ? &s.lambda : nullptr,
          s.has_extra ? &s.extra : nullptr};
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
  RunLoop loop(settings, observer);
  loop.ReportStart(SampleOf(state));
  workspace->rtol = settings.rtol;
  workspace->atol = settings.atol;
  workspace->diagnostics = settings.diagnostics;
  if (AdaptiveSteps()) {
    RunVariable(*workspace, loop, h, state, outcome.counters);
  } else {
    loop.RunFixed(
        h,
        [&](double /*t*/, double size, double /*t_next*/) {
          ++outcome.counters.steps;
          return Step(*workspace, size, state, outcome.counters);
        },
        [&](double t_next) {
          state.t = t_next;
          return SampleOf(state);
        });
  }
  if (!loop.ended()) Finish(*workspace, outcome.extra_metrics);
  loop.Finish(outcome);
  return outcome;
}

// The variable-step loop: h is the first step offered, then the method's proposal; a step is
// clamped to land exactly on the next stop time or t_end (RunLoop::OfferStep, Land).
void FixedStepMethod::RunVariable(FixedStepWorkspace& workspace, RunLoop& loop, double h,
                                  FixedStepState& state, WorkCounters& counters) const {
  while (loop.Continues(state.t)) {
    const RunLoop::Offer offer = loop.OfferStep(state.t, h);
    const double t_start = state.t;
    const StepStatus status = Step(workspace, offer.size, state, counters);
    ++counters.steps;
    if (!status.ok) return loop.FailStep(t_start, status.message);
    const double taken = status.h_taken > 0.0 ? status.h_taken : offer.size;
    state.t = RunLoop::Land(offer, t_start, taken, status.h_next > 0.0 ? status.h_next : h, h);
    if (!loop.AcceptStep(SampleOf(state))) return;
  }
}

}  // namespace mbb
