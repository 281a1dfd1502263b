// Projection onto the constraint manifold with the rank-revealing factorisation of Phi_q
// (constraint_factorization.h), so that redundant constraints (rank-deficient Phi_q) are
// handled: minimum-norm Newton steps on Phi(t, q) = 0 and the minimum-norm velocity
// correction for Phi_q v + Phi_t = 0.
// All storage is allocated at construction; Project* calls do not allocate.
#pragma once

#include "problems/constraint_factorization.h"
#include "problems/mechanical_dae.h"

namespace mbb {

class ConstraintProjector {
 public:
  ConstraintProjector(const MechanicalDae& dae, DaeWorkspace& ws);

  /// Newton with minimum-norm steps until ||Phi||_inf <= tol. Returns false if it does not
  /// converge in max_iterations (q then holds the last iterate).
  bool ProjectPositions(double t, VectorRef q, double tol, int max_iterations);
  /// v -= Phi_q^+ (Phi_q v + Phi_t): the minimum-norm correction.
  void ProjectVelocities(double t, ConstVectorRef q, VectorRef v);

  /// Numerical rank of Phi_q at the last factorisation.
  int last_rank() const { return factorization_.rank(); }
  /// ||Phi||_inf after the last ProjectPositions.
  double last_position_residual() const { return residual_; }

 private:
  void Factor(double t, ConstVectorRef q);  // Phi_q at (t, q)

  const MechanicalDae& dae_;
  DaeWorkspace& ws_;
  Matrix phi_q_;
  ConstraintFactorization factorization_;
  Vector phi_, rhs_, dq_;
  double residual_ = 0.0;
};

}  // namespace mbb
