// The run protocol, written once: the suite's own methods (FixedStepMethod, whose fixed and
// variable-step loops run on it), the library adapters (SUNDIALS IDA and ARKODE,
// Boost.Odeint, Simbody, MuJoCo) and the joint-tree methods all advance through RunLoop, so
// that they differ only in how they take a step.
//
//   - the initial state is reported at t0;
//   - fixed steps (RunFixed): N = ceil((t_end - t0) / h) steps (FixedStepCount), every one
//     exactly h (not t_next - t, which differs from h by rounding) but the last, which is
//     t_end - t and lands exactly on t_end; the time after step k is t0 + k h, never a
//     running sum. A run whose N exceeds max_steps fails before the first step
//     ("h = ... needs N steps, more than max_steps (M)");
//   - variable steps land exactly on every RunSettings::stop_times entry and on t_end
//     (NextTarget, and Offer / Land for a loop that proposes its own step sizes);
//   - after every accepted step: a non-finite q or v ends the run `unstable` ("non-finite
//     state at step k (t = ...)"), the step is reported, an observer's stop request ends the
//     run `unstable` with the observer's reason, and max_steps accepted steps short of t_end
//     end it `failed` ("max_steps (N) reached at t = ..."). max_steps counts accepted steps
//     only (rejected trials do not count), for every method;
//   - a failed step ends the run `failed` with "step k (t = ...): why", k the step's number
//     and t the time the caller names: the end of a fixed step (where it was going), the
//     start of a variable one.
// The libraries' own step limits count per call and so never bound a run stepped one step
// at a time: max_steps is counted here. Nothing here allocates per step (the messages are
// built only when a run ends).
#pragma once

#include <string>

#include "methods/method.h"

namespace mbb {

/// N = ceil((t_end - t0) / h) (the 1e-9 slack keeps N exact when h divides the horizon);
/// -1 when the quotient is not finite or out of range of long.
long FixedStepCount(double t0, double t_end, double h);

/// The outcome of one step.
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

class RunLoop {
 public:
  RunLoop(const RunSettings& settings, StepObserver& observer);

  /// True while the run has neither reached t_end nor ended early (t in s).
  bool Continues(double t) const { return !ended_ && t < settings_.t_end; }
  /// The time a variable-step run must land on exactly after t: the first stop time > t,
  /// else t_end.
  double NextTarget(double t);

  /// A variable step offered at t for the proposal h: clamped to land on NextTarget(t).
  struct Offer {
    double size;    // the step to try
    double target;  // the time it may land on
    bool clamped;   // size was shortened to target - t
  };
  Offer OfferStep(double t, double h);
  /// After a step of `taken` from t_start (offer as given): the new time, exactly the target
  /// when the clamped step was taken whole; h becomes the method's `proposal`, except that a
  /// step shortened only to land keeps the larger earlier proposal.
  static double Land(const Offer& offer, double t_start, double taken, double proposal, double& h);

  /// Fixed steps of size h: false (run ended `failed`) if they would exceed max_steps.
  bool CheckFixedStepCount(double h);
  /// Number of fixed steps of size h from t0 to t_end (-1 when out of range).
  long FixedStepCount(double h) const;

  /// The fixed-step loop (see the file comment). advance(t, size, t_next) takes one step of
  /// `size` from t and returns its StepStatus (the caller counts it), or ends the run itself
  /// (End) for an outcome other than `failed`; sample(t_next) is the state after it. Stops
  /// at the first failure, End, non-finite state or observer stop.
  template <class Advance, class Sample>
  void RunFixed(double h, Advance&& advance, Sample&& sample) {
    if (!CheckFixedStepCount(h)) return;
    const long steps = FixedStepCount(h);
    double t = settings_.t0;
    for (long k = 1; k <= steps; ++k) {
      const double t_next =
          k == steps ? settings_.t_end : settings_.t0 + static_cast<double>(k) * h;
      const double size = k == steps ? settings_.t_end - t : h;
      const StepStatus status = advance(t, size, t_next);
      t = t_next;  // no accumulated rounding
      if (ended_) return;
      if (!status.ok) return FailStep(t, status.message);
      if (!AcceptStep(sample(t))) return;
    }
  }

  /// Reports the initial state (sample.t = t0).
  void ReportStart(const StepSample& sample) { observer_.OnStep(sample); }
  /// An accepted step ending at sample.t. False when the run must end: non-finite state,
  /// observer stop or max_steps (the status and message are then set).
  bool AcceptStep(const StepSample& sample);
  /// The step after the last accepted one failed; t as in the file comment.
  void FailStep(double t, const std::string& why);
  /// Ends the run with `status` and `message` verbatim (e.g. a failed library setup).
  void End(RunStatus status, std::string message);

  bool ended() const { return ended_; }
  long accepted_steps() const { return accepted_steps_; }
  /// Copies the status and message into `outcome` (counters stay the caller's).
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
