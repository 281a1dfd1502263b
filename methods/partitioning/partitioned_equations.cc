// Coordinate-partitioned equations (12), (9), (10) of paper 003 (see the header).
#include "methods/partitioning/partitioned_equations.h"

#include <cmath>

namespace mbb {
namespace {

void ShapeVector(Vector& x, int size) {
  if (x.size() != size) x.resize(size);
}

// Newton iterations of the projection: quadratic convergence from an O(h^5) defect needs
// two or three; more means the partition is near singular.
constexpr int kMaxProjectionIterations = 12;

}  // namespace

PartitionedEquations::PartitionedEquations(const MechanicalDae& dae)
    : dae_(dae),
      ws_(dae.MakeWorkspace()),
      n_(dae.num_coordinates()),
      m_(dae.num_constraints()),
      kinematics_(n_, m_),
      phi_q_(m_, n_),
      mass_(n_, n_),
      phi_(m_),
      phi_t_(m_),
      gamma_(m_),
      forces_(n_),
      xi_full_(n_),
      h_n_(n_) {}

const Matrix& PartitionedEquations::UpdateJacobian(double t, const Vector& q) {
  dae_.CalcPhiQ(*ws_, t, q, phi_q_);
  return phi_q_;
}

bool PartitionedEquations::Prepare(double t, const Vector& q, const Partition& partition) {
  dae_.CalcPhiQ(*ws_, t, q, phi_q_);
  return kinematics_.Factor(phi_q_, partition);
}

void PartitionedEquations::Velocity(double t, const Vector& q, const Partition& partition,
                                    const Vector& v_i, Vector& q_dot) {
  const int r = static_cast<int>(partition.dependent.size());
  const int k = static_cast<int>(partition.independent.size());
  for (int j = 0; j < k; ++j) q_dot[partition.independent[j]] = v_i[j];
  if (r == 0) return;
  dae_.CalcPhiT(*ws_, t, q, phi_t_);
  ShapeVector(rows_r_, r);
  for (int i = 0; i < r; ++i) rows_r_[i] = phi_t_[partition.rows[i]];
  kinematics_.SolveDependent(rows_r_);  // C_D^-1 a
  ShapeVector(v_d_, r);
  v_d_.noalias() = kinematics_.a() * v_i;
  v_d_ -= rows_r_;  // q_D' = A q_I' + eta, eta = -C_D^-1 a (7)
  for (int i = 0; i < r; ++i) q_dot[partition.dependent[i]] = v_d_[i];
}

bool PartitionedEquations::Rates(double t, const Vector& q, const Partition& partition,
                                 const Vector& v_i, Vector& q_dot, Vector& q_ddot) {
  if (!Prepare(t, q, partition)) return false;
  const int r = static_cast<int>(partition.dependent.size());
  const int k = static_cast<int>(partition.independent.size());
  Velocity(t, q, partition, v_i, q_dot);  // (9)
  xi_full_.setZero();
  if (r > 0) {
    dae_.CalcGamma(*ws_, t, q, q_dot, gamma_);
    for (int i = 0; i < r; ++i) rows_r_[i] = gamma_[partition.rows[i]];
    kinematics_.SolveDependent(rows_r_);  // xi = C_D^-1 gamma (8)
    for (int i = 0; i < r; ++i) xi_full_[partition.dependent[i]] = rows_r_[i];
  }
  dae_.CalcMassMatrix(*ws_, q, mass_);
  dae_.CalcForces(*ws_, t, q, q_dot, forces_);
  const Matrix& d = kinematics_.d();
  h_n_ = forces_;
  h_n_.noalias() -= mass_ * xi_full_;
  ShapeVector(h_d_, k);
  h_d_.noalias() = d * h_n_;  // h_d = D (h - M [0; xi]) (14)
  if (md_.rows() != k) md_.resize(k, k);
  if (dm_.rows() != k) dm_.resize(k, n_);
  dm_.noalias() = d * mass_;
  md_.noalias() = dm_ * d.transpose();  // M_d = D M D^T (13)
  md_llt_.compute(md_);
  if (md_llt_.info() != Eigen::Success) return false;
  md_llt_.solveInPlace(h_d_);  // v_I' (12)
  q_ddot = xi_full_;
  q_ddot.noalias() += d.transpose() * h_d_;  // q'' = D^T q_I'' + [0; xi] (10)
  return true;
}

bool PartitionedEquations::Project(double t, Vector& q, const Partition& partition) {
  const int r = static_cast<int>(partition.dependent.size());
  if (r == 0) return true;
  const double scale = 1.0 + q.lpNorm<Eigen::Infinity>();
  for (int iteration = 0; iteration < kMaxProjectionIterations; ++iteration) {
    if (!Prepare(t, q, partition)) return false;
    dae_.CalcPhi(*ws_, t, q, phi_);
    ShapeVector(rows_r_, r);
    for (int i = 0; i < r; ++i) rows_r_[i] = phi_[partition.rows[i]];
    kinematics_.SolveDependent(rows_r_);
    for (int i = 0; i < r; ++i) q[partition.dependent[i]] -= rows_r_[i];  // dq_D = -C_D^-1 Phi
    // Converged when the correction is at the rounding of the coordinates (10 ulps).
    if (rows_r_.lpNorm<Eigen::Infinity>() <= 2e-15 * scale) return true;
  }
  dae_.CalcPhi(*ws_, t, q, phi_);
  return phi_.lpNorm<Eigen::Infinity>() <= 1e-12 * scale;
}

}  // namespace mbb
