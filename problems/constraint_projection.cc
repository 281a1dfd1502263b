#include "problems/constraint_projection.h"

#include <cmath>

namespace mbb {

ConstraintProjector::ConstraintProjector(const MechanicalDae& dae, DaeWorkspace& ws)
    : dae_(dae),
      ws_(ws),
      phi_q_(dae.num_constraints(), dae.num_coordinates()),
      phi_q_t_(dae.num_coordinates(), dae.num_constraints()),
      qr_(dae.num_coordinates(), dae.num_constraints()),
      phi_(dae.num_constraints()),
      rhs_(dae.num_constraints()),
      y_(dae.num_constraints()),
      dq_(dae.num_coordinates()) {}

void ConstraintProjector::Factor(double t, ConstVectorRef q) {
  dae_.CalcPhiQ(ws_, t, q, phi_q_);
  phi_q_t_ = phi_q_.transpose();
  qr_.setThreshold(kConstraintRankThreshold);
  qr_.compute(phi_q_t_);
  rank_ = static_cast<int>(qr_.rank());
}

// Phi_q^T P = Q R with R upper trapezoidal of rank r. Phi_q x = rhs with x = Q [y; 0]:
// P R^T y = rhs  ->  R11^T y1 = (P^T rhs)_1 (first r rows). The rows beyond the rank are
// dropped, which is the least-squares answer when the redundant rows are consistent.
void ConstraintProjector::SolveMinimumNorm(VectorRef x) {
  const int r = rank_;
  const int n = dae_.num_coordinates();
  y_.noalias() = qr_.colsPermutation().transpose() * rhs_;
  qr_.matrixQR().topLeftCorner(r, r).transpose().triangularView<Eigen::Lower>().solveInPlace(
      y_.head(r));
  dq_.setZero();
  dq_.head(r) = y_.head(r);
  dq_.applyOnTheLeft(qr_.householderQ());
  x = dq_.head(n);
}

bool ConstraintProjector::ProjectPositions(double t, VectorRef q, double tol, int max_iterations) {
  if (dae_.num_constraints() == 0) {
    residual_ = 0.0;
    return true;
  }
  for (int k = 0; k <= max_iterations; ++k) {
    dae_.CalcPhi(ws_, t, q, phi_);
    residual_ = phi_.lpNorm<Eigen::Infinity>();
    if (residual_ <= tol) return true;
    if (k == max_iterations || !std::isfinite(residual_)) break;
    Factor(t, q);
    rhs_ = phi_;
    SolveMinimumNorm(dq_);
    q -= dq_;
  }
  return false;
}

void ConstraintProjector::ProjectVelocities(double t, ConstVectorRef q, VectorRef v) {
  if (dae_.num_constraints() == 0) return;
  Factor(t, q);
  dae_.CalcVelocityResidual(ws_, t, q, v, rhs_);
  SolveMinimumNorm(dq_);
  v -= dq_;
}

}  // namespace mbb
