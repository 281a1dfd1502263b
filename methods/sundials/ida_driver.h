// The one IDA driver (SUNDIALS 6.4 IDA, variable-order BDF with the dense direct solver and
// its difference-quotient Jacobian): setup, the run loop (RunLoop: one IDA_ONE_STEP call per
// accepted step, landing on every stop time through IDASetStopTime), the failure messages and
// the counters. Used by `ida` (ida_method.cc, the mechanical DAE) and the joint-tree methods
// (recursive_methods.cc, q'' = a or the rank-deficient residual); each supplies only its
// residual, consistent start, tolerances, id vector and how a sample is read from y, yp.
#pragma once

#include <ida/ida.h>

#include <functional>
#include <string>

#include "methods/method.h"
#include "methods/sundials/sundials_support.h"

namespace mbb {

struct IdaSetup {
  IDAResFn residual = nullptr;  // returns > 0 for a recoverable failure (IDA cuts h)
  void* user_data = nullptr;
  /// Absolute tolerance per component (IDASVtolerances); nullptr: RunSettings::atol for all
  /// (IDASStolerances).
  N_Vector atol = nullptr;
  /// 1 for differential, 0 for algebraic components: those are left out of the error test
  /// (IDASetId, IDASetSuppressAlg); nullptr: every component is tested.
  N_Vector id = nullptr;
  int max_order = 0;  // 1..5; 0: IDA's default (5)
  /// Appended to the message when the dense Jacobian would not fit in memory.
  std::string too_large_hint;
  /// The accepted state at time t as a sample, read from y and yp.
  std::function<StepSample(double t)> sample;
  /// Extra words for a failed IDA call's message (empty: none).
  std::function<std::string()> failure_note;
};

/// Integrates from (settings.t0, y, yp), which must be consistent, to settings.t_end.
RunOutcome RunIda(const IdaSetup& setup, SUNContext ctx, SerialVector& y, SerialVector& yp,
                  const RunSettings& settings, StepObserver& observer);

}  // namespace mbb
