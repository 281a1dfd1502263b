#include "methods/common/run_loop.h"

#include <cmath>

#include "methods/fixed_step_method.h"
#include "problems/format.h"

namespace mbb {

LibraryRunLoop::LibraryRunLoop(const RunSettings& settings, StepObserver& observer)
    : settings_(settings), observer_(observer) {}

double LibraryRunLoop::NextTarget(double t) {
  while (next_stop_ < settings_.stop_times.size() && settings_.stop_times[next_stop_] <= t)
    ++next_stop_;
  return next_stop_ < settings_.stop_times.size() ? settings_.stop_times[next_stop_]
                                                  : settings_.t_end;
}

long LibraryRunLoop::FixedStepCount(double h) const {
  return mbb::FixedStepCount(settings_.t0, settings_.t_end, h);
}

bool LibraryRunLoop::CheckFixedStepCount(double h) {
  const long steps = FixedStepCount(h);
  if (steps >= 1 && steps <= settings_.max_steps) return true;
  End(RunStatus::kFailed, "h = " + FormatNumber(h) + " needs " + std::to_string(steps) +
                              " steps, more than max_steps (" +
                              std::to_string(settings_.max_steps) + ")");
  return false;
}

bool LibraryRunLoop::AcceptStep(const StepSample& sample) {
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

void LibraryRunLoop::FailStep(double t, const std::string& why) {
  End(RunStatus::kFailed,
      "step " + std::to_string(accepted_steps_ + 1) + " (t = " + FormatNumber(t) + "): " + why);
}

void LibraryRunLoop::End(RunStatus status, std::string message) {
  ended_ = true;
  status_ = status;
  message_ = std::move(message);
}

void LibraryRunLoop::Finish(RunOutcome& outcome) const {
  outcome.status = status_;
  outcome.message = message_;
}

}  // namespace mbb
