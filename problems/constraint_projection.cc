#include "problems/constraint_projection.h"

#include <cmath>

namespace mbb {

ConstraintProjector::ConstraintProjector(const MechanicalDae& dae, DaeWorkspace& ws)
    : dae_(dae),
      ws_(ws),
      phi_q_(dae.num_constraints(), dae.num_coordinates()),
      factorization_(dae.num_constraints(), dae.num_coordinates()),
      phi_(dae.num_constraints()),
      rhs_(dae.num_constraints()),
      dq_(dae.num_coordinates()) {}

void ConstraintProjector::Factor(double t, ConstVectorRef q) {
  dae_.CalcPhiQ(ws_, t, q, phi_q_);
  factorization_.Compute(phi_q_);
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
    factorization_.SolveMinimumNorm(phi_, dq_);
    q -= dq_;
  }
  return false;
}

void ConstraintProjector::ProjectVelocities(double t, ConstVectorRef q, VectorRef v) {
  if (dae_.num_constraints() == 0) return;
  Factor(t, q);
  dae_.CalcVelocityResidual(ws_, t, q, v, rhs_);
  factorization_.SolveMinimumNorm(rhs_, dq_);
  v -= dq_;
}

}  // namespace mbb
