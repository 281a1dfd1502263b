// Continued and traditional QR minimal-coordinate integration, paper 000 (see the header).
// Equation numbers refer to paper 000; x is the redundant coordinate vector (the DAE's q),
// A = Phi_q, q and q' the minimal coordinates and velocities.
#include "methods/qr/qr_projection.h"

#include <Eigen/SVD>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "problems/invariant.h"

namespace mbb {
namespace {

// Explicit Runge-Kutta tableaux. Dormand-Prince 5(4): the fifth-order weights (the FSAL
// seventh stage only serves the error estimate, unused at fixed h). RK4: classical.
struct Tableau {
  int stages;
  double c[6];
  double a[6][6];
  double b[6];
};

// Dormand-Prince 5(4) error weights e_i = b_i - b*_i, b* the embedded 4th-order solution
// [Dormand, Prince 1980; Hairer et al. 1993, Table II.5.2]; stage 7 is evaluated at
// (t + h, the 5th-order solution) (FSAL).
constexpr double kDopri5Error[7] = {
    71.0 / 57600.0,      0.0,          -71.0 / 16695.0, 71.0 / 1920.0,
    -17253.0 / 339200.0, 22.0 / 525.0, -1.0 / 40.0};
// Step size controller [Hairer et al. 1993, s II.4, eqs. (4.11)-(4.13)]: h_new = h min(facmax,
// max(facmin, fac err^(-1/5))), no increase right after a rejection.
constexpr double kSafety = 0.9, kFacMin = 0.2, kFacMax = 5.0;
// Smallest step relative to 1 + |t| before an adaptive run gives up (well above rounding of
// t, ~1e-16 (1 + |t|)).
constexpr double kMinStepRelative = 1e-12;

constexpr Tableau kDopri5 = {
    6,
    {0.0, 1.0 / 5.0, 3.0 / 10.0, 4.0 / 5.0, 8.0 / 9.0, 1.0},
    {{0, 0, 0, 0, 0, 0},
     {1.0 / 5.0, 0, 0, 0, 0, 0},
     {3.0 / 40.0, 9.0 / 40.0, 0, 0, 0, 0},
     {44.0 / 45.0, -56.0 / 15.0, 32.0 / 9.0, 0, 0, 0},
     {19372.0 / 6561.0, -25360.0 / 2187.0, 64448.0 / 6561.0, -212.0 / 729.0, 0, 0},
     {9017.0 / 3168.0, -355.0 / 33.0, 46732.0 / 5247.0, 49.0 / 176.0, -5103.0 / 18656.0, 0}},
    {35.0 / 384.0, 0.0, 500.0 / 1113.0, 125.0 / 192.0, -2187.0 / 6784.0, 11.0 / 84.0}};

constexpr Tableau kRk4 = {4,
                          {0.0, 0.5, 0.5, 1.0, 0, 0},
                          {{0, 0, 0, 0, 0, 0},
                           {0.5, 0, 0, 0, 0, 0},
                           {0, 0.5, 0, 0, 0, 0},
                           {0, 0, 1.0, 0, 0, 0},
                           {0, 0, 0, 0, 0, 0},
                           {0, 0, 0, 0, 0, 0}},
                          {1.0 / 6.0, 1.0 / 3.0, 1.0 / 3.0, 1.0 / 6.0, 0, 0}};

constexpr int kMaxCorrectionIterations = 20;

struct QrWorkspace final : FixedStepWorkspace {
  QrWorkspace(const Problem& p, const Tableau& tableau)
      : dae(*p.dae),
        dae_ws(p.dae->MakeWorkspace()),
        tab(tableau),
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
        kx(n, tableau.stages + 1),  // + the FSAL stage of the error estimate
        kqd(d, tableau.stages + 1),
        x_start(n),
        x_stage(n),
        qd_stage(d),
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
  const Tableau& tab;
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

  // Runge-Kutta stages: rates of x (n) and of q' (d, in the basis of the step start).
  Matrix kx, kqd;
  Vector x_start, x_stage, qd_stage, qd_new, dx;

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

// A cheap singularity test on an LU factorisation that does not allocate (PartialPivLU's
// rcond() does): the ratio of the smallest to the largest pivot.
bool WellConditioned(const Eigen::PartialPivLU<Matrix>& lu) {
  const auto pivots = lu.matrixLU().diagonal().cwiseAbs();
  return pivots.minCoeff() > 1e-13 * pivots.maxCoeff();
}

// Cyclic Jacobi eigenvalue iteration on the symmetric s (overwritten: its diagonal becomes
// the eigenvalues) with the eigenvectors accumulated in v. Used for the zero-eigenvalue basis
// (21) because Eigen's SelfAdjointEigenSolver allocates in compute().
void JacobiEigenInto(Matrix& s, Matrix& v) {
  const int n = static_cast<int>(s.rows());
  v.setIdentity();
  const double scale = s.cwiseAbs().maxCoeff();
  if (!(scale > 0.0)) return;
  for (int sweep = 0; sweep < 50; ++sweep) {
    double off = 0.0;
    for (int p = 0; p < n; ++p)
      for (int q = p + 1; q < n; ++q) off = std::max(off, std::abs(s(p, q)));
    if (off <= 1e-17 * scale) return;
    for (int p = 0; p < n; ++p)
      for (int q = p + 1; q < n; ++q) {
        if (std::abs(s(p, q)) <= 1e-300) continue;
        // Rotation that zeroes s(p, q): t = tan(phi), the smaller root of t^2 + 2 theta t = 1.
        const double theta = (s(q, q) - s(p, p)) / (2.0 * s(p, q));
        const double t =
            (theta >= 0.0 ? 1.0 : -1.0) / (std::abs(theta) + std::sqrt(theta * theta + 1.0));
        const double c = 1.0 / std::sqrt(t * t + 1.0), sn = t * c;
        for (int k = 0; k < n; ++k) {  // columns p, q
          const double a = s(k, p), b = s(k, q);
          s(k, p) = c * a - sn * b;
          s(k, q) = sn * a + c * b;
        }
        for (int k = 0; k < n; ++k) {  // rows p, q
          const double a = s(p, k), b = s(q, k);
          s(p, k) = c * a - sn * b;
          s(q, k) = sn * a + c * b;
        }
        for (int k = 0; k < n; ++k) {
          const double a = v(k, p), b = v(k, q);
          v(k, p) = c * a - sn * b;
          v(k, q) = sn * a + c * b;
        }
      }
  }
}

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
bool FrozenBasisVelocity(QrWorkspace& w, double t, const Vector& x, const Vector& qd,
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
bool StageRates(QrWorkspace& w, double t, const Vector& x, const Vector& qd,
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

// exp(x) by scaling and squaring of the Taylor series, into out; term and tmp are scratch.
// The series is summed until a term is below 1e-17 relative (||x / 2^s||_1 <= 1/2).
void ExpInto(const Matrix& x, Matrix& out, Matrix& term, Matrix& tmp) {
  double norm = x.cwiseAbs().colwise().sum().maxCoeff();
  int squarings = 0;
  while (norm > 0.5) {
    norm *= 0.5;
    ++squarings;
  }
  const double scale = std::ldexp(1.0, -squarings);
  term = x * scale;
  out.setIdentity();
  out += term;
  for (int k = 2; k < 30; ++k) {
    tmp.noalias() = term * x;
    term = tmp * (scale / k);
    out += term;
    if (term.cwiseAbs().maxCoeff() < 1e-17) break;
  }
  for (int s = 0; s < squarings; ++s) {
    tmp.noalias() = out * out;
    out = tmp;
  }
}

// exp(x) for x = [0, -w^T; w, 0] (one constraint: Omega_1 = 0, x = Omega h, w = Omega_21 h),
// a rotation by theta = |w| in the plane of e_1 and [0; w]: since x^3 = -theta^2 x,
// exp(x) = I + sin(theta)/theta x + (1 - cos(theta))/theta^2 x^2 (Rodrigues), exactly.
void ExpOfPlaneRotationInto(const Matrix& x, Matrix& out, Matrix& tmp) {
  const double theta = x.col(0).norm();
  out.setIdentity();
  if (theta == 0.0) return;
  const double s = theta > 1e-4 ? std::sin(theta) / theta : 1.0 - theta * theta / 6.0;
  const double c =
      theta > 1e-4 ? (1.0 - std::cos(theta)) / (theta * theta) : 0.5 - theta * theta / 24.0;
  tmp.noalias() = x * x;
  out += s * x + c * tmp;
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

// Modified Gram-Schmidt of columns m.. of q against all earlier columns (s2.5, last
// paragraph). Returns false if a column vanishes.
bool GramSchmidt(Matrix& q, int m) {
  for (int i = m; i < q.cols(); ++i) {
    for (int j = 0; j < i; ++j) q.col(i) -= q.col(j).dot(q.col(i)) * q.col(j);
    const double norm = q.col(i).norm();
    if (!(norm > 1e-8)) return false;
    q.col(i) /= norm;
  }
  return true;
}

// Stages first..last-1 of an explicit RK step of size h from (t, x_start, q_min_dot), rates of
// (15b) and (15a) in the frozen basis Q_k. Returns the failing stage (1-based) or 0.
int RungeKuttaStages(QrWorkspace& w, double t, double h, int first, WorkCounters& counters) {
  const Tableau& tab = w.tab;
  for (int i = first; i < tab.stages; ++i) {
    w.x_stage = w.x_start;
    w.qd_stage = w.q_min_dot;
    for (int j = 0; j < i; ++j) {
      if (tab.a[i][j] == 0.0) continue;
      w.x_stage += (h * tab.a[i][j]) * w.kx.col(j);
      w.qd_stage += (h * tab.a[i][j]) * w.kqd.col(j);
    }
    ++counters.rhs_evals;
    if (!StageRates(w, t + tab.c[i] * h, w.x_stage, w.qd_stage, w.kx.col(i), w.kqd.col(i), i == 0))
      return i + 1;
  }
  return 0;
}

// The RK solution: x = x_start + h sum b_i kx_i, qd_new = q'_k + h sum b_i kqd_i.
void RungeKuttaSolution(QrWorkspace& w, double h, Vector& x) {
  const Tableau& tab = w.tab;
  x = w.x_start;
  w.qd_new = w.q_min_dot;
  for (int i = 0; i < tab.stages; ++i) {
    if (tab.b[i] == 0.0) continue;
    x += (h * tab.b[i]) * w.kx.col(i);
    w.qd_new += (h * tab.b[i]) * w.kqd.col(i);
  }
}

// Dormand-Prince local error of the step (x_start, q'_k) -> (x, qd_new) of size h, after the
// FSAL stage 7 has been stored in column 6: the weighted RMS norm [Hairer et al. 1993, eq.
// II.4.11] of e = h sum (b_i - b*_i) k_i over the n + d components of the integrated state,
// sc_i = atol + rtol max(|y_i|, |y_new_i|) for x. For q' the weight uses the norm of the
// block, sc = atol + rtol max(|q'_k|, |q'_{k+1}|): q' are coordinates in a basis Q2 the
// method may rotate (Q2 -> Q2 P rotates e_q' by P^T), and with a common weight the error
// norm, hence the step sequence, is the same for every choice of Q2 (continued or not).
double ErrorNorm(const QrWorkspace& w, double h, const Vector& x) {
  double sum = 0.0;
  for (int j = 0; j < w.n; ++j) {
    double e = 0.0;
    for (int i = 0; i < 7; ++i) e += kDopri5Error[i] * w.kx(j, i);
    const double sc = w.atol + w.rtol * std::max(std::abs(w.x_start[j]), std::abs(x[j]));
    sum += (h * e / sc) * (h * e / sc);
  }
  const double sc_qd = w.atol + w.rtol * std::max(w.q_min_dot.norm(), w.qd_new.norm());
  for (int j = 0; j < w.d; ++j) {
    double e = 0.0;
    for (int i = 0; i < 7; ++i) e += kDopri5Error[i] * w.kqd(j, i);
    sum += (h * e / sc_qd) * (h * e / sc_qd);
  }
  return std::sqrt(sum / static_cast<double>(w.n + w.d));
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

void HouseholderQrInto(const Matrix& a_t, Matrix& work, Vector& v, Vector& w, Matrix& q,
                       Matrix& r1) {
  const int n = static_cast<int>(a_t.rows());
  const int m = static_cast<int>(a_t.cols());
  work = a_t;
  q.setIdentity();
  for (int j = 0; j < m; ++j) {
    const int len = n - j;
    const double alpha = work(j, j);
    const double sigma = work.col(j).tail(len - 1).squaredNorm();
    double tau = 0.0, beta = alpha;
    if (sigma > 0.0) {
      beta = std::sqrt(alpha * alpha + sigma);
      if (alpha >= 0.0) beta = -beta;  // LAPACK dlarfg: beta = -sign(alpha) ||x||
      tau = (beta - alpha) / beta;
      v(0) = 1.0;
      v.segment(1, len - 1) = work.col(j).tail(len - 1) / (alpha - beta);
    }
    work(j, j) = beta;
    work.col(j).tail(len - 1).setZero();
    if (tau == 0.0) continue;
    const auto vj = v.head(len);
    for (int c = j + 1; c < m; ++c) {  // H_j applied to the remaining columns
      const double s = tau * vj.dot(work.col(c).tail(len));
      work.col(c).tail(len) -= s * vj;
    }
    w.noalias() = q.rightCols(len) * vj;  // Q <- Q H_j
    w *= tau;
    q.rightCols(len).noalias() -= w * vj.transpose();
  }
  r1 = work.topRows(m);
}

std::unique_ptr<FixedStepWorkspace> QrProjectionMethod::Begin(const Problem& problem, double /*h*/,
                                                              FixedStepState& state,
                                                              WorkCounters& /*counters*/,
                                                              std::string& error) const {
  const Tableau& tab = options_.integrator == QrIntegrator::kRk4 ? kRk4 : kDopri5;
  auto ws = std::make_unique<QrWorkspace>(problem, tab);
  QrWorkspace& w = *ws;
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
  const int m = w.m, d = w.d;
  const double t = state.t;
  const bool continued = options_.continuation != QrContinuation::kNone;
  const QrBasis basis_kind = options_.basis;

  // d/dt A at the step start, for the continuation (22)-(29).
  if (continued && m > 0) w.dae.CalcPhiQDot(*w.dae_ws, t, state.q, state.v, w.phi_q_dot);

  // Explicit Runge-Kutta step of x' = (15b), q'' = (15a) in the basis Q_k.
  w.x_start = state.q;
  Vector& x = state.q;
  auto singular = [](int stage) {
    return StepStatus::Failed("singular constraint Jacobian or reduced mass matrix at stage " +
                              std::to_string(stage));
  };
  double h_next = 0.0;
  if (!options_.adaptive) {
    if (const int failed = RungeKuttaStages(w, t, h, 0, counters)) return singular(failed);
    RungeKuttaSolution(w, h, x);
  } else {
    // Error control on (x, q') with the basis frozen at Q_k: a rejected trial restarts from
    // the same x_k, q'_k, Q_k with a smaller h (stage 1 does not depend on h and is kept).
    bool rejected = false;
    for (int first = 0;; first = 1) {
      if (const int failed = RungeKuttaStages(w, t, h, first, counters)) return singular(failed);
      RungeKuttaSolution(w, h, x);
      ++counters.rhs_evals;  // stage 7 (FSAL) at (t + h, x_{k+1}^(0), q'_{k+1})
      if (!StageRates(w, t + h, x, w.qd_new, w.kx.col(6), w.kqd.col(6), false)) return singular(7);
      const double err = ErrorNorm(w, h, x);
      if (err <= 1.0) {  // accepted (II.4.12-13)
        const double fac = err > 0.0 ? kSafety * std::pow(err, -0.2) : kFacMax;
        h_next = h * std::min(kFacMax, std::max(kFacMin, fac));
        if (rejected) h_next = std::min(h_next, h);  // no increase right after a rejection
        break;
      }
      ++counters.rejected_steps;
      rejected = true;
      const double fac = std::isfinite(err) ? kSafety * std::pow(err, -0.2) : kFacMin;
      const double h_smaller = h * std::max(kFacMin, fac);
      if (h_smaller < kMinStepRelative * (1.0 + std::abs(t))) {
        x = w.x_start;
        char buf[160];
        std::snprintf(buf, sizeof(buf),
                      "step size h = %.3e below the minimum %.1e (1 + |t|) at t = %.9g "
                      "(error norm %.3g at h = %.3e)",
                      h_smaller, kMinStepRelative, t, err, h);
        return StepStatus::Failed(buf);
      }
      h = h_smaller;
    }
  }
  const double t_new = t + h;
  // q_{k+1} = q_k + Q2_k^T (x_{k+1} - x_k): eq. (16) read as an increment; the correction
  // below moves x along Q1_k only, so it does not change q.
  w.dx = x - w.x_start;
  const double q1_before = d > 0 ? w.q_min[0] : 0.0;
  w.q_min.noalias() += w.basis.rightCols(d).transpose() * w.dx;
  if (d > 0 && q1_before * w.q_min[0] < 0.0) ++w.q1_sign_changes;

  // Position correction (17)-(19): Newton on p along Q1_k.
  w.constraints_current = false;
  w.stage_qr_current = false;
  if (m > 0) {
    bool converged = false;
    for (int it = 0; it < kMaxCorrectionIterations && !converged; ++it) {
      w.dae.CalcPhi(*w.dae_ws, t_new, x, w.phi);
      w.dae.CalcPhiQ(*w.dae_ws, t_new, x, w.phi_q);
      w.a_q1.noalias() = w.phi_q * w.basis.leftCols(m);  // (c_x)^(i) Q1_k, (18)
      w.lu.compute(w.a_q1);
      if (!WellConditioned(w.lu))
        return StepStatus::Failed("singular A Q1 in the position correction (19a)");
      w.p_dot = w.lu.solve(w.phi);                   // -Delta p (19a)
      x.noalias() -= w.basis.leftCols(m) * w.p_dot;  // p += Delta p (19b)
      ++counters.newton_iterations;
      converged = w.p_dot.lpNorm<Eigen::Infinity>() <= 1e-14 * (1.0 + x.lpNorm<Eigen::Infinity>());
    }
    if (!converged)
      return StepStatus::Failed("position correction (17)-(19) did not converge in " +
                                std::to_string(kMaxCorrectionIterations) + " iterations");
  }
  // Velocity at the corrected position, still in the basis Q_k.
  if (!FrozenBasisVelocity(w, t_new, x, w.qd_new, state.v))
    return StepStatus::Failed("singular A Q1 at the new position");

  // The basis at t_{k+1}: Q1 from the economy QR of A_{k+1}^T; Q2 continued or refactorised.
  double omega_h = 0.0;
  if (continued) {
    // Q1_{k+1} (and R1_{k+1}) from the factorisation of A_{k+1}^T: QR (8) into stage_basis, or
    // SVD (20) / zero-eigenvalue (21) into factor_basis with R1 = Q1^T A^T.
    if (basis_kind == QrBasis::kQr) {
      HouseholderQrInto(w.a_t, w.qr_work, w.hh_v, w.hh_w, w.stage_basis, w.stage_r1);  // (8)
    } else if (m > 0) {
      FactorBasis(w, basis_kind, w.factor_basis, w.r1_next);
      w.r1_next.noalias() = w.factor_basis.leftCols(m).transpose() * w.a_t;
    }
    const Matrix& new_factor = basis_kind == QrBasis::kQr ? w.stage_basis : w.factor_basis;
    if (m > 0) {
      if (options_.continuation == QrContinuation::kExponential) {
        BuildOmega(w, basis_kind);
        w.omega *= h;
        omega_h = w.omega.norm();  // Frobenius: bounds the 2-norm
        if (m == 1)
          ExpOfPlaneRotationInto(w.omega, w.exp_out, w.exp_tmp);
        else
          ExpInto(w.omega, w.exp_out, w.exp_term, w.exp_tmp);
        w.q2_candidate.noalias() = w.basis * w.exp_out.rightCols(d);  // (28)
      } else {
        // (29): Q2_{k+1} = exp(-A^+ A' h) Q2_k with A^+ = Q1 R1^{-T} (any factorisation).
        if (basis_kind == QrBasis::kQr) {
          w.a_plus_a_dot = w.phi_q_dot;
          w.r1.triangularView<Eigen::Upper>().transpose().solveInPlace(w.a_plus_a_dot);
        } else {
          w.a_plus_a_dot = w.r1_lu.solve(w.phi_q_dot);
        }
        w.omega.noalias() = w.basis.leftCols(m) * w.a_plus_a_dot;
        w.omega *= -h;
        omega_h = w.omega.norm();  // Frobenius: bounds the 2-norm
        ExpInto(w.omega, w.exp_out, w.exp_term, w.exp_tmp);
        w.q2_candidate.noalias() = w.exp_out * w.basis.rightCols(d);
      }
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
    if (basis_kind == QrBasis::kQr) {
      w.r1 = w.stage_r1;
    } else if (m > 0) {
      w.r1 = w.r1_next;
      w.r1_lu.compute(w.r1.transpose());
      if (!WellConditioned(w.r1_lu))
        return StepStatus::Failed("singular R1 = Q1^T A^T of the new basis (rank-deficient A)");
    }
  } else {
    FactorBasis(w, options_.basis, w.next_basis, w.r1);
  }
  w.omega_h_max = std::max(w.omega_h_max, omega_h);

  // Metrics: jumps of the basis columns and of q' between consecutive steps.
  if (d > 0) {
    w.tangent_basis_jump =
        std::max(w.tangent_basis_jump,
                 (w.next_basis.rightCols(d) - w.basis.rightCols(d)).colwise().norm().maxCoeff());
  }
  w.basis = w.next_basis;
  // phi_q, a_t, phi_t are now those at (t_{k+1}, x_{k+1}); stage_basis holds their QR for the
  // continued method, and basis does for the traditional QR (8).
  w.constraints_current = true;
  if (continued && basis_kind == QrBasis::kQr) {
    w.stage_qr_current = true;
  } else if (options_.basis == QrBasis::kQr) {
    w.stage_basis = w.basis;
    w.stage_r1 = w.r1;
    w.stage_qr_current = true;
  }
  w.q_min_dot_new.noalias() = w.basis.rightCols(d).transpose() * state.v;  // q' = Q2^T x'
  if (d > 0) {
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
