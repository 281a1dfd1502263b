#include "methods/common/run_loop.h"

#include <algorithm>
#include <cmath>

#include "problems/core/format.h"

namespace mbb {

long FixedStepCount(double t0, double t_end, double h) {
  const double count = std::ceil((t_end - t0) / h - 1e-9);
  // Out of range of long (or not finite): reported as -1, never an undefined cast.
  if (!std::isfinite(count) || count > 9e18 || count < -9e18) return -1;
  return static_cast<long>(count);
}

RunLoop::RunLoop(const RunSettings& settings, StepObserver& observer)
    : settings_(settings), observer_(observer) {}

double RunLoop::NextTarget(double t) {
  while (next_stop_ < settings_.stop_times.size() && settings_.stop_times[next_stop_] <= t)
    ++next_stop_;
  return next_stop_ < settings_.stop_times.size() ? settings_.stop_times[next_stop_]
                                                  : settings_.t_end;
}

RunLoop::Offer RunLoop::OfferStep(double t, double h) {
  const double target = NextTarget(t);
  const bool clamped = t + h >= target;
  return {clamped ? target - t : h, target, clamped};
}

double RunLoop::Land(const Offer& offer, double t_start, double taken, double proposal, double& h) {
  const bool landed = offer.clamped && taken == offer.size;
  h = landed ? std::max(h, proposal) : proposal;
  return landed ? offer.target : t_start + taken;  // exactly on the stop time
}

long RunLoop::FixedStepCount(double h) const {
  return mbb::FixedStepCount(settings_.t0, settings_.t_end, h);
}

bool RunLoop::CheckFixedStepCount(double h) {
  // The harness validates the count up front (ResolveRun); this keeps a direct caller from
  // an undefined cast or an endless run.
  const long steps = FixedStepCount(h);
  if (steps >= 1 && steps <= settings_.max_steps) return true;
  End(RunStatus::kFailed, "h = " + FormatNumber(h) + " needs " + std::to_string(steps) +
                              " steps, more than max_steps (" +
                              std::to_string(settings_.max_steps) + ")");
  return false;
}

bool RunLoop::AcceptStep(const StepSample& sample) {
  ++accepted_steps_;
  if (!sample.q.allFinite() || !sample.v.allFinite()) {
    End(RunStatus::kUnstable, "non-finite state at step " + std::to_string(accepted_steps_) +
                                  " (t = " + FormatNumber(sample.t) + ")");
    return false;
  }
  observer_.OnStep(sample);
  if (observer_.StopRequested()) {
    End(RunStatus::kUnstable, observer_.StopReason());
    return false;
  }
  if (accepted_steps_ >= settings_.max_steps && sample.t < settings_.t_end) {
    End(RunStatus::kFailed, "max_steps (" + std::to_string(settings_.max_steps) +
                                ") reached at t = " + FormatNumber(sample.t));
    return false;
  }
  return true;
}

void RunLoop::FailStep(double t, const std::string& why) {
  End(RunStatus::kFailed,
      "step " + std::to_string(accepted_steps_ + 1) + " (t = " + FormatNumber(t) + "): " + why);
}

void RunLoop::End(RunStatus status, std::string message) {
  ended_ = true;
  status_ = status;
  message_ = std::move(message);
}

void RunLoop::Finish(RunOutcome& outcome) const {
  outcome.status = status_;
  outcome.message = message_;
}

}  // namespace mbb
