// The coordinate-partitioned equations of paper 003 s2 for one partition q = [q_I; q_D]:
// the k + n first-order system the paper recommends (end of s2: no solution of the
// constraints for q_D inside the right-hand side),
//
//   q'   = D^T v_I + [0; eta]                       (9),  eta = -C_D^-1 a,  a = Phi_t
//   v_I' = M_d^-1 h_d                               (12), M_d = D M D^T (13),
//   h_d  = D (Q - M [0; xi])                        (14), xi = C_D^-1 gamma
//
// and q'' = D^T v_I' + [0; xi] (10). The suite writes M v' = Q - Phi_q^T lambda and
// Phi_q v' = gamma (docs/notation.md), so the paper's h is Q and its b is -gamma:
// xi = -C_D^-1 b = C_D^-1 gamma. Also the projection that keeps q on Phi = 0: Newton on the
// dependent coordinates with q_I frozen, dq_D = -C_D^-1 Phi (the classical coordinate
// partitioning correction [Wehage, Haug 1982]). Every buffer is allocated at construction.
#pragma once

#include <memory>

#include "methods/partitioning/projective_criterion.h"
#include "problems/core/mechanical_dae.h"

namespace mbb {

class PartitionedEquations {
 public:
  explicit PartitionedEquations(const MechanicalDae& dae);

  int n() const { return n_; }
  int m() const { return m_; }
  const MechanicalDae& dae() const { return dae_; }
  DaeWorkspace& workspace() { return *ws_; }

  /// C = Phi_q at (t, q) (kept until the next call).
  const Matrix& UpdateJacobian(double t, const Vector& q);
  /// Factors the partition at (t, q): C_D, A, D. False if C_D is singular.
  bool Prepare(double t, const Vector& q, const Partition& partition);
  /// The full velocity (9) from v_I; needs Prepare at (t, q).
  void Velocity(double t, const Vector& q, const Partition& partition, const Vector& v_i,
                Vector& q_dot);
  /// q' (9) and q'' (10), v_I' = q''(I) (12); runs Prepare. False if C_D is singular or
  /// M_d not positive definite.
  bool Rates(double t, const Vector& q, const Partition& partition, const Vector& v_i,
             Vector& q_dot, Vector& q_ddot);
  /// Newton on Phi(t, q) = 0 over q_D (q_I frozen); false if it does not converge.
  bool Project(double t, Vector& q, const Partition& partition);

  /// 1-norm condition number of the C_D last factored.
  double ConditionDependent() { return kinematics_.ConditionDependent(); }
  /// Sign of det C_D last factored (PartitionKinematics::DeterminantSignDependent).
  int DeterminantSignDependent() const { return kinematics_.DeterminantSignDependent(); }
  PartitionKinematics& kinematics() { return kinematics_; }
  /// M, Q and C at the state of the last Rates call (for the reactions).
  const Matrix& mass() const { return mass_; }
  const Vector& forces() const { return forces_; }
  const Matrix& phi_q() const { return phi_q_; }
  const Vector& xi_full() const { return xi_full_; }

 private:
  const MechanicalDae& dae_;
  std::unique_ptr<DaeWorkspace> ws_;
  int n_, m_;
  PartitionKinematics kinematics_;
  Matrix phi_q_, mass_, md_, dm_;
  Vector phi_, phi_t_, gamma_, rows_r_, forces_, xi_full_, h_n_, h_d_, v_d_;
  Eigen::LLT<Matrix> md_llt_;
};

}  // namespace mbb
