// The workspace of the QR methods of paper 000 (qr_projection.h): the basis Q_k = [Q1 Q2],
// the constraint quantities, the stage equations' buffers, the explicit RK engine on
// y = [x; q'], the continuation's matrices and the metrics. Every buffer is sized at
// construction: a step allocates nothing. Internal to qr_projection.cc.
#pragma once

#include <Eigen/SVD>
#include <memory>

#include "methods/common/explicit_runge_kutta.h"
#include "methods/fixed_step_method.h"

namespace mbb {

struct QrWorkspace final : FixedStepWorkspace {
  QrWorkspace(const Problem& p, const ButcherTableau& tableau)
      : dae(*p.dae),
        dae_ws(p.dae->MakeWorkspace()),
        rk(tableau, 2 * p.n() - p.m()),
        n(p.n()),
        m(p.m()),
        d(p.n() - p.m()),
        basis(n, n),
        r1(m, m),
        phi(m),
        phi_q(m, n),
        phi_t(m),
        a_t(n, m),
        stage_basis(n, n),
        stage_r1(m, m),
        qr_work(n, m),
        hh_v(n),
        hh_w(n),
        a_q1(m, m),
        lu(m),
        p_dot(m),
        p_ddot(m),
        work_m(m),
        mass(n, n),
        forces(n),
        rhs_n(n),
        beta_ddot(n),
        x_ddot(n),
        mq2(n, d),
        reduced(d, d),
        llt(d),
        rhs_d(d),
        q_ddot_local(d),
        x_start(n),
        qd_new(d),
        dx(n),
        q_min(d),
        q_min_dot(d),
        q_min_dot_new(d),
        phi_q_dot(m, n),
        r1_lu(m),
        a_dot_q2(m, d),
        omega_12(m, d),
        r1_next(m, m),
        factor_basis(n, n),
        omega(n, n),
        exp_out(n, n),
        exp_term(n, n),
        exp_tmp(n, n),
        omega_1(m, m),
        omega_21(d, m),
        a_plus_a_dot(m, n),
        next_basis(n, n),
        q2_candidate(n, d),
        ata(n, n),
        svd(n, m, Eigen::ComputeFullU),
        eig_vectors(n, n),
        eig_order(n) {}

  const MechanicalDae& dae;
  std::unique_ptr<DaeWorkspace> dae_ws;
  ExplicitRungeKutta rk;  // on y = [x; q'] (n + d)
  int n, m, d;
  double t = 0.0;  // time of the step start

  Matrix basis;  // Q_k = [Q1_k Q2_k] (n x n)
  Matrix r1;     // R1_k (m x m), QR only

  // Constraint quantities at the last evaluated configuration.
  Vector phi;
  Matrix phi_q;
  Vector phi_t;
  Matrix a_t;  // Phi_q^T

  // Stage evaluation: QR of the stage A^T and the reduced equations (14), (15a).
  Matrix stage_basis, stage_r1, qr_work;
  Vector hh_v, hh_w;
  Matrix a_q1;
  Eigen::PartialPivLU<Matrix> lu;
  Vector p_dot, p_ddot, work_m;
  Matrix mass;
  Vector forces, rhs_n, beta_ddot, x_ddot;
  Matrix mq2, reduced;
  Eigen::LLT<Matrix> llt;
  Vector rhs_d, q_ddot_local;

  // The step's start x_k, the new q' (in the basis of the step start), x_{k+1} - x_k.
  Vector x_start, qd_new, dx;

  // Minimal coordinates q (integral of q') and velocities q' in the current basis.
  Vector q_min, q_min_dot, q_min_dot_new;

  // Continuation (22)-(29).
  Matrix phi_q_dot;
  Eigen::PartialPivLU<Matrix> r1_lu;  // LU of R1^T when R1 is not triangular (SVD, eigen)
  Matrix a_dot_q2, omega_12, r1_next, factor_basis;
  Matrix omega, exp_out, exp_term, exp_tmp, omega_1, omega_21, a_plus_a_dot;
  Matrix next_basis, q2_candidate;

  // Alternative bases of s2.4.
  Matrix ata;
  Eigen::JacobiSVD<Matrix> svd;
  Matrix eig_vectors;
  Eigen::VectorXi eig_order;

  // Reuse at the first stage of a step (no change to the algorithm, only to its cost): at the
  // end of a step phi_q, a_t and phi_t are left at (t_{k+1}, x_{k+1}), where the next step's
  // first stage evaluates them again, and stage_basis / stage_r1 may already hold the QR of
  // that a_t. The reused values are bit-identical to recomputed ones.
  bool constraints_current = false;  // phi_q, a_t, phi_t at the step start
  bool stage_qr_current = false;     // stage_basis, stage_r1 = QR of that a_t

  // Metrics.
  double tangent_basis_jump = 0.0;
  double velocity_jump_abs = 0.0;
  double speed_max = 0.0;
  double omega_h_max = 0.0;
  double gram_schmidt_correction_max = 0.0;
  long q1_dot_sign_changes = 0;
  long q1_sign_changes = 0;
};

}  // namespace mbb
