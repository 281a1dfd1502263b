#include "methods/common/acceleration_solver.h"

#include <cstring>

namespace mbb {

AccelerationSolver::AccelerationSolver(const MechanicalDae& dae, DaeWorkspace& ws,
                                       BaumgarteGains gains, ConstraintSolves solves)
    : dae_(dae),
      ws_(ws),
      gains_(gains),
      n_(dae.num_coordinates()),
      m_(dae.num_constraints()),
      mass_(n_, n_),
      phi_q_(m_, n_),
      z_mass_(n_, n_),
      reduced_(n_, n_),
      factorization_(m_, n_),
      reduced_llt_(n_),
      forces_(n_),
      gamma_(m_),
      work_m_(m_),
      rhs_(n_),
      z_(n_),
      residual_(n_) {
  positions_.q.resize(n_);
  if (solves != ConstraintSolves::kDense && m_ > 0 && dae_.has_constant_mass_matrix()) {
    dae_.CalcMassMatrix(ws_, Vector::Zero(n_), mass_);  // constant: any q
    constant_mass_ready_ = true;
    sparse_ = SparseConstraintSystem::Make(dae_, &mass_, solves);
  }
}

bool AccelerationSolver::Solve(double t, ConstVectorRef q, ConstVectorRef v, VectorRef a,
                               VectorRef lambda, const ConstraintFactorization* known) {
  if (!SamePositionsAsLastSolve(t, q)) {  // else M(q) and the dense factors may be kept
    positions_.valid = true;
    positions_.factored = false;
    positions_.t = t;
    positions_.q = q;
    positions_.max_rank = max_rank_;
    if (!dae_.has_constant_mass_matrix() || !constant_mass_ready_) {
      dae_.CalcMassMatrix(ws_, q, mass_);
      constant_mass_ready_ = dae_.has_constant_mass_matrix();
    }
  }
  dae_.CalcForces(ws_, t, q, v, forces_);

  // The sparse route while the rank is full (a redundant model's cap is below m).
  sparse_solved_ = sparse_ && max_rank_ >= m_ && sparse_->Factor(ws_, t, q);
  if (sparse_solved_) {
    CalcStabilizedGamma(t, q, v);
    sparse_->ApplyInverseMetric(forces_, a);  // the unconstrained M^-1 Q
    sparse_->MultiplyJacobian(a, work_m_);
    gamma_ -= work_m_;
    sparse_->SolveMinimumNorm(gamma_, residual_, lambda);
    a += residual_;
    lambda = -lambda;
    return a.allFinite() && lambda.allFinite();
  }
  return SolveDense(t, q, v, a, lambda, known);
}

bool AccelerationSolver::SamePositionsAsLastSolve(double t, ConstVectorRef q) const {
  // Bit for bit (memcmp): -0.0 and 0.0 compare equal but may not give the same Phi_q.
  return positions_.valid && t == positions_.t && max_rank_ == positions_.max_rank &&
         std::memcmp(q.data(), positions_.q.data(), sizeof(double) * n_) == 0;
}

// Phi_q^T P = [Y Z] R (constraint_factorization.h), rank r, and the Cholesky factor of
// Z^T M Z: the solve's terms of q alone.
bool AccelerationSolver::FactorPositionTerms(double t, ConstVectorRef q,
                                             const ConstraintFactorization* known) {
  if (known) {
    factorization_.CopyFrom(*known, max_rank_);
  } else {
    dae_.CalcPhiQ(ws_, t, q, phi_q_);
    factorization_.Compute(phi_q_, max_rank_);
  }
  factorization_.FormBases();
  const int f = n_ - factorization_.rank();
  if (f > 0) {
    const auto zb = factorization_.null_space_basis();
    z_mass_.topLeftCorner(n_, f).noalias() = mass_ * zb;
    reduced_.topLeftCorner(f, f).noalias() = zb.transpose() * z_mass_.topLeftCorner(n_, f);
    // A new size (the rank changed) resizes the factor in place; assigning a freshly
    // size-constructed LLT would copy its uninitialised info field.
    if (reduced_llt_.rows() != f) reduced_llt_.compute(Matrix::Identity(f, f));
    reduced_llt_.compute(reduced_.topLeftCorner(f, f));
    if (reduced_llt_.info() != Eigen::Success) return false;
  }
  positions_.factored = true;
  return true;
}

void AccelerationSolver::CalcStabilizedGamma(double t, ConstVectorRef q, ConstVectorRef v) {
  dae_.CalcGamma(ws_, t, q, v, gamma_);
  if (gains_.alpha != 0.0 || gains_.beta != 0.0) {
    dae_.CalcVelocityResidual(ws_, t, q, v, work_m_);
    gamma_ -= 2.0 * gains_.alpha * work_m_;
    dae_.CalcPhi(ws_, t, q, work_m_);
    gamma_ -= gains_.beta * gains_.beta * work_m_;
  }
}

bool AccelerationSolver::SolveDense(double t, ConstVectorRef q, ConstVectorRef v, VectorRef a,
                                    VectorRef lambda, const ConstraintFactorization* known) {
  if (m_ == 0) {
    reduced_llt_.compute(mass_);
    if (reduced_llt_.info() != Eigen::Success) return false;
    a = reduced_llt_.solve(forces_);
    return a.allFinite();
  }

  // Everything of q alone: kept while q, t and the rank cap are those of the last solve.
  if (!positions_.factored && !FactorPositionTerms(t, q, known)) return false;
  const int f = n_ - factorization_.rank();

  // Particular acceleration a_p = Y y with R11^T y = (P^T gamma_s)_1: the minimum-norm
  // solution of Phi_q a = gamma_s.
  CalcStabilizedGamma(t, q, v);
  factorization_.SolveMinimumNorm(gamma_, a);

  // Tangent part: (Z^T M Z) z = Z^T (Q - M a_p).
  if (f > 0) {
    const auto zb = factorization_.null_space_basis();
    rhs_.noalias() = forces_ - mass_ * a;
    z_.head(f).noalias() = zb.transpose() * rhs_;
    reduced_llt_.solveInPlace(z_.head(f));
    a.noalias() += zb * z_.head(f);
  }

  // Multipliers: Phi_q^T lambda = Q - M a in least squares.
  residual_.noalias() = forces_ - mass_ * a;
  factorization_.SolveMultipliers(residual_, lambda);
  return a.allFinite() && lambda.allFinite();
}

}  // namespace mbb
