// The run-loop protocol of the library adapters (SUNDIALS IDA and ARKODE, Boost.Odeint,
// Simbody): one place that owns what every adapter must do the same way, so that the
// libraries differ only in how they take a step.
//
//   - the initial state is reported at t0;
//   - an adaptive library lands exactly on every RunSettings::stop_times entry and on t_end
//     (NextTarget gives the time to land on);
//   - after every accepted step: a non-finite q or v ends the run `unstable`
//     ("non-finite state at step k (t = ...)"), the step is reported, an observer's stop
//     request ends the run `unstable` with the observer's reason, and max_steps accepted
//     steps short of t_end end it `failed` ("max_steps (N) reached at t = ...");
//   - a fixed-step run whose ceil((t_end - t0) / h) steps exceed max_steps fails before the
//     first step ("h = ... needs N steps, more than max_steps (M)");
//   - a failed library call or adapter step ends the run `failed` with
//     "step k (t = ...): why".
// The messages are those of FixedStepMethod (fixed_step_method.h), the loop of the suite's
// own methods. The libraries' own step limits count per call and so never bound a run
// stepped one step at a time: max_steps is counted here.
#pragma once

#include <string>

#include "methods/method.h"

namespace mbb {

class LibraryRunLoop {
 public:
  LibraryRunLoop(const RunSettings& settings, StepObserver& observer);

  /// True while the run has neither reached t_end nor ended early (t in s).
  bool Continues(double t) const { return !ended_ && t < settings_.t_end; }
  /// The time an adaptive library must land on exactly after t: the first stop time > t,
  /// else t_end.
  double NextTarget(double t);

  /// Fixed steps of size h: false (run failed) if they would exceed max_steps.
  bool CheckFixedStepCount(double h);
  /// Number of fixed steps of size h from t0 to t_end (the last one shortened to land on
  /// t_end, as in FixedStepMethod; -1 when out of range).
  long FixedStepCount(double h) const;

  /// Reports the initial state (sample.t = t0).
  void ReportStart(const StepSample& sample) { observer_.OnStep(sample); }
  /// An accepted step ending at sample.t. False when the run must end: non-finite state,
  /// observer stop or max_steps (the status and message are then set).
  bool AcceptStep(const StepSample& sample);
  /// The step after the last accepted one failed at time t (library error, adapter failure).
  void FailStep(double t, const std::string& why);
  /// Ends the run with `status` and `message` verbatim (e.g. a failed library setup).
  void End(RunStatus status, std::string message);

  bool ended() const { return ended_; }
  long accepted_steps() const { return accepted_steps_; }
  /// Copies the status and message into `outcome` (counters stay the adapter's).
  void Finish(RunOutcome& outcome) const;

 private:
  const RunSettings& settings_;
  StepObserver& observer_;
  size_t next_stop_ = 0;
  long accepted_steps_ = 0;
  bool ended_ = false;
  RunStatus status_ = RunStatus::kOk;
  std::string message_;
};

}  // namespace mbb
