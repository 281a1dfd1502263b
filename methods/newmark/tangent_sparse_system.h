// The linear algebra of a tangent-newmark pass (tangent_newmark.cc; paper 001 section 5,
// eqs. 33-52) from structural entries, for long chains: H = Phi_q, H', H'' on Phi_q's
// pattern and M, K, C on the DAE's tangent pattern (problems/core/tangent_pattern.h), the
// minimum-norm solves of eqs. (33)-(47) through S = H H^T by envelope Cholesky
// (problems/core/sparse_constraint_system.h, metric I), and an orthonormal basis N_H of null(H)
// of k = n - m columns: the projections (I - H^T S^-1 H) e of k fixed pseudo-random vectors,
// orthonormalised (Gram-Schmidt, twice). Paper 001 takes N_H from a QR of H^T; the pass is
// invariant under N_H -> N_H R for orthogonal R (alpha, its Newmark update and the reduced
// equations transform alike; eq. 56 re-projects the state at t at every pass), so any
// orthonormal basis gives the same iterates up to rounding. Every product and solve costs
// O(n k) on a chain instead of the dense route's O(n^2 m).
//
// Needs full row rank (Factor() refuses otherwise, and the pass then takes the dense
// route). All storage is sized by Make(); nothing allocates afterwards.
#pragma once

#include <memory>
#include <vector>

#include "problems/core/mechanical_dae.h"
#include "problems/core/sparse_constraint_system.h"

namespace mbb {

class TangentSparseSystem {
 public:
  /// Null unless the choice asks for the sparse route (`auto`: from kSparseMinCoordinates
  /// coordinates on) and the model gives the entries and has full row rank at (t, q).
  static std::unique_ptr<TangentSparseSystem> Make(const MechanicalDae& dae, DaeWorkspace& ws,
                                                   double t, ConstVectorRef q,
                                                   ConstraintSolves choice);

  int k() const { return n_ - m_; }

  /// Factors S at (t, q) and forms N_H. False if S is singular or too close to it.
  bool Factor(DaeWorkspace& ws, double t, ConstVectorRef q);
  const Matrix& null_space() const { return null_space_; }  // N_H (n x k)
  double ConditionEstimate() const { return constraints_->ConditionEstimate(); }

  /// Minimum-norm x with H x = b; the same column by column for b (m x c), x (n x c).
  void SolveMinimumNorm(ConstVectorRef b, VectorRef x);
  template <class In, class Out>
  void SolveMinimumNormColumns(const In& b, Out&& x) {
    for (Eigen::Index j = 0; j < b.cols(); ++j) {
      vec_m_ = b.col(j);
      SolveMinimumNorm(vec_m_, vec_n_);
      x.col(j) = vec_n_;
    }
  }
  /// Least-squares lambda of H^T lambda = c (n): lambda = S^-1 H c.
  void SolveMultiplier(ConstVectorRef c, VectorRef lambda);
  /// out = H x.
  void MultiplyH(ConstVectorRef x, VectorRef out) const { constraints_->MultiplyJacobian(x, out); }

  // The matrices of the pass, by their entries: M, K = d(Ma)/dq - dQ/dq + d(Phi_q^T
  // lambda)/dq and C = -dQ/dv on the tangent pattern, H' and H'' on Phi_q's.
  enum class Term { kMass, kStiffness, kDamping, kHDot, kHDDot };
  /// out += scale * Term x, for vectors or matrices (column by column).
  template <class In, class Out>
  void AddProduct(Term term, double scale, const In& x, Out&& out) const {
    const std::vector<JacobianCompression::Entry>& entries = EntriesOf(term);
    const double* values = ValuesOf(term);
    for (Eigen::Index j = 0; j < x.cols(); ++j)
      for (size_t e = 0; e < entries.size(); ++e)
        out(entries[e].row, j) += scale * values[e] * x(entries[e].col, j);
  }

  /// M at q (a constant M once).
  void EvaluateMass(DaeWorkspace& ws, ConstVectorRef q);
  /// K, C, H' and H'' at the iterate (x, v, a) with multipliers lambda; H'' needs
  /// dgamma/dq, by central differences over Phi_q's column groups (as the dense route),
  /// where the DAE does not give it by hand (CalcGammaJacobianEntries).
  void EvaluateDerivatives(DaeWorkspace& ws, double t, ConstVectorRef x, ConstVectorRef v,
                           ConstVectorRef a, ConstVectorRef lambda);

 private:
  TangentSparseSystem(const MechanicalDae& dae, std::unique_ptr<SparseConstraintSystem> s);
  const std::vector<JacobianCompression::Entry>& EntriesOf(Term term) const;
  const double* ValuesOf(Term term) const;
  void GammaJacobianByDifferences(DaeWorkspace& ws, double t, ConstVectorRef x, ConstVectorRef v);

  const MechanicalDae& dae_;
  int n_, m_;
  std::unique_ptr<SparseConstraintSystem> constraints_;
  const std::vector<JacobianCompression::Entry>& tangent_entries_;
  const std::vector<JacobianCompression::Entry>& phi_q_entries_;
  std::vector<double> mass_, stiffness_, damping_, h_dot_, h_ddot_, scratch_;
  bool mass_evaluated_ = false;
  Matrix seeds_, null_space_;
  Vector vec_m_, vec_m2_, vec_n_, projection_, q_perturbed_, zero_n_;
};

}  // namespace mbb
