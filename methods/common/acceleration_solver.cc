#include "methods/common/acceleration_solver.h"

#include "problems/constraint_projection.h"

namespace mbb {

AccelerationSolver::AccelerationSolver(const MechanicalDae& dae, DaeWorkspace& ws,
                                       BaumgarteGains gains)
    : dae_(dae),
      ws_(ws),
      gains_(gains),
      n_(dae.num_coordinates()),
      m_(dae.num_constraints()),
      mass_(n_, n_),
      phi_q_(m_, n_),
      phi_q_t_(n_, m_),
      basis_(n_, n_),
      z_mass_(n_, n_),
      reduced_(n_, n_),
      qr_(n_, m_),
      reduced_llt_(n_),
      forces_(n_),
      gamma_(m_),
      work_m_(m_),
      y_(m_),
      rhs_(n_),
      z_(n_),
      householder_work_(n_),
      residual_(n_) {}

bool AccelerationSolver::Solve(double t, ConstVectorRef q, ConstVectorRef v, VectorRef a,
                               VectorRef lambda) {
  if (!dae_.has_constant_mass_matrix() || !constant_mass_ready_) {
    dae_.CalcMassMatrix(ws_, q, mass_);
    constant_mass_ready_ = dae_.has_constant_mass_matrix();
  }
  dae_.CalcForces(ws_, t, q, v, forces_);

  if (m_ == 0) {
    reduced_llt_.compute(mass_);
    if (reduced_llt_.info() != Eigen::Success) return false;
    a = reduced_llt_.solve(forces_);
    return a.allFinite();
  }

  // Phi_q^T P = Y R: basis_ = [Y Z] (n x n), rank r.
  dae_.CalcPhiQ(ws_, t, q, phi_q_);
  phi_q_t_ = phi_q_.transpose();
  qr_.setThreshold(kConstraintRankThreshold);
  qr_.compute(phi_q_t_);
  rank_ = static_cast<int>(qr_.rank());
  const int r = rank_;
  const int f = n_ - r;
  qr_.householderQ().evalTo(basis_, householder_work_);

  // Particular acceleration a_p = Y y with R11^T y = (P^T gamma_s)_1.
  dae_.CalcGamma(ws_, t, q, v, gamma_);
  if (gains_.alpha != 0.0 || gains_.beta != 0.0) {
    dae_.CalcVelocityResidual(ws_, t, q, v, work_m_);
    gamma_ -= 2.0 * gains_.alpha * work_m_;
    dae_.CalcPhi(ws_, t, q, work_m_);
    gamma_ -= gains_.beta * gains_.beta * work_m_;
  }
  y_.noalias() = qr_.colsPermutation().transpose() * gamma_;
  const auto r11 = qr_.matrixQR().topLeftCorner(r, r);
  r11.transpose().triangularView<Eigen::Lower>().solveInPlace(y_.head(r));
  a.noalias() = basis_.leftCols(r) * y_.head(r);

  // Tangent part: (Z^T M Z) z = Z^T (Q - M a_p).
  if (f > 0) {
    const auto zb = basis_.rightCols(f);
    z_mass_.topLeftCorner(n_, f).noalias() = mass_ * zb;
    reduced_.topLeftCorner(f, f).noalias() = zb.transpose() * z_mass_.topLeftCorner(n_, f);
    rhs_.noalias() = forces_ - mass_ * a;
    z_.head(f).noalias() = zb.transpose() * rhs_;
    if (reduced_llt_.rows() != f) reduced_llt_ = Eigen::LLT<Matrix>(f);
    reduced_llt_.compute(reduced_.topLeftCorner(f, f));
    if (reduced_llt_.info() != Eigen::Success) return false;
    reduced_llt_.solveInPlace(z_.head(f));
    a.noalias() += zb * z_.head(f);
  }

  // Multipliers: Phi_q^T lambda = Q - M a in least squares: lambda = P [R11^-1 (Y^T res); 0].
  residual_.noalias() = forces_ - mass_ * a;
  y_.head(r).noalias() = basis_.leftCols(r).transpose() * residual_;
  r11.triangularView<Eigen::Upper>().solveInPlace(y_.head(r));
  y_.tail(m_ - r).setZero();
  lambda.noalias() = qr_.colsPermutation() * y_;
  return a.allFinite() && lambda.allFinite();
}

}  // namespace mbb
