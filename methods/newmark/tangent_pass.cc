// One pass of the tangent-manifold Newmark iteration (paper 001, section 5, Fig. 11) on
// either route of tangent_workspace.h: the least-squares multiplier of the iterate, the
// derivative terms K, H', H'' (eqs. 35, 41, 52), the particular solutions (eqs. 33, 39, 40,
// 46, 47), the state at t projected into the linearisation (56)-(58), Newmark in alpha with
// the reduced equilibrium (52), the next iterate (34), (38), (45), and omega of section 5.
// The iteration, its convergence test and the choices not fixed by the paper:
// tangent_newmark.cc.
#include "methods/newmark/tangent_pass.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace mbb {
namespace {

// dgamma/dq at (x0, v0) by central differences (header comment). Row r of gamma depends
// on q only through the coordinates Phi_r depends on, so with the DAE's Phi_q pattern
// the columns of a group (no two share a row) are perturbed together: 2 G evaluations
// of gamma instead of 2 n (Bricard: G = 14 groups for n = 35), with the same values,
// since no row sees more than one perturbed column.
void GammaJacobianByDifferences(TangentWorkspace& w, double t1) {
  const MechanicalDae& dae = w.dae;
  const JacobianCompression* pattern =
      dae.capabilities().constraint_pattern ? &dae.constraint_jacobian_pattern() : nullptr;
  const int groups = pattern ? pattern->num_groups() : w.n;
  auto in_group = [&](int j, int g) { return pattern ? pattern->group_of_column(j) == g : j == g; };
  auto step_of = [&](int j) {
    return std::cbrt(std::numeric_limits<double>::epsilon()) * (1.0 + std::abs(w.x0[j]));
  };
  w.dgamma_dq.setZero();
  for (int g = 0; g < groups; ++g) {
    for (int sign : {1, -1}) {
      w.q_pert = w.x0;
      for (int j = 0; j < w.n; ++j)
        if (in_group(j, g)) w.q_pert[j] += sign * step_of(j);
      dae.CalcGamma(*w.ws, t1, w.q_pert, w.v0, sign > 0 ? w.vec_m : w.vec_m2);
    }
    if (pattern) {
      for (auto e = pattern->begin(g); e != pattern->end(g); ++e)
        w.dgamma_dq(e->row, e->col) =
            (w.vec_m[e->row] - w.vec_m2[e->row]) / (2.0 * step_of(e->col));
    } else {
      w.dgamma_dq.col(g) = (w.vec_m - w.vec_m2) / (2.0 * step_of(g));
    }
  }
}

// x1, v1, a1 from alpha1, alpha1', alpha1'' by eqs. (34), (38), (45). By linearity of the
// minimum-norm solution the terms x'_p + X'_p alpha and x''_p + X''_p1 alpha + X'_p2 alpha'
// are one solve each of eqs. (39)/(40) and (46)/(47) with right-hand sides summed:
//   H (v1 - N alpha')  = -Phi_t + H' (x0 - x1)
//   H (a1 - N alpha'') = gamma + H'' (x0 - x1) + 2 H' (v0 - v1)
// Summing before solving matters near a singular position (double_four_bar): X'_p and
// X''_p1 grow like cond(H) and cond(H)^2, the separate products cancel to O(|a|), and
// their round-off (~eps cond(H)^3) would keep the iteration from converging.
template <class Ops, class A, class Ad, class Add>
void StateFromAlpha(TangentWorkspace& w, const Ops& ops, const A& alpha1, const Ad& alpha1_d,
                    const Add& alpha1_dd) {
  const auto& null_space = ops.null_space();  // a reference: no copy of N_H
  w.x1 = w.x_p;
  w.x1.noalias() += null_space * alpha1;  // eq. (34)
  w.v1.noalias() = null_space * alpha1_d;
  w.a1.noalias() = null_space * alpha1_dd;
  if (w.m == 0) return;
  w.vec_n = w.x0 - w.x1;
  w.vec_m2 = w.b_velocity;
  ops.AddHDot(1.0, w.vec_n, w.vec_m2);
  ops.SolveMinimumNorm(w.vec_m2, w.range_part);
  w.v1 += w.range_part;  // eqs. (38)-(40)
  w.vec_m2 = w.b_acceleration;
  ops.AddHDDot(1.0, w.vec_n, w.vec_m2);
  w.vec_n = w.v0 - w.v1;
  ops.AddHDot(2.0, w.vec_n, w.vec_m2);
  ops.SolveMinimumNorm(w.vec_m2, w.range_part);
  w.a1 += w.range_part;  // eqs. (45)-(47)
}

// Step 2 of a pass: the particular solutions. x_p is taken of minimum norm relative to the iterate
//   (x_p - x0 = H^+ (-Phi(x0)), a solution of eq. 33 that differs from the minimum-norm
//   one by N_H N_H^T x0, i.e. only by the origin of alpha), so that alpha and x0 - x_p
//   stay of the size of a step instead of the size of x.
template <class Ops>
void ParticularSolutions(TangentWorkspace& w, double t1, const Ops& ops) {
  const MechanicalDae& dae = w.dae;
  DaeWorkspace& ws = *w.ws;
  const int k = w.k;
  const auto& null_space = ops.null_space();  // a reference: no copy of N_H
  auto xd_p_mat = w.xd_p_mat.leftCols(k);
  auto xdd_p1_mat = w.xdd_p1_mat.leftCols(k);
  if (w.m > 0) {
    dae.CalcPhi(ws, t1, w.x0, w.vec_m);
    w.vec_m2 = -w.vec_m;
    ops.SolveMinimumNorm(w.vec_m2, w.x_p);
    w.x_p += w.x0;
    // Right-hand sides of eqs. (39) and (46) without the H' and H'' terms: with the
    // velocity residual Phi_q v0 + Phi_t at the iterate (the paper's q'_p in (39) is a
    // slip), -(Phi_q v0 + Phi_t) + H v0 = -Phi_t, taken as it is.
    dae.CalcPhiT(ws, t1, w.x0, w.b_velocity);
    w.b_velocity = -w.b_velocity;
    dae.CalcGamma(ws, t1, w.x0, w.v0, w.b_acceleration);  // -(H a0 - gamma) + H a0
    // eq. (40)
    auto rhs = w.dxdd.topLeftCorner(w.m, k);  // scratch; its top m rows hold the rhs
    rhs.setZero();
    ops.AddHDot(-1.0, null_space, rhs);
    ops.SolveMinimumNorm(rhs, xd_p_mat);
    // eq. (47)
    rhs.setZero();
    ops.AddHDot(-2.0, xd_p_mat, rhs);
    ops.AddHDDot(-1.0, null_space, rhs);
    ops.SolveMinimumNorm(rhs, xdd_p1_mat);
  } else {
    w.x_p.setZero();
    xd_p_mat.setZero();
    xdd_p1_mat.setZero();
  }
}

}  // namespace

// The derivative terms of the iteration at the iterate: the stiffness
// K = d(Ma)/dq - dQ/dq + d(Phi_q^T lambda)/dq (the reaction stiffness, after eq. 52) from
// the force and mass-rate Jacobians already computed, and H', H''. They shape only the
// iteration (at convergence x1 = x0, so every term they multiply vanishes), which is why
// a step may keep them over several iterations (modified Newton).
void RefreshTangentDerivatives(TangentWorkspace& w, double t1) {
  const MechanicalDae& dae = w.dae;
  DaeWorkspace& ws = *w.ws;
  if (w.m > 0) {
    dae.CalcReactionStiffness(ws, t1, w.x0, w.lambda0, w.reaction);
  } else {
    w.reaction.setZero();
  }
  w.stiffness = w.dma - w.dq + w.reaction;
  if (w.m > 0) {
    // H' = d(Phi_q v + Phi_t)/dq = Phi_qq v + Phi_qt (eq. 35).
    dae.CalcPhiQDot(ws, t1, w.x0, w.v0, w.h_dot);
    // H'' = d(Phi_q a - gamma)/dq = Phi_qq a - dgamma/dq (eq. 41).
    dae.CalcPhiQDot(ws, t1, w.x0, w.a0, w.h_ddot);
    w.vec_n.setZero();
    dae.CalcPhiQDot(ws, t1, w.x0, w.vec_n, w.dgamma_dq);  // Phi_qt
    w.h_ddot -= w.dgamma_dq;
    if (dae.capabilities().gamma_jacobian)
      dae.CalcGammaJacobian(ws, t1, w.x0, w.v0, w.dgamma_dq);
    else
      GammaJacobianByDifferences(w, t1);
    w.h_ddot -= w.dgamma_dq;
  }
  w.stiffness_entries.Gather(w.stiffness);
  w.damping_entries.Gather(w.dv);
  // H' and H'' have Phi_q's pattern (d/dq of Phi_q v, Phi_q a and of gamma).
  const JacobianCompression* pattern =
      dae.capabilities().constraint_pattern ? &dae.constraint_jacobian_pattern() : nullptr;
  w.h_dot_entries.Gather(w.h_dot, pattern);
  w.h_ddot_entries.Gather(w.h_ddot, pattern);
}

template <class Ops>
void SolveTangentMultiplier(TangentWorkspace& w, const Ops& ops) {
  // Least-squares multiplier of the iterate: Phi_q^T lambda = Q - M a.
  w.residual = w.forces;
  ops.AddMass(-1.0, w.a0, w.residual);
  ops.SolveMultiplier(w.residual, w.lambda0);
}

template <class Ops>
bool FinishTangentPass(TangentWorkspace& w, double beta, double gamma, double h, double t1,
                       const FixedStepState& s, const Ops& ops) {
  ParticularSolutions(w, t1, ops);
  const int k = w.k;
  const auto& null_space = ops.null_space();  // a reference: no copy of N_H
  const auto xd_p_mat = w.xd_p_mat.leftCols(k);
  const auto xdd_p1_mat = w.xdd_p1_mat.leftCols(k);

  // 3. State at t projected into the linearisation, eqs. (56)-(58), least squares. N_H is
  //    orthonormal and x'_p, X'_p, x''_p, X''_p1 (minimum norm) lie in its orthogonal
  //    complement, so (57) and (58) reduce to N_H^T v and N_H^T a.
  auto alpha = w.alpha.head(k);
  auto alpha_d = w.alpha_d.head(k);
  auto alpha_dd = w.alpha_dd.head(k);
  w.vec_n = s.q - w.x_p;
  alpha.noalias() = null_space.transpose() * w.vec_n;  // eq. (56)
  alpha_d.noalias() = null_space.transpose() * s.v;    // eq. (57)
  alpha_dd.noalias() = null_space.transpose() * s.a;   // eq. (58)

  // 4. Newmark in alpha: alpha1 = alpha_pred + beta h^2 alpha1'', alpha1' = alpha_d_pred +
  //    gamma h alpha1''.
  auto alpha_pred = w.alpha_pred.head(k);
  auto alpha_d_pred = w.alpha_d_pred.head(k);
  alpha_pred.noalias() = alpha + h * alpha_d + ((0.5 - beta) * h * h) * alpha_dd;
  alpha_d_pred.noalias() = alpha_d + ((1.0 - gamma) * h) * alpha_dd;
  // State at alpha1'' = 0 (eqs. 34, 38, 45) into x1, v1, a1.
  alpha_dd.setZero();
  StateFromAlpha(w, ops, alpha_pred, alpha_d_pred, alpha_dd);
  // Derivatives with respect to alpha1'' (eqs. 34, 38, 45 with X'_p2 = 2 X'_p, eq. 49).
  auto dx = w.dx.leftCols(k);
  auto dxd = w.dxd.leftCols(k);
  auto dxdd = w.dxdd.leftCols(k);
  dx = (beta * h * h) * null_space;
  dxd = (gamma * h) * null_space + (beta * h * h) * xd_p_mat;
  dxdd = null_space + (2.0 * gamma * h) * xd_p_mat + (beta * h * h) * xdd_p1_mat;
  // Linearised equilibrium premultiplied by N_G^T, eq. (52).
  w.residual = -w.forces;  // N^T Phi_q^T lambda0 = 0
  ops.AddMass(1.0, w.a0, w.residual);
  w.vec_n = w.x1 - w.x0;
  ops.AddStiffness(1.0, w.vec_n, w.residual);
  w.vec_n = w.v1 - w.v0;
  ops.AddDamping(1.0, w.vec_n, w.residual);
  w.vec_n = w.a1 - w.a0;
  ops.AddMass(1.0, w.vec_n, w.residual);
  auto rhs_k = w.rhs_k.head(k);
  rhs_k.noalias() = null_space.transpose() * w.residual;  // negated below: -(A b) would
  rhs_k = -rhs_k;                                         // evaluate into a temporary
  auto work = w.work_nn.leftCols(k);
  work.setZero();
  ops.AddStiffness(1.0, dx, work);
  ops.AddDamping(1.0, dxd, work);
  ops.AddMass(1.0, dxdd, work);
  w.reduced.noalias() = null_space.transpose() * work;
  w.reduced_lu.compute(w.reduced);
  alpha_dd.noalias() = w.reduced_lu.solve(rhs_k);  // alpha1''
  if (!alpha_dd.allFinite()) return false;

  // 5. Next iterate, eqs. (34), (38), (45) at alpha1''.
  alpha_pred.noalias() += (beta * h * h) * alpha_dd;
  alpha_d_pred.noalias() += (gamma * h) * alpha_dd;
  StateFromAlpha(w, ops, alpha_pred, alpha_d_pred, alpha_dd);
  return true;
}

// Section 5: M_R = N^T M N, K_R = N^T K N + N^T C X'_p + N^T M X''_p1 at the iterate.
// Returns this step's largest natural frequency (NaN if it could not be computed).
template <class Ops>
double TrackFrequency(TangentWorkspace& w, const Ops& ops) {
  const int k = w.k;
  const auto& null_space = ops.null_space();  // a reference: no copy of N_H
  auto work = w.work_nn.leftCols(k);
  work.setZero();
  ops.AddMass(1.0, null_space, work);
  w.reduced_mass.noalias() = null_space.transpose() * work;
  work.setZero();
  ops.AddStiffness(1.0, null_space, work);
  ops.AddDamping(1.0, w.xd_p_mat.leftCols(k), work);
  ops.AddMass(1.0, w.xdd_p1_mat.leftCols(k), work);
  w.reduced_stiffness.noalias() = null_space.transpose() * work;
  const double omega = w.frequency->Compute(w.reduced_mass, w.reduced_stiffness);
  if (std::isfinite(omega)) {
    w.omega_max = std::max(w.omega_max, omega);
  } else {
    w.omega_valid = false;
  }
  return omega;
}

// The two routes (tangent_workspace.h).
template void SolveTangentMultiplier(TangentWorkspace&, const DenseOps&);
template void SolveTangentMultiplier(TangentWorkspace&, const SparseOps&);
template bool FinishTangentPass(TangentWorkspace&, double, double, double, double,
                                const FixedStepState&, const DenseOps&);
template bool FinishTangentPass(TangentWorkspace&, double, double, double, double,
                                const FixedStepState&, const SparseOps&);
template double TrackFrequency(TangentWorkspace&, const DenseOps&);
template double TrackFrequency(TangentWorkspace&, const SparseOps&);

}  // namespace mbb
