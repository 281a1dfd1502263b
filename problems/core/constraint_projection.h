// Projection onto the constraint manifold with the rank-revealing factorisation of Phi_q
// (constraint_factorization.h), so that redundant constraints (rank-deficient Phi_q) are
// handled: minimum-norm Newton steps on Phi(t, q) = 0 and the minimum-norm velocity
// correction for Phi_q v + Phi_t = 0. With `ConstraintSolves::kSparse` or `kAuto` on a large
// sparse model the same corrections come from the sparse system of
// sparse_constraint_system.h (metric I) wherever it factors, and from the QR elsewhere.
// All storage is allocated at construction; Project* calls do not allocate.
#pragma once

#include "problems/core/constraint_factorization.h"
#include "problems/core/mechanical_dae.h"
#include "problems/core/sparse_constraint_system.h"

namespace mbb {

class ConstraintProjector {
 public:
  ConstraintProjector(const MechanicalDae& dae, DaeWorkspace& ws,
                      ConstraintSolves solves = ConstraintSolves::kAuto);

  /// Newton with minimum-norm steps until ||Phi||_inf <= tol. Returns false if it does not
  /// converge in max_iterations (q then holds the last iterate).
  bool ProjectPositions(double t, VectorRef q, double tol, int max_iterations);
  /// v -= Phi_q^+ (Phi_q v + Phi_t): the minimum-norm correction.
  void ProjectVelocities(double t, ConstVectorRef q, VectorRef v);

  /// The rank of Phi_q on the manifold, if the caller knows it: below m (redundant rows)
  /// the sparse system cannot factor, so it is not tried.
  void set_manifold_rank(int rank) { sparse_allowed_ = rank >= dae_.num_constraints(); }

  /// Numerical rank of Phi_q at the last factorisation (m when the sparse one succeeded).
  int last_rank() const {
    return sparse_factored_ ? dae_.num_constraints() : factorization_.rank();
  }
  /// ||Phi||_inf after the last ProjectPositions.
  double last_position_residual() const { return residual_; }

  /// The dense factorisation of Phi_q at (t, q) if the last factorisation was that one (to
  /// the bit), else null: after ProjectVelocities, the one at the projected positions, which
  /// the next acceleration solve there would compute again.
  const ConstraintFactorization* DenseFactorizationAt(double t, ConstVectorRef q) const;

 private:
  void Factor(double t, ConstVectorRef q);               // Phi_q at (t, q)
  void SolveMinimumNorm(ConstVectorRef b, VectorRef x);  // from the last Factor

  const MechanicalDae& dae_;
  DaeWorkspace& ws_;
  Matrix phi_q_;
  ConstraintFactorization factorization_;
  std::unique_ptr<SparseConstraintSystem> sparse_;
  bool sparse_allowed_ = true, sparse_factored_ = false;
  Vector phi_, rhs_, dq_, multipliers_;
  bool dense_factored_ = false;  // factorization_ holds Phi_q at (factored_t_, factored_q_)
  double factored_t_ = 0.0;
  Vector factored_q_;
  double residual_ = 0.0;
};

}  // namespace mbb
