// Projection onto the constraint manifold with rank-revealing factorisations, so that
// redundant constraints (rank-deficient Phi_q) are handled: minimum-norm Newton steps on
// Phi(t, q) = 0 and the minimum-norm velocity correction for Phi_q v + Phi_t = 0.
// All storage is allocated at construction; Project* calls do not allocate.
#pragma once

#include "problems/mechanical_dae.h"

namespace mbb {

/// Relative threshold of the numerical rank of Phi_q (pivots <= this times the largest
/// count as zero). Eigen's default (about n eps) is too tight for redundant constraints:
/// off the manifold by a drift delta, Bricard's Phi_q has a singular value ~delta
/// (9e-11 for delta = 1e-9), which the default counts as independent and so the
/// redundant row is inverted. 1e-9 is far above a step's drift and far below the smallest
/// physical singular value of the catalogue's Jacobians (0.3 for Bricard).
inline constexpr double kConstraintRankThreshold = 1e-9;

class ConstraintProjector {
 public:
  ConstraintProjector(const MechanicalDae& dae, DaeWorkspace& ws);

  /// Newton with minimum-norm steps until ||Phi||_inf <= tol. Returns false if it does not
  /// converge in max_iterations (q then holds the last iterate).
  bool ProjectPositions(double t, VectorRef q, double tol, int max_iterations);
  /// v -= Phi_q^+ (Phi_q v + Phi_t): the minimum-norm correction.
  void ProjectVelocities(double t, ConstVectorRef q, VectorRef v);

  /// Numerical rank of Phi_q at the last factorisation.
  int last_rank() const { return rank_; }
  /// ||Phi||_inf after the last ProjectPositions.
  double last_position_residual() const { return residual_; }

 private:
  // Factor Phi_q^T (n x m) with column pivoting; solves Phi_q x = rhs in minimum norm.
  void Factor(double t, ConstVectorRef q);
  void SolveMinimumNorm(VectorRef x);  // rhs in rhs_, result in x (n)

  const MechanicalDae& dae_;
  DaeWorkspace& ws_;
  Matrix phi_q_, phi_q_t_;
  Eigen::ColPivHouseholderQR<Matrix> qr_;
  Vector phi_, rhs_, y_, dq_;
  int rank_ = 0;
  double residual_ = 0.0;
};

}  // namespace mbb
