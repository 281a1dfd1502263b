// Continued and traditional QR minimal-coordinate integration, paper 000 (see the header).
// Equation numbers refer to paper 000; x is the redundant coordinate vector (the DAE's q),
// A = Phi_q, q and q' the minimal coordinates and velocities.
#include "methods/qr/qr_projection.h"

#include <Eigen/SVD>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "methods/qr/dense_kernels.h"
#include "methods/qr/qr_workspace.h"
#include "problems/core/invariant.h"

namespace mbb {
namespace {

constexpr int kMaxCorrectionIterations = 20;

// Which of the paper's bases a workspace factorises.
void FactorBasis(QrWorkspace& w, QrBasis basis, Matrix& q_out, Matrix& r1_out) {
  const int m = w.m;
  if (m == 0) {
    q_out.setIdentity();
    return;
  }
  switch (basis) {
    case QrBasis::kQr:  // eq. (8)
      HouseholderQrInto(w.a_t, w.qr_work, w.hh_v, w.hh_w, q_out, r1_out);
      return;
    case QrBasis::kSvd:  // eq. (20): A^T = U Sigma V^T, T = U2
      w.svd.compute(w.a_t, Eigen::ComputeFullU);
      q_out = w.svd.matrixU();
      return;
    case QrBasis::kEigen: {  // eq. (21): A^T A = U Lambda U^T, T = U2 (zero eigenvalues)
      w.ata.noalias() = w.a_t * w.a_t.transpose();
      JacobiEigenInto(w.ata, w.eig_vectors);
      // Order by eigenvalue: the m largest span Q1, the d (numerically) zero ones Q2.
      for (int i = 0; i < w.n; ++i) w.eig_order[i] = i;
      std::sort(w.eig_order.data(), w.eig_order.data() + w.n,
                [&w](int a, int b) { return w.ata(a, a) > w.ata(b, b); });
      for (int i = 0; i < w.n; ++i) q_out.col(i) = w.eig_vectors.col(w.eig_order[i]);
      return;
    }
  }
}

// Velocity in the frozen basis of the step: x' = Q2_k q' + Q1_k p' with p' from the velocity
// constraint A (Q2_k q' + Q1_k p') + c_t = 0 at (t, x). At the step start A Q2_k = 0 and
// A Q1_k = R1^T, so this is eq. (15b) with p' of eq. (11). Leaves phi_q, phi_t, a_t at (t, x).
bool FrozenBasisVelocity(QrWorkspace& w, double t, ConstVectorRef x, ConstVectorRef qd,
                         Eigen::Ref<Vector> x_dot, bool constraints_current = false) {
  const int m = w.m, d = w.d;
  if (!constraints_current) {
    w.dae.CalcPhiQ(*w.dae_ws, t, x, w.phi_q);
    w.a_t = w.phi_q.transpose();
  }
  x_dot.noalias() = w.basis.rightCols(d) * qd;
  if (m == 0) return true;
  if (!constraints_current) w.dae.CalcPhiT(*w.dae_ws, t, x, w.phi_t);
  w.a_q1.noalias() = w.phi_q * w.basis.leftCols(m);
  w.lu.compute(w.a_q1);
  if (!WellConditioned(w.lu)) return false;
  w.work_m = w.phi_t;
  w.work_m.noalias() += w.phi_q * x_dot;
  w.p_dot = w.lu.solve(w.work_m);
  x_dot.noalias() -= w.basis.leftCols(m) * w.p_dot;
  return true;
}

// Stage rates: x' (15b) and q'' in the basis of the step start. The acceleration is (12) with
// p'' of (14) and q'' of (15a), evaluated with the QR of A^T at the stage configuration; it
// does not depend on which tangent basis is used there, so it is re-expressed in Q2_k.
// first_stage: (t, x) is the step start, where the cached constraint data and QR hold.
bool StageRates(QrWorkspace& w, double t, ConstVectorRef x, ConstVectorRef qd,
                Eigen::Ref<Vector> x_dot, Eigen::Ref<Vector> qdd, bool first_stage) {
  const int m = w.m, d = w.d;
  if (!FrozenBasisVelocity(w, t, x, qd, x_dot, first_stage && w.constraints_current)) return false;
  if (!(first_stage && w.stage_qr_current))
    HouseholderQrInto(w.a_t, w.qr_work, w.hh_v, w.hh_w, w.stage_basis, w.stage_r1);  // (8)
  w.beta_ddot.setZero();
  if (m > 0) {
    for (int i = 0; i < m; ++i)
      if (!(std::abs(w.stage_r1(i, i)) > 1e-13 * w.stage_r1.cwiseAbs().maxCoeff())) return false;
    w.dae.CalcGamma(*w.dae_ws, t, x, x_dot, w.p_ddot);  // gamma = -(c')_x x' - (c')_t
    w.stage_r1.triangularView<Eigen::Upper>().transpose().solveInPlace(w.p_ddot);  // (14)
    w.beta_ddot.noalias() = w.stage_basis.leftCols(m) * w.p_ddot;  // beta'' = Q1 p''
  }
  w.dae.CalcMassMatrix(*w.dae_ws, x, w.mass);
  w.dae.CalcForces(*w.dae_ws, t, x, x_dot, w.forces);
  w.rhs_n = w.forces;
  w.rhs_n.noalias() -= w.mass * w.beta_ddot;
  const auto q2 = w.stage_basis.rightCols(d);
  w.rhs_d.noalias() = q2.transpose() * w.rhs_n;  // Q2^T (f - M beta'')
  w.mq2.noalias() = w.mass * q2;
  w.reduced.noalias() = q2.transpose() * w.mq2;  // Q2^T M Q2
  w.llt.compute(w.reduced);
  if (w.llt.info() != Eigen::Success) return false;
  w.q_ddot_local = w.llt.solve(w.rhs_d);  // (15a)
  w.x_ddot = w.beta_ddot;
  w.x_ddot.noalias() += q2 * w.q_ddot_local;                    // (12)
  qdd.noalias() = w.basis.rightCols(d).transpose() * w.x_ddot;  // Q2_k constant over the step
  return true;
}

// Omega of eqs. (23)-(26) at the step start, from Q_k, R1_k and A' = d/dt Phi_q.
// For the SVD (20) and zero-eigenvalue (21) bases A^T = Q1 R1 with R1 = Q1^T A^T invertible
// but not triangular (r1_lu holds the LU of R1^T): Omega_21 = Q2^T A'^T R1^{-1} as in (26)-(27),
// and Omega_11 = 0 (docs/methods/continued_qr.md: Q1 is re-taken from the factorisation, and
// with Omega_11 = 0 the Q2 update depends on A^+ = Q1 R1^{-T} only).
void BuildOmega(QrWorkspace& w, QrBasis basis) {
  const int m = w.m, d = w.d;
  const auto q1 = w.basis.leftCols(m);
  const auto q2 = w.basis.rightCols(d);
  if (basis != QrBasis::kQr) {
    // Omega_21^T = R1^{-T} A' Q2 (26)-(27), i.e. Omega_12 = -Omega_21^T = -R1^{-T} A' Q2.
    w.a_dot_q2.noalias() = w.phi_q_dot * q2;
    w.omega_12 = w.r1_lu.solve(w.a_dot_q2);
    w.omega.setZero();  // Omega_11 = 0, Omega_2 = 0
    w.omega.topRightCorner(m, d) = -w.omega_12;
    w.omega.bottomLeftCorner(d, m) = w.omega_12.transpose();
    return;
  }
  // Q1^T A'^T R1^{-1} (24); its strictly lower part is Omega_1L (25).
  w.omega_1.noalias() = q1.transpose() * w.phi_q_dot.transpose();
  w.r1.triangularView<Eigen::Upper>().solveInPlace<Eigen::OnTheRight>(w.omega_1);
  for (int j = 0; j < m; ++j)
    for (int i = 0; i <= j; ++i) w.omega_1(i, j) = 0.0;  // stril
  // Omega_21 = Q2^T A'^T R1^{-1} (26)-(27), cf. (45).
  w.omega_21.noalias() = q2.transpose() * w.phi_q_dot.transpose();
  w.r1.triangularView<Eigen::Upper>().solveInPlace<Eigen::OnTheRight>(w.omega_21);
  // Omega = [Omega_1L - Omega_1L^T, -Omega_21^T; Omega_21, Omega_2 = 0] (26).
  w.omega.setZero();
  w.omega.topLeftCorner(m, m) = w.omega_1 - w.omega_1.transpose();
  w.omega.topRightCorner(m, d) = -w.omega_21.transpose();
  w.omega.bottomLeftCorner(d, m) = w.omega_21;
}

// The explicit RK step (ExplicitRungeKutta) of y = [x; q'] by x' = (15b), q'' = (15a) in the
// frozen basis Q_k from (t, x, q'_k): one step of h, or (adaptive) error-controlled trials
// from h down, each restarting from the same x_k, q'_k, Q_k. On success x and w.qd_new hold
// the solution, h the step taken and h_next the controller's proposal.
StepStatus Integrate(QrWorkspace& w, bool adaptive, double t, double& h, Vector& x, double& h_next,
                     WorkCounters& counters) {
  w.rk.start().head(w.n) = x;
  w.rk.start().tail(w.d) = w.q_min_dot;
  auto rates = [&w, &counters](double ts, ConstVectorRef y, VectorRef k, int stage) {
    ++counters.rhs_evals;
    return StageRates(w, ts, y.head(w.n), y.tail(w.d), k.head(w.n), k.tail(w.d), stage == 0);
  };
  int failed = 0;
  if (!adaptive) {
    failed = w.rk.Step(t, h, rates);
  } else {
    const AdaptiveRkStep step = w.rk.AdaptiveStep(t, h, w.rtol, w.atol, rates, counters);
    if (step.underflow) return StepStatus::Failed(step.UnderflowMessage(t));
    failed = step.failed_stage;
    h = step.h_taken;
    h_next = step.h_next;
  }
  if (failed != 0)
    return StepStatus::Failed("singular constraint Jacobian or reduced mass matrix at stage " +
                              std::to_string(failed));
  x = w.rk.solution().head(w.n);
  w.qd_new = w.rk.solution().tail(w.d);
  return StepStatus::Ok();
}

// Position correction (17)-(19): Newton on p along Q1_k at t_new.
StepStatus CorrectPositions(QrWorkspace& w, double t_new, Vector& x, WorkCounters& counters) {
  const int m = w.m;
  w.constraints_current = false;
  w.stage_qr_current = false;
  if (m == 0) return StepStatus::Ok();
  for (int it = 0; it < kMaxCorrectionIterations; ++it) {
    w.dae.CalcPhi(*w.dae_ws, t_new, x, w.phi);
    w.dae.CalcPhiQ(*w.dae_ws, t_new, x, w.phi_q);
    w.a_q1.noalias() = w.phi_q * w.basis.leftCols(m);  // (c_x)^(i) Q1_k, (18)
    w.lu.compute(w.a_q1);
    if (!WellConditioned(w.lu))
      return StepStatus::Failed("singular A Q1 in the position correction (19a)");
    w.p_dot = w.lu.solve(w.phi);                   // -Delta p (19a)
    x.noalias() -= w.basis.leftCols(m) * w.p_dot;  // p += Delta p (19b)
    ++counters.newton_iterations;
    if (w.p_dot.lpNorm<Eigen::Infinity>() <= 1e-14 * (1.0 + x.lpNorm<Eigen::Infinity>()))
      return StepStatus::Ok();
  }
  return StepStatus::Failed("position correction (17)-(19) did not converge in " +
                            std::to_string(kMaxCorrectionIterations) + " iterations");
}

// The continued Q2 candidate (m > 0): Q_k exp(Omega h) (28) or exp(-A^+ A' h) Q2_k (29) into
// w.q2_candidate. Returns |Omega h|_F (which bounds the 2-norm).
double ContinuedQ2(QrWorkspace& w, const QrOptions& o, double h) {
  const int m = w.m, d = w.d;
  if (o.continuation == QrContinuation::kExponential) {
    BuildOmega(w, o.basis);
    w.omega *= h;
    if (m == 1)
      ExpOfPlaneRotationInto(w.omega, w.exp_out, w.exp_tmp);
    else
      ExpInto(w.omega, w.exp_out, w.exp_term, w.exp_tmp);
    w.q2_candidate.noalias() = w.basis * w.exp_out.rightCols(d);  // (28)
    return w.omega.norm();
  }
  // (29): Q2_{k+1} = exp(-A^+ A' h) Q2_k with A^+ = Q1 R1^{-T} (any factorisation).
  if (o.basis == QrBasis::kQr) {
    w.a_plus_a_dot = w.phi_q_dot;
    w.r1.triangularView<Eigen::Upper>().transpose().solveInPlace(w.a_plus_a_dot);
  } else {
    w.a_plus_a_dot = w.r1_lu.solve(w.phi_q_dot);
  }
  w.omega.noalias() = w.basis.leftCols(m) * w.a_plus_a_dot;
  w.omega *= -h;
  ExpInto(w.omega, w.exp_out, w.exp_term, w.exp_tmp);
  w.q2_candidate.noalias() = w.exp_out * w.basis.rightCols(d);
  return w.omega.norm();
}

// Q_{k+1} of the continued method into w.next_basis (R1_{k+1} into w.r1): Q1 from the
// factorisation of A_{k+1}^T, QR (8) into stage_basis or SVD (20) / zero-eigenvalue (21)
// into factor_basis with R1 = Q1^T A^T; Q2 continued and re-orthogonalised against Q1_{k+1}
// (end of s2.5).
StepStatus ContinueBasis(QrWorkspace& w, const QrOptions& o, double h, double& omega_h) {
  const int m = w.m, d = w.d;
  if (o.basis == QrBasis::kQr) {
    HouseholderQrInto(w.a_t, w.qr_work, w.hh_v, w.hh_w, w.stage_basis, w.stage_r1);  // (8)
  } else if (m > 0) {
    FactorBasis(w, o.basis, w.factor_basis, w.r1_next);
    w.r1_next.noalias() = w.factor_basis.leftCols(m).transpose() * w.a_t;
  }
  if (m > 0) {
    omega_h = ContinuedQ2(w, o, h);
    const Matrix& new_factor = o.basis == QrBasis::kQr ? w.stage_basis : w.factor_basis;
    w.next_basis.leftCols(m) = new_factor.leftCols(m);
    w.next_basis.rightCols(d) = w.q2_candidate;
    if (!GramSchmidt(w.next_basis, m))  // against Q1_{k+1} (end of s2.5)
      return StepStatus::Failed("continued Q2 collapsed onto Q1 in the Gram-Schmidt step");
    w.gram_schmidt_correction_max =
        std::max(w.gram_schmidt_correction_max,
                 (w.next_basis.rightCols(d) - w.q2_candidate).colwise().norm().maxCoeff());
  } else {
    w.next_basis = w.basis;  // m = 0: Q2 = I throughout
  }
  if (o.basis == QrBasis::kQr) {
    w.r1 = w.stage_r1;
  } else if (m > 0) {
    w.r1 = w.r1_next;
    w.r1_lu.compute(w.r1.transpose());
    if (!WellConditioned(w.r1_lu))
      return StepStatus::Failed("singular R1 = Q1^T A^T of the new basis (rank-deficient A)");
  }
  return StepStatus::Ok();
}

// The basis at t_{k+1} (continued, or refactorised for the traditional method), the metrics
// of its change, and what the next step's first stage may reuse.
StepStatus AdvanceBasis(QrWorkspace& w, const QrOptions& o, double h) {
  const bool continued = o.continuation != QrContinuation::kNone;
  double omega_h = 0.0;
  if (continued) {
    if (StepStatus s = ContinueBasis(w, o, h, omega_h); !s.ok) return s;
  } else {
    FactorBasis(w, o.basis, w.next_basis, w.r1);
  }
  w.omega_h_max = std::max(w.omega_h_max, omega_h);
  // Metrics: jumps of the basis columns between consecutive steps.
  if (w.d > 0) {
    w.tangent_basis_jump = std::max(
        w.tangent_basis_jump,
        (w.next_basis.rightCols(w.d) - w.basis.rightCols(w.d)).colwise().norm().maxCoeff());
  }
  w.basis = w.next_basis;
  // phi_q, a_t, phi_t are now those at (t_{k+1}, x_{k+1}); stage_basis holds their QR for the
  // continued method, and basis does for the traditional QR (8).
  w.constraints_current = true;
  if (continued && o.basis == QrBasis::kQr) {
    w.stage_qr_current = true;
  } else if (o.basis == QrBasis::kQr) {
    w.stage_basis = w.basis;
    w.stage_r1 = w.r1;
    w.stage_qr_current = true;
  }
  return StepStatus::Ok();
}

QrWorkspace& Cast(FixedStepWorkspace& w) { return MBB_DOWNCAST(QrWorkspace, w); }

// The per-step series of ExtraSeriesNames: q, q', Q2 (column-major).
void FillExtra(const QrWorkspace& w, Vector& extra) {
  const int n = w.n, d = w.d;
  extra.head(d) = w.q_min;
  extra.segment(d, d) = w.q_min_dot;
  for (int j = 0; j < d; ++j) extra.segment(2 * d + j * n, n) = w.basis.col(w.m + j);
}

}  // namespace

std::unique_ptr<FixedStepWorkspace> QrProjectionMethod::Begin(const Problem& problem, double /*h*/,
                                                              FixedStepState& state,
                                                              WorkCounters& /*counters*/,
                                                              std::string& error) const {
  const ButcherTableau& tab =
      options_.integrator == QrIntegrator::kRk4 ? ClassicalRk4() : DormandPrince5();
  auto ws = std::make_unique<QrWorkspace>(problem, tab);
  QrWorkspace& w = *ws;
  // The error norm weighs q' by its block's norm (ExplicitRungeKutta::SetRotatedBlock).
  if (options_.adaptive) w.rk.SetRotatedBlock(w.n);
  w.t = state.t;
  w.dae.CalcPhiQ(*w.dae_ws, state.t, state.q, w.phi_q);
  w.a_t = w.phi_q.transpose();
  if (options_.adaptive && options_.integrator != QrIntegrator::kDopri5) {
    error = "the adaptive step needs integrator=dopri5 (its embedded error estimate)";
    return nullptr;
  }
  const QrBasis basis = options_.basis;
  FactorBasis(w, basis, w.basis, w.r1);  // Q_0 from the factorisation at t0 (s2.5)
  for (int i = 0; i < w.m; ++i)
    if (basis == QrBasis::kQr && !(std::abs(w.r1(i, i)) > 0.0)) {
      error = "constraint Jacobian is rank-deficient at t0";
      return nullptr;
    }
  if (basis != QrBasis::kQr && w.m > 0 && options_.continuation != QrContinuation::kNone) {
    w.r1.noalias() = w.basis.leftCols(w.m).transpose() * w.a_t;  // A^T = Q1 R1, R1 = Q1^T A^T
    w.r1_lu.compute(w.r1.transpose());
    if (!WellConditioned(w.r1_lu)) {
      error = "constraint Jacobian is rank-deficient at t0";
      return nullptr;
    }
  }
  w.q_min.noalias() = w.basis.rightCols(w.d).transpose() * state.q;  // eq. (16) at t0
  w.q_min_dot.noalias() = w.basis.rightCols(w.d).transpose() * state.v;
  w.speed_max = state.v.norm();
  if (options_.minimal_series) {
    state.extra.resize(2 * w.d + w.n * w.d);
    state.has_extra = true;
    FillExtra(w, state.extra);
  }
  if (inspector_) inspector_(state.t, w.basis, w.a_t, w.q_min, w.q_min_dot);
  return ws;
}

StepStatus QrProjectionMethod::Step(FixedStepWorkspace& workspace, double h, FixedStepState& state,
                                    WorkCounters& counters) const {
  QrWorkspace& w = Cast(workspace);
  const double t = state.t;
  // d/dt A at the step start, for the continuation (22)-(29).
  if (options_.continuation != QrContinuation::kNone && w.m > 0)
    w.dae.CalcPhiQDot(*w.dae_ws, t, state.q, state.v, w.phi_q_dot);

  w.x_start = state.q;
  double h_next = 0.0;
  if (StepStatus s = Integrate(w, options_.adaptive, t, h, state.q, h_next, counters); !s.ok)
    return s;
  const double t_new = t + h;
  // q_{k+1} = q_k + Q2_k^T (x_{k+1} - x_k): eq. (16) read as an increment; the correction
  // below moves x along Q1_k only, so it does not change q.
  w.dx = state.q - w.x_start;
  const double q1_before = w.d > 0 ? w.q_min[0] : 0.0;
  w.q_min.noalias() += w.basis.rightCols(w.d).transpose() * w.dx;
  if (w.d > 0 && q1_before * w.q_min[0] < 0.0) ++w.q1_sign_changes;

  if (StepStatus s = CorrectPositions(w, t_new, state.q, counters); !s.ok) return s;
  // Velocity at the corrected position, still in the basis Q_k.
  if (!FrozenBasisVelocity(w, t_new, state.q, w.qd_new, state.v))
    return StepStatus::Failed("singular A Q1 at the new position");
  if (StepStatus s = AdvanceBasis(w, options_, h); !s.ok) return s;

  w.q_min_dot_new.noalias() = w.basis.rightCols(w.d).transpose() * state.v;  // q' = Q2^T x'
  if (w.d > 0) {
    w.velocity_jump_abs = std::max(w.velocity_jump_abs, (w.q_min_dot_new - w.q_min_dot).norm());
    if (w.q_min_dot_new[0] * w.q_min_dot[0] < 0.0) ++w.q1_dot_sign_changes;
  }
  w.q_min_dot = w.q_min_dot_new;
  w.speed_max = std::max(w.speed_max, state.v.norm());
  w.t = t_new;
  if (state.has_extra) FillExtra(w, state.extra);
  if (inspector_) inspector_(t_new, w.basis, w.a_t, w.q_min, w.q_min_dot);
  if (options_.adaptive) return StepStatus::Accepted(h, h_next);
  return StepStatus::Ok();
}

std::vector<std::string> QrProjectionMethod::ExtraSeriesNames(const Problem& problem) const {
  if (!options_.minimal_series) return {};
  const int n = problem.n(), d = problem.n() - problem.m();
  std::vector<std::string> names;
  for (int i = 1; i <= d; ++i) names.push_back("min_q" + std::to_string(i));
  for (int i = 1; i <= d; ++i) names.push_back("min_qdot" + std::to_string(i));
  for (int j = 1; j <= d; ++j)
    for (int i = 1; i <= n; ++i)
      names.push_back("Q2_" + std::to_string(i) + "_" + std::to_string(j));
  return names;
}

void QrProjectionMethod::Finish(FixedStepWorkspace& workspace,
                                std::map<std::string, double>& metrics) const {
  QrWorkspace& w = Cast(workspace);
  metrics["tangent_basis_jump"] = w.tangent_basis_jump;
  metrics["velocity_coordinate_jump"] = w.speed_max > 0.0 ? w.velocity_jump_abs / w.speed_max : 0.0;
  metrics["velocity_coordinate_jump_abs"] = w.velocity_jump_abs;
  metrics["q1_sign_changes"] = static_cast<double>(w.q1_dot_sign_changes);  // of q1'
  metrics["q1_coordinate_sign_changes"] = static_cast<double>(w.q1_sign_changes);
  if (options_.continuation != QrContinuation::kNone) {
    metrics["omega_h_max"] = w.omega_h_max;
    metrics["gram_schmidt_correction_max"] = w.gram_schmidt_correction_max;
  }
}

namespace {

QrIntegrator ParseIntegrator(const ParameterSet& p) {
  return p.GetString("integrator", "dopri5") == "rk4" ? QrIntegrator::kRk4 : QrIntegrator::kDopri5;
}

QrBasis ParseBasis(const ParameterSet& p) {
  const std::string b = p.GetString("basis", "qr");
  return b == "svd" ? QrBasis::kSvd : b == "eigen" ? QrBasis::kEigen : QrBasis::kQr;
}

bool IsAdaptive(const ParameterSet& p) { return p.GetString("step", "fixed") == "adaptive"; }

// The options both methods share; step=adaptive needs the embedded estimate of dopri5.
QrOptions ParseCommon(const ParameterSet& p, const std::string& method) {
  QrOptions o;
  o.integrator = ParseIntegrator(p);
  o.minimal_series = p.GetString("minimal_series", "off") == "on";
  o.basis = ParseBasis(p);
  o.adaptive = IsAdaptive(p);
  if (o.adaptive && o.integrator != QrIntegrator::kDopri5)
    throw InputError("method " + method +
                     ": step=adaptive needs integrator=dopri5 (integrator=rk4 has no embedded "
                     "error estimate)");
  return o;
}

}  // namespace

std::vector<MethodEntry> QrMethodEntries() {
  const ParameterSpec integrator{"integrator", "dopri5", "explicit scheme", {"dopri5", "rk4"}};
  const ParameterSpec step{"step",
                           "fixed",
                           "fixed h, or adaptive (dopri5 only: embedded error estimate with "
                           "rtol/atol, h = the first step)",
                           {"fixed", "adaptive"}};
  const ParameterSpec basis{"basis",
                            "qr",
                            "factorisation of A^T: QR (8), SVD (20), zero-eigenvalue (21)",
                            {"qr", "svd", "eigen"}};
  const ParameterSpec series{"minimal_series",
                             "off",
                             "add q, q' and the columns of Q2 to the --series CSV",
                             {"off", "on"}};
  // step=adaptive: dopri5's embedded estimate controls the steps from a first step h.
  const StepControl step_control = StepControl::ByParameter(
      "step", {{"fixed", StepMode::kFixed}, {"adaptive", StepMode::kAdaptiveFromH}});
  return {
      {.name = "continued-qr",
       .summary =
           "minimal coordinates with the continued QR tangent basis (Omega_2 = 0, exp(Omega h))",
       .source = "000 s2.5 eqs 8-19, 22-29",
       .parameters = {integrator,
                      series,
                      {"variant",
                       "exponential",
                       "Q update: exp(Omega h) (28) or first-order exp(-A^+ A' h) (29)",
                       {"exponential", "first-order"}},
                      step,
                      basis},
       .create =
           [](const ParameterSet& p) {
             QrOptions o = ParseCommon(p, "continued-qr");
             o.continuation = p.GetString("variant", "exponential") == "first-order"
                                  ? QrContinuation::kFirstOrder
                                  : QrContinuation::kExponential;
             return std::make_unique<QrProjectionMethod>(o);
           },
       .step = step_control,
       // Default integrator dopri5 at fixed h: its fifth-order weights [Dormand, Prince 1980]
       // (paper 000 s4 runs ode45); x is corrected onto Phi = 0 by Newton (17)-(19) and x'
       // lies in the tangent space, Phi_q x' + Phi_t = 0 (15).
       .promises = MethodPromises::Order(5).Position().Velocity()},
      {.name = "traditional-qr",
       .summary = "minimal coordinates with Q2 from a fresh factorisation of A^T at every step",
       .source = "000 s2.3-2.4 eqs 8-21",
       .parameters = {integrator, series, basis, step},
       .create =
           [](const ParameterSet& p) {
             QrOptions o = ParseCommon(p, "traditional-qr");
             o.continuation = QrContinuation::kNone;
             return std::make_unique<QrProjectionMethod>(o);
           },
       .step = step_control,
       // As continued-qr: dopri5 at fixed h, fifth order; constraints as continued-qr.
       .promises = MethodPromises::Order(5).Position().Velocity()},
  };
}

}  // namespace mbb
