// Explicit Runge-Kutta steps, written once for the suite's own explicit integrators
// (continued and traditional QR, coordinate partitioning, the joint-tree RK4):
//
//   tableaux    classical RK4 [Hairer, Norsett, Wanner 1993, s II.1, Table 1.2] and
//               Dormand-Prince 5(4) [Dormand, Prince 1980; HNW Table II.5.2]: its fifth-order
//               weights b, and the error weights e = b - b* of the embedded fourth-order
//               solution over the six stages and the FSAL seventh, evaluated at (t + h, y1);
//   stage loop  y_i = y0 + sum_j (h a_ij) k_j,  k_i = f(t + c_i h, y_i),
//               y1 = y0 + sum_i (h b_i) k_i  (zero coefficients skipped);
//   controller  HNW s II.4: err = the weighted RMS norm of e (4.11), accepted when err <= 1;
//               h_new = h min(facmax, max(facmin, fac err^(-1/5))) with fac = 0.9,
//               facmin = 0.2, facmax = 5 (4.12)-(4.13), no increase right after a rejection;
//               a rejected trial restarts from y0 with the smaller h and keeps k_1 (it does
//               not depend on h); a step below 1e-12 (1 + |t|) ends the step as failed;
//   reuse       k_1 = f(t, y0) is not evaluated when the caller supplies it: Dormand-Prince's
//               FSAL stage of the accepted step before [HNW s II.5], or the rates a sample
//               already computed at (t, y0).
//
// The state y is one vector (a method concatenates its blocks, e.g. positions and
// velocities); the right-hand side is the method's: rates(t, y, k, stage) writes f(t, y) into
// k and returns false where it cannot be evaluated (a singular matrix). Every buffer is
// allocated at construction: a step allocates nothing.
#pragma once

#include <string>

#include "methods/method.h"

namespace mbb {

struct ButcherTableau {
  int stages;  // s, the stages of the solution y1
  double c[6];
  double a[6][6];
  double b[6];
  /// e_i = b_i - b*_i over s + 1 stages (the last the FSAL stage at (t + h, y1)); nullptr
  /// when the method has no embedded pair.
  const double* error;
};

const ButcherTableau& ClassicalRk4();
const ButcherTableau& DormandPrince5();

/// What an adaptive step did.
struct AdaptiveRkStep {
  int failed_stage = 0;    // 1-based stage whose rates failed (s + 1: the FSAL stage); 0: none
  bool underflow = false;  // the next trial would be below the minimum step
  double h_taken = 0.0;    // the accepted step
  double h_next = 0.0;     // the controller's proposal for the next step
  double h_tried = 0.0;    // underflow: the last trial step, its error norm, and the step
  double error = 0.0;      // that would have come next
  double h_smaller = 0.0;
  bool ok() const { return failed_stage == 0 && !underflow; }
  /// The underflow's message (only when underflow), naming t.
  std::string UnderflowMessage(double t) const;
};

class ExplicitRungeKutta {
 public:
  /// capacity: the largest state size a run uses (the state may shrink, Resize).
  ExplicitRungeKutta(const ButcherTableau& tableau, int capacity);

  const ButcherTableau& tableau() const { return tab_; }
  /// The active state size (<= capacity; no allocation).
  void Resize(int size) { size_ = size; }
  int size() const { return size_; }

  /// y0, to be set before a step.
  auto start() { return y0_.head(size_); }
  /// y1 after a successful step.
  auto solution() const { return y1_.head(size_); }
  /// k_i (column i of the stage rates).
  auto rates(int stage) const { return k_.col(stage).head(size_); }

  /// k_1 = f(t, y0) of the next step when the caller has it already (the rates a sample
  /// computed at the same (t, y0)): the caller writes it into the returned column and the
  /// next Step or AdaptiveStep does not evaluate it. Same rates, same bits, one evaluation
  /// fewer per step.
  auto known_first_rates() {
    first_known_ = true;
    return k_.col(0).head(size_);
  }
  /// After an accepted AdaptiveStep from t to t + h_taken: the FSAL stage f(t + h, y1)
  /// becomes the next step's k_1. Only for a next step that starts at exactly that time and
  /// at y1 unchanged (a method that projects or changes coordinates between steps must not).
  void ReuseFsalStage() { known_first_rates() = k_.col(tab_.stages).head(size_); }

  /// One step of size h: the stages and y1. Returns the failing stage (1-based) or 0.
  template <class Rates>
  int Step(double t, double h, Rates&& rates) {
    const int failed = Stages(t, h, TakeFirstKnown(), rates);
    if (failed == 0) Solution(h);
    return failed;
  }

  /// The error norm weighs y component by component, sc_j = atol + rtol max(|y0_j|, |y1_j|),
  /// except that the components from `start` on (a block of coordinates in a basis the
  /// method may rotate) share the weight of their block's 2-norms: the norm, hence the step
  /// sequence, is then the same for every basis. Allocates; call once before the run.
  void SetRotatedBlock(int start);

  /// An error-controlled step (a tableau with an embedded pair) of at most h. Counts
  /// rejected trials in `counters`.
  template <class Rates>
  AdaptiveRkStep AdaptiveStep(double t, double h, double rtol, double atol, Rates&& rates,
                              WorkCounters& counters) {
    AdaptiveRkStep out;
    bool rejected = false;
    for (int first = TakeFirstKnown();; first = 1) {
      if ((out.failed_stage = Stages(t, h, first, rates)) != 0) return out;
      Solution(h);
      const int fsal = tab_.stages;
      if (!rates(t + h, y1_.head(size_), k_.col(fsal).head(size_), fsal)) {
        out.failed_stage = fsal + 1;
        return out;
      }
      const double err = ErrorNorm(h, rtol, atol);
      if (Control(err, rejected, t, h, out)) return out;
      ++counters.rejected_steps;
      if (out.underflow) return out;
      rejected = true;
      h = out.h_smaller;
    }
  }

 private:
  // Stages first..s-1 of a step of size h from (t, y0). Returns the failing stage or 0.
  template <class Rates>
  int Stages(double t, double h, int first, Rates&& rates) {
    for (int i = first; i < tab_.stages; ++i) {
      StageState(i, h);
      if (!rates(t + tab_.c[i] * h, ys_.head(size_), k_.col(i).head(size_), i)) return i + 1;
    }
    return 0;
  }
  // The first stage to evaluate: 1 when k_1 is known (known_first_rates), else 0.
  int TakeFirstKnown() {
    const int first = first_known_ ? 1 : 0;
    first_known_ = false;
    return first;
  }
  void StageState(int stage, double h);
  void Solution(double h);
  double ErrorNorm(double h, double rtol, double atol);
  // The controller after a trial of size h with error norm err: true if accepted (h_taken,
  // h_next set); else h_smaller, and underflow when it is below the minimum.
  static bool Control(double err, bool rejected, double t, double h, AdaptiveRkStep& out);

  const ButcherTableau& tab_;
  int size_;
  Vector y0_, ys_, y1_;
  Matrix k_;                  // capacity x (s + 1): the stage rates, the last column the FSAL stage
  int block_ = -1;            // SetRotatedBlock's start; -1: none
  bool first_known_ = false;  // k_1 of the next step is in column 0 already
  Vector block0_, block1_;    // the block of y0 and y1 (its own vectors: the same norm to the bit)
};

}  // namespace mbb
