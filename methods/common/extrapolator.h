// Starting values of the implicit fixed-step methods' iterations (`predictor=extrapolation`):
// a quantity recorded at the ends of the last accepted steps, extrapolated to the end of the
// next one. The Newmark methods of paper 001 extrapolate a_{n+1} (newmark-index3 also
// lambda_{n+1}); the mid-point schemes of paper 002 v_{n+1} (constrained-em also lambda).
//
// The iteration's answer does not depend on where it starts (it ends when a pass changes
// the iterate by less than the tolerance), its number of passes does: the first pass
// removes most of the starting error and the next ones contract about quadratically in
// it. Starting from y_{n+1} = y_n (the classical start, `predictor=constant`) leaves an
// error h |y'|; extrapolating over equal steps by backward differences,
//   order p:  y_{n+1} ~ sum_{j=0..p} nabla^j y_n,
//   p = 1: 2 y_n - y_{n-1},  p = 2: 3 y_n - 3 y_{n-1} + y_{n-2},
//   p = 3: 4 y_n - 6 y_{n-1} + 4 y_{n-2} - y_{n-3},
// leaves h^{p+1} |y^{(p+1)}| where the steps resolve the motion. Where they do not (a
// solution that alternates from step to step, as the trapezoidal rule's index-3
// accelerations do, or just after a jump of a force) extrapolation overshoots, so each
// step uses the order that would have predicted the last accepted value best: the
// smallest |nabla^{p+1} y_n|, which is order p's error on that step (the order choice of
// Adams and BDF codes, Hairer, Norsett and Wanner I, section III.7, applied to the
// starting value alone).
//
// Equal steps only: after a step of another length (the shortened last step) the history
// starts again from that step's two ends. Storage is allocated at construction.
#pragma once

#include "problems/core/mechanical_dae.h"

namespace mbb {

class Extrapolator {
 public:
  /// Highest extrapolation order (3: cubic). Measured at h = 0.01 over 2 s on the double
  /// four-bar, passes with the highest order 2 / 3 / 4: tangent-newmark 476 / 444 / 441,
  /// constrained-em 495 / 424 / 408, null-space-em 654 / 601 / 601.
  static constexpr int kMaxOrder = 3;

  /// A history of vectors of size n; `extrapolate` false: Predict always gives y_n.
  Extrapolator(int n, bool extrapolate);

  /// The history starts again from the value at the initial state.
  void Start(const Vector& y0);

  /// Records the value at the end of an accepted step of length h (the first record, as
  /// Start, if there is none: a quantity without a value at the initial state).
  void Accept(const Vector& y, double h);

  /// The starting value for a step of length h: y_n (the last record) or its
  /// extrapolation. Returns the order used: 0 for y_n, -1 if there is no record yet (then
  /// y_next is left as it is).
  int Predict(double h, Vector& y_next) const;

 private:
  // The order whose prediction of the newest record from the older ones had the smallest
  // error, among those the history supports (0 with fewer than 3 records).
  int ChooseOrder() const;
  // Sum over i of c_{p,i} history_(row, first + i), c_{p,i} = (-1)^i binomial(p + 1, i + 1):
  // the order-p extrapolation from records first, first + 1, ... to the one before first.
  double Extrapolate(int p, int first, Eigen::Index row) const;

  bool extrapolate_;
  Matrix history_;  // column j: y_{n-j}, newest first
  int count_ = 0;   // columns of history_ in use
  double h_ = 0.0;  // the step between the recorded values
};

}  // namespace mbb
