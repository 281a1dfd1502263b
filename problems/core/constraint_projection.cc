#include "problems/core/constraint_projection.h"

#include <cmath>
#include <cstring>

namespace mbb {

ConstraintProjector::ConstraintProjector(const MechanicalDae& dae, DaeWorkspace& ws,
                                         ConstraintSolves solves)
    : dae_(dae),
      ws_(ws),
      phi_q_(dae.num_constraints(), dae.num_coordinates()),
      factorization_(dae.num_constraints(), dae.num_coordinates()),
      sparse_(SparseConstraintSystem::Make(dae, nullptr, solves)),
      phi_(dae.num_constraints()),
      rhs_(dae.num_constraints()),
      dq_(dae.num_coordinates()),
      multipliers_(dae.num_constraints()),
      factored_q_(dae.num_coordinates()) {}

void ConstraintProjector::Factor(double t, ConstVectorRef q) {
  sparse_factored_ = sparse_ && sparse_allowed_ && sparse_->Factor(ws_, t, q);
  dense_factored_ = !sparse_factored_;
  if (sparse_factored_) return;
  dae_.CalcPhiQ(ws_, t, q, phi_q_);
  factorization_.Compute(phi_q_);
  factored_t_ = t;
  factored_q_ = q;
}

const ConstraintFactorization* ConstraintProjector::DenseFactorizationAt(double t,
                                                                         ConstVectorRef q) const {
  // Bit for bit (memcmp): -0.0 and 0.0 compare equal but may not give the same Phi_q.
  const bool same = dense_factored_ && t == factored_t_ &&
                    std::memcmp(q.data(), factored_q_.data(), sizeof(double) * q.size()) == 0;
  return same ? &factorization_ : nullptr;
}

void ConstraintProjector::SolveMinimumNorm(ConstVectorRef b, VectorRef x) {
  if (sparse_factored_)
    sparse_->SolveMinimumNorm(b, x, multipliers_);
  else
    factorization_.SolveMinimumNorm(b, x);
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
    SolveMinimumNorm(phi_, dq_);
    q -= dq_;
  }
  return false;
}

void ConstraintProjector::ProjectVelocities(double t, ConstVectorRef q, VectorRef v) {
  if (dae_.num_constraints() == 0) return;
  Factor(t, q);
  dae_.CalcVelocityResidual(ws_, t, q, v, rhs_);
  SolveMinimumNorm(rhs_, dq_);
  v -= dq_;
}

}  // namespace mbb
