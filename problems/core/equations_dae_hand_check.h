// The hand-written constraint derivatives an Equations type may give instead of automatic
// differentiation (HasHandConstraintDerivatives, HasRowHessians; equations_dae_passes.h),
// checked once per model against dual numbers at the pseudo-random states of the structure
// detection (equations_dae_structure.h), and where their values go among Phi_q's entries.
// The same derivatives in another order of operations agree to a few roundings of the
// largest entry (1e-12 of the scale); a wrong term would be O(1). d gamma / dq, for which no
// dual of third order is formed, is checked against central differences of the hand-written
// gamma instead. A disagreement is a programming error in the equations: it aborts.
#pragma once

#include <cmath>
#include <limits>
#include <vector>

#include "problems/core/equations_dae_passes.h"
#include "problems/core/equations_dae_structure.h"
#include "problems/core/invariant.h"

namespace mbb {

/// The hand-written derivatives `what` at (q, v) added into a dense m x n matrix, checking
/// that they visit the entries the Jacobian's visit recorded (DetectHandDerivatives).
template <class Equations>
void VisitHand(const Equations& eq, const EquationsStructure& structure, RowDerivative what,
               ConstVectorRef q, const double* v, Matrix& out) {
  const std::vector<int>& slot = structure.hand_jacobian_slot;
  size_t k = 0;
  eq.VisitRowDerivatives(what, q.data(), v, [&](int row, int col, double value) {
    MBB_INVARIANT(k < slot.size() && EntryOf(structure.phi_q, row, col) == slot[k++],
                  "hand-written row derivatives visit different entries");
    out(row, col) += value;
  });
}

namespace internal {

// Relative agreement of a few roundings of the largest entry.
template <class A, class B>
bool HandAgrees(const A& hand, const B& duals) {
  return (hand - duals).cwiseAbs().maxCoeff() <= 1e-12 * (1.0 + duals.cwiseAbs().maxCoeff());
}

// d gamma / dq by hand at (t, q, v) against central differences of the hand-written gamma,
// whose error (step^2 times third derivatives, ~1e-11 of the scale) is far below 1e-7.
template <class Equations>
void CheckHandGammaJacobian(const Equations& eq, const EquationsStructure& structure, double t,
                            const std::vector<double>& q_values, ConstVectorRef v, Matrix& by_hand,
                            Matrix& by_differences, Vector& gamma) {
  const int n = static_cast<int>(q_values.size());
  const Eigen::Map<const Vector> q(q_values.data(), n);
  by_hand.setZero();
  VisitHand(eq, structure, RowDerivative::kGammaJacobian, q, v.data(), by_hand);
  for (int col = 0; col < n; ++col) {
    const double step =
        std::cbrt(std::numeric_limits<double>::epsilon()) * (1.0 + std::abs(q[col]));
    std::vector<double> shifted = q_values;
    shifted[col] = q_values[col] + step;
    eq.ConstraintGamma(t, shifted.data(), v.data(), gamma.data());
    by_differences.col(col) = gamma;
    shifted[col] = q_values[col] - step;
    eq.ConstraintGamma(t, shifted.data(), v.data(), gamma.data());
    by_differences.col(col) = (by_differences.col(col) - gamma) / (2.0 * step);
  }
  MBB_INVARIANT((by_hand - by_differences).cwiseAbs().maxCoeff() <=
                    1e-7 * (1.0 + by_differences.cwiseAbs().maxCoeff()),
                "hand-written d gamma / dq disagrees with differences of gamma");
}

}  // namespace internal

/// Where the values of the hand-written Phi_q go among out.phi_q's entries
/// (hand_jacobian_slot), and the check of the hand-written Phi_q, d/dt Phi_q, d gamma / dq,
/// gamma and Phi_t at three pseudo-random states. Nothing for equations without them.
template <class Equations>
void DetectHandDerivatives(const EquationPasses<Equations>& ad, EquationsStructure& out) {
  if constexpr (HasHandConstraintDerivatives<Equations>::value) {
    const Equations& eq = ad.equations();
    const JacobianCompression& c = out.phi_q;
    const int n = ad.n(), m = ad.m();
    EquationsWorkspace<Equations> w(n, m);
    RandomStates random;
    std::vector<double> q_values(n), v_values(n);
    const Eigen::Map<const Vector> q(q_values.data(), n), v(v_values.data(), n);
    Matrix by_hand(m, n), by_duals(m, n);
    Vector gamma_by_hand(m), gamma_by_duals(m);
    for (int trial = 0; trial < 3 && m > 0; ++trial) {
      random.Fill(q_values);
      random.Fill(v_values);
      const double t = 0.1 + 0.8 * random.Uniform();
      by_hand.setZero();
      eq.VisitRowDerivatives(RowDerivative::kJacobian, q.data(), nullptr,
                             [&](int row, int col, double value) {
                               by_hand(row, col) += value;
                               if (trial == 0)
                                 out.hand_jacobian_slot.push_back(EntryOf(c, row, col));
                             });
      by_duals.setZero();
      ad.ForEachPhiQEntry(w, c, t, q,
                          [&](const auto& e, double value) { by_duals(e.row, e.col) = value; });
      MBB_INVARIANT(internal::HandAgrees(by_hand, by_duals),
                    "hand-written constraint Jacobian disagrees with dual numbers");
      by_hand.setZero();
      VisitHand(eq, out, RowDerivative::kRate, q, v.data(), by_hand);
      by_duals.setZero();
      for (int g = 0; g < c.num_groups(); ++g)
        ad.ForEachPhiQDotEntryOfGroup(
            w, c, t, q, v, g, [&](const auto& e, double value) { by_duals(e.row, e.col) = value; });
      MBB_INVARIANT(internal::HandAgrees(by_hand, by_duals),
                    "hand-written d/dt Phi_q disagrees with dual numbers");
      internal::CheckHandGammaJacobian(eq, out, t, q_values, v, by_hand, by_duals, gamma_by_hand);
      eq.ConstraintGamma(t, q.data(), v.data(), gamma_by_hand.data());
      ad.Gamma(w, t, q, v, gamma_by_duals);
      MBB_INVARIANT(internal::HandAgrees(gamma_by_hand, gamma_by_duals),
                    "hand-written gamma disagrees with dual numbers");
      eq.ConstraintTimeRate(t, gamma_by_hand.data());
      ad.PhiT(w, t, q, gamma_by_duals);
      MBB_INVARIANT(internal::HandAgrees(gamma_by_hand, gamma_by_duals),
                    "hand-written Phi_t disagrees with dual numbers");
    }
  }
}

/// The hand-written Hessians of the rows in structure.hand_rows (HasRowHessians) against
/// the second-order passes of the other column-group pairs, at the states of
/// DetectConstraintCurvature: sum_r lambda_r d^2 Phi_r / dq_i dq_j over those rows.
template <class Equations>
void CheckRowHessians(const EquationPasses<Equations>& ad, const EquationsStructure& structure) {
  if constexpr (HasRowHessians<Equations>::value) {
    if (!structure.any_hand_rows) return;
    const JacobianCompression& c = structure.phi_q;
    const int n = ad.n(), m = ad.m(), groups = c.num_groups();
    EquationsWorkspace<Equations> w(n, m);
    RandomStates random;
    std::vector<double> q_values(n), v_values(n), lambda(m);
    const Eigen::Map<const Vector> q(q_values.data(), n);
    Matrix by_duals(n, n), by_hand(n, n);
    for (int trial = 0; trial < 3 && m > 0; ++trial) {
      random.Fill(q_values);
      random.Fill(v_values);  // unused: the states DetectConstraintCurvature draws
      random.Fill(lambda);
      const double t = 0.1 + 0.8 * random.Uniform();
      by_duals.setZero();
      by_hand.setZero();
      for (int a = 0; a < groups; ++a) {
        for (int b = a; b < groups; ++b) {
          ad.ConstraintPairPass(w, c, t, q, a, b);
          for (int r = 0; r < m; ++r) {
            const int i = c.column_in_group(a, r), j = c.column_in_group(b, r);
            if (i < 0 || j < 0 || !structure.hand_rows[r]) continue;
            by_duals(i, j) += lambda[r] * w.out2[r].d.d;
            if (a != b) by_duals(j, i) += lambda[r] * w.out2[r].d.d;
          }
        }
      }
      ad.equations().AddRowHessians(q.data(), lambda.data(),
                                    [&](int i, int j, double value) { by_hand(i, j) += value; });
      MBB_INVARIANT(internal::HandAgrees(by_hand, by_duals),
                    "hand-written constraint Hessians disagree with dual numbers");
    }
  }
}

}  // namespace mbb
