// Tangent-manifold Newmark: paper 001, section 5 (eqs. 32-58, flowchart Fig. 11).
//
// Each step integrates, with the Newmark formulas (newmark_common.h), the minimal
// coordinates alpha of the constraint manifold linearised at the current iterate
// (x0, x0', x0'') of the state at t + h, so that the position, velocity and acceleration
// constraints are all met at convergence. One iteration:
//   1. H = Phi_q(x0), its rank-revealing QR H^T P = [Q1 Q2] R; N_H = Q2 (orthonormal null
//      space; N_G = N_H since forces and constraints use the same coordinates).
//      H' = d/dt Phi_q (= d(Phi_q v + Phi_t)/dq), H'' = d(Phi_q a - gamma)/dq.
//   2. Minimum-norm particular solutions (paper: "minimal norm values", least squares for
//      redundant constraints) of eqs. (33), (39), (40), (46), (47):
//        H x_p    = H x0 - Phi(x0)                                                  (33)
//        H x'_p   = -(Phi_q v0 + Phi_t) + H v0 + H' (x0 - x_p)                       (39)
//        H X'_p   = -H' N_H                                                         (40)
//        H x''_p  = -(H a0 - gamma) + H a0 + H'' (x0 - x_p) + 2 H' (v0 - x'_p)       (46)
//        H X''_p1 = -2 H' X'_p - H'' N_H                                            (47)
//      and X'_p2 = 2 X'_p (49), so that (34), (38), (45):
//        x = x_p + N a,  x' = x'_p + N a' + X'_p a,  x'' = x''_p + X''_p1 a + X'_p2 a' + N a''.
//      x_p is taken of minimum norm relative to the iterate (x_p = x0 - H^+ Phi(x0), which
//      differs from H^+ b_L only by N_H N_H^T x0, i.e. by the origin of alpha), and the
//      terms of (38) and (45) are evaluated as one minimum-norm solve each with the
//      right-hand sides summed (StateFromAlpha), identical in exact arithmetic; both keep
//      the round-off small near a singular position (double_four_bar).
//   3. The state at t projected into this linearisation by least squares, eqs. (56)-(58)
//      (N_H orthonormal, so the least-squares solution is a product with N_H^T).
//   4. Newmark in alpha with alpha''(t + h) unknown, and the equilibrium linearised at the
//      iterate and premultiplied by N_G^T, eq. (52):
//        N^T [R0 + K (x - x0) + C (x' - v0) + M (x'' - a0)] = 0,
//        R0 = M a0 - Q + Phi_q^T lambda0,  K = d(M a)/dq - dQ/dq + d(Phi_q^T lambda0)/dq,
//        C = -dQ/dv,
//      which is eq. (52) with M_R = N^T M N, C_R = N^T C N + 2 N^T M X'_p and
//      K_R = N^T K N + N^T C X'_p + N^T M X''_p1. The reaction stiffness
//      d(Phi_q^T lambda)/dq is the part of the linearised G_L^T lambda that N_G^T does not
//      remove (the sentence after eq. 52); lambda0 is the least-squares multiplier of the
//      iterate (Phi_q^T lambda = Q - M a).
//   5. New iterate from (34), (38), (45); repeat until the change of x, x', x'' is below
//      `tol` (relative), Fig. 11.
// omega_max over the run is the largest natural frequency of (M_R, K_R) at the converged
// iterates (section 5), and h_stability_limit_predicted follows from eq. (26).
//
// Two routes for the linear algebra of a pass (`constraint_solves=auto|dense|sparse`): the
// dense one below (n x n matrices, the QR of H^T), and from entries on long chains
// (tangent_sparse_system.h: O(n k) per pass; `auto` takes it from 60 coordinates on when H
// has full row rank at the start). Both share FinishPass, StateFromAlpha and TrackFrequency
// through small operation structs (DenseOps, SparseOps); a pass whose H H^T the sparse route
// refuses (a singular position) runs on the dense route with fresh derivatives.
//
// Numerical rank: the rank-revealing factorisation of problems/constraint_factorization.h,
// capped during a step by the rank on the manifold at the last accepted state (Factor()).
// Convergence: relative change below `tol`, with a round-off floor that grows with
// cond(H) near singular positions (Step()). With `convergence=contraction` the iteration
// also ends when the change the next pass would make, estimated from the contraction of
// the last two (NextChangeBelow), is below `tol`. Fig. 11's test (`change`, the default)
// accepts an iterate a pass after it was already within the tolerance: on the double
// four-bar at h = 0.01 the passes from the constant start change a by 0.11, 6.5e-7 and
// 4e-13 m/s^2 (tolerance 1e-9), and the contraction test stops after the second. The
// price: the acceleration constraint is then met to about the tolerance instead of
// round-off (the derivative terms are those of the step's first iterate, so the last
// pass's linearisation error is of the order of its change; position and velocity stay at
// round-off), which is why the paper's test stays the default.
//
// Modified Newton: the derivative terms of the iteration (K, C, H', H'') are evaluated at
// the first iterate of a step and kept while the iteration contracts by at least
// kSlowContraction per pass and changes by less than kLargeCorrection (else refreshed).
// Paper 001 allows it: the linearised terms "are obtained in a numerical way" and the
// process is iterated (section 2, after eq. 6), and they multiply only differences of
// iterates, so the converged step is the same to the tolerance. The reaction stiffness was
// 73 % of a step on Bricard when taken every pass. omega (section 5) then uses the
// stiffness of the step's last refresh. With `derivatives=reuse` the terms are also kept
// from one step to the next while the last pass contracted well and the step took at most
// kReusePasses passes: Bricard at h = 0.01, 420 -> 192 us per step when introduced (3.96
// passes per step instead of 3, 8 refreshes in 200 steps; reusing until the contraction
// test fails took 4.6 passes and 210 us); from the extrapolated start the default takes 2
// passes and is the faster. omega is then reported only for the steps that refreshed.
//
// Starting iterate (not fixed by the paper): the Newmark formulas with a_{n+1} = a_n
// (`predictor=constant`) or extrapolated from the last steps (`extrapolation`, the default;
// extrapolator.h): Bricard at h = 0.01, 2.98 -> 2.0 passes per step, the same steps to the
// tolerance.
//
// Choices not fixed by the paper: the derivative of gamma with respect to q (third
// derivatives of Phi) in H'' is the DAE's where it has one by hand (the planar
// formulation: MechanicalDae::CalcGammaJacobian), else central differences of gamma; it
// enters only the iteration matrix and the particular solutions' dependence on the
// iterate, not the converged step (at convergence the linearisation point is the
// solution), and omega (the two agree to about 1e-11 relative on the double four-bar). The
// multiplier reported is the least-squares one of the last iterate; for redundant
// constraints it is a basic (not minimum-norm) least-squares solution.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "methods/common/acceleration_solver.h"
#include "methods/common/extrapolator.h"
#include "methods/common/matrix_non_zeros.h"
#include "methods/fixed_step_method.h"
#include "methods/newmark/newmark_common.h"
#include "methods/newmark/newmark_methods.h"
#include "methods/newmark/tangent_sparse_system.h"
#include "problems/constraint_factorization.h"
#include "problems/invariant.h"

namespace mbb {
namespace {

struct TangentWorkspace final : FixedStepWorkspace {
  TangentWorkspace(const Problem& p, int n, int m, bool extrapolate)
      : dae(*p.dae),
        ws(dae.MakeWorkspace()),
        n(n),
        m(m),
        mass(n, n),
        dq(n, n),
        dv(n, n),
        dma(n, n),
        reaction(n, n),
        stiffness(n, n),
        h_mat(m, n),
        h_dot(m, n),
        h_ddot(m, n),
        dgamma_dq(m, n),
        factorization(m, n),
        xd_p_mat(n, n),
        xdd_p1_mat(n, n),
        dx(n, n),
        dxd(n, n),
        dxdd(n, n),
        work_nn(n, n),
        forces(n),
        x_p(n),
        range_part(n),
        b_velocity(m),
        b_acceleration(m),
        residual(n),
        x0(n),
        v0(n),
        a0(n),
        x1(n),
        v1(n),
        a1(n),
        lambda0(m),
        vec_m(m),
        vec_m2(m),
        vec_n(n),
        q_pert(n),
        alpha(n),
        alpha_d(n),
        alpha_dd(n),
        alpha_pred(n),
        alpha_d_pred(n),
        rhs_k(n),
        acceleration_history(n, extrapolate),
        mass_entries(n, n),
        stiffness_entries(n, n),
        damping_entries(n, n),
        h_dot_entries(m, n),
        h_ddot_entries(m, n) {}
  const MechanicalDae& dae;
  std::unique_ptr<DaeWorkspace> ws;
  // The sparse route (tangent_sparse_system.h), null for the dense one. The dense members
  // are allocated either way (untouched memory on the sparse route) and take a pass whose
  // constraint system the sparse route refuses (a singular position).
  std::unique_ptr<TangentSparseSystem> sparse;
  bool last_pass_sparse = false;  // which route's matrices the last pass left
  long sparse_passes = 0, dense_fallbacks = 0;
  bool sparse_derivatives_valid = false;  // the sparse route has evaluated K, C, H', H''
  int n, m, rank = 0, k = 0;
  int computed_rank = 0;
  int manifold_rank = 0;  // set in Begin and after each accepted step
  Matrix mass, dq, dv, dma, reaction, stiffness;
  Matrix h_mat, h_dot, h_ddot, dgamma_dq;
  ConstraintFactorization factorization;  // of H = Phi_q
  Matrix xd_p_mat, xdd_p1_mat, dx, dxd, dxdd, work_nn;
  Vector forces, x_p, range_part, b_velocity, b_acceleration, residual, x0, v0, a0, x1, v1, a1,
      lambda0;
  Vector vec_m, vec_m2, vec_n, q_pert;
  Vector alpha, alpha_d, alpha_dd, alpha_pred, alpha_d_pred, rhs_k;
  Extrapolator acceleration_history;  // the first iterate's a_{n+1} (`predictor`)
  // The non-zeros of M, K, C = -dQ/dv (the dense dv), H' and H'', gathered when the
  // matrices are evaluated: the dense route's products skip the zeros (DenseOps).
  MatrixNonZeros mass_entries, stiffness_entries, damping_entries, h_dot_entries, h_ddot_entries;
  bool mass_constant = false;  // M (and mass_entries) evaluated once, in Begin
  // Rank-dependent (k x k); reallocated only when the rank changes.
  Matrix reduced, reduced_mass, reduced_stiffness;
  Eigen::PartialPivLU<Matrix> reduced_lu;
  std::unique_ptr<FrequencyEstimator> frequency;
  double omega_max = 0.0;
  bool omega_valid = true;
  bool derivatives_reusable = false;

  auto null_space() const { return factorization.null_space_basis(); }  // N_H

  // QR of H^T at (t, x0); sets rank, k, Q = [Q1 N_H]. The rank is the numerical rank at
  // x0 (relative threshold kConstraintRankThreshold) but at most manifold_rank, the rank
  // on the constraint manifold at the last accepted state: an iterate off the manifold by
  // delta turns a redundant constraint (Bricard) into a singular value ~delta, which at
  // the predictor of a 2e-3 step exceeds the threshold, and inverting it throws the
  // iteration off (the energy grew by 1e4 J).
  void Factor() {
    factorization.Compute(h_mat, manifold_rank);
    factorization.FormBases();
    computed_rank = factorization.computed_rank();
    rank = factorization.rank();
    SetRank(rank);
  }

  // k = n - rank and the k x k storage for it (reallocated only when the rank changes).
  void SetRank(int r) {
    rank = r;
    if (n - rank != k || !frequency) {
      k = n - rank;
      reduced.resize(k, k);
      reduced_mass.resize(k, k);
      reduced_stiffness.resize(k, k);
      reduced_lu = Eigen::PartialPivLU<Matrix>(k);
      frequency = std::make_unique<FrequencyEstimator>(k);
    }
  }

  // Condition estimate of H of the last pass: from the pivoted QR, |R_00| / |R_{r-1,r-1}|
  // (1 if m = 0), or from the sparse route's Cholesky of H H^T.
  double ConditionEstimate() const {
    return last_pass_sparse ? sparse->ConditionEstimate() : factorization.ConditionEstimate();
  }

  // Minimum-norm solution of H X = B (B: m x c), eq. (33)-(47) particular solutions:
  // H = P R^T Q^T, so X = Q1 R11^-T (P^T B)_{1:r}.
  template <class In, class Out>
  void SolveMinimumNorm(const In& b, Out&& x) {
    factorization.SolveMinimumNormColumns(b, x);
  }

  // Least-squares multiplier of H^T lambda = b (n): lambda = P [R11^-1 Q1^T b; 0].
  void SolveMultiplier(const Vector& b, Vector& lambda) {
    factorization.SolveMultipliers(b, lambda);
  }
};

class TangentNewmark final : public FixedStepMethod {
 public:
  explicit TangentNewmark(const ParameterSet& p)
      : params_(NewmarkParameters::FromParameters(p, false)),
        solves_(ParseConstraintSolves(p.GetString("constraint_solves", "auto"))),
        contraction_test_(ParseConvergenceTest(p.GetString("convergence", "change"))) {}

 protected:
  std::unique_ptr<FixedStepWorkspace> Begin(const Problem& problem, double, FixedStepState& s,
                                            WorkCounters& counters,
                                            std::string& error) const override {
    auto w = std::make_unique<TangentWorkspace>(problem, problem.n(), problem.m(),
                                                params_.extrapolate_start);
    if (!StartFromIndex1Solution(w->dae, *w->ws, s, counters, error)) return nullptr;
    w->acceleration_history.Start(s.a);
    if (w->dae.has_constant_mass_matrix()) {
      w->dae.CalcMassMatrix(*w->ws, s.q, w->mass);
      w->mass_entries.Gather(w->mass);
      w->mass_constant = true;
    }
    s.extra = Vector::Constant(1, std::numeric_limits<double>::quiet_NaN());  // omega per step
    s.has_extra = true;
    // Rank of Phi_q on the manifold at the (consistent) initial state.
    w->manifold_rank = w->m;
    if (w->m > 0) w->sparse = TangentSparseSystem::Make(w->dae, *w->ws, s.t, s.q, solves_);
    if (w->sparse) {  // full rank at the start (Make checks)
      w->computed_rank = w->m;
      w->SetRank(w->m);
    } else {
      if (w->m > 0) w->dae.CalcPhiQ(*w->ws, s.t, s.q, w->h_mat);
      w->Factor();
    }
    w->manifold_rank = w->computed_rank;
    return w;
  }

  StepStatus Step(FixedStepWorkspace& workspace, double h, FixedStepState& s,
                  WorkCounters& counters) const override {
    auto& w = MBB_DOWNCAST(TangentWorkspace, workspace);
    const double t1 = s.t + h;
    const double eps = std::numeric_limits<double>::epsilon();
    // Starting iterate: the Newmark formulas with a_{n+1} = a_n (a Taylor predictor) or
    // extrapolated from the last steps (`predictor`, extrapolator.h).
    if (w.acceleration_history.Predict(h, w.a0) == 0) {
      w.x0.noalias() = s.q + h * s.v + (0.5 * h * h) * s.a;
      w.v0.noalias() = s.v + h * s.a;
    } else {
      const double beta = params_.beta, gamma = params_.gamma;
      w.x0.noalias() = s.q + h * s.v + ((0.5 - beta) * h * h) * s.a + (beta * h * h) * w.a0;
      w.v0.noalias() = s.v + ((1.0 - gamma) * h) * s.a + (gamma * h) * w.a0;
    }
    // Modified Newton (header comment): the derivative terms of the iteration are taken at
    // the first iterate and again only when the iteration contracts slowly.
    bool refresh = !(params_.reuse_derivatives && w.derivatives_reusable);
    bool refreshed = false;  // in this step: then omega is that of fresh derivatives
    w.derivatives_reusable = false;
    const double none = std::numeric_limits<double>::infinity();
    Changes previous{none, none, none};  // of the last pass; none before the first
    for (int iter = 0; iter < params_.max_iterations; ++iter) {
      if (!Pass(w, h, t1, s, refresh, counters))
        return StepStatus::Failed("singular reduced system");
      refreshed = refreshed || refresh;
      const double dx = (w.x1 - w.x0).lpNorm<Eigen::Infinity>();
      const double dv = (w.v1 - w.v0).lpNorm<Eigen::Infinity>();
      const double da = (w.a1 - w.a0).lpNorm<Eigen::Infinity>();
      const Changes current{dx, dv, da};
      const double change = current.InPositionUnits(h);
      refresh = change > kSlowContraction * previous.InPositionUnits(h) ||
                change > kLargeCorrection * (1.0 + w.x1.lpNorm<Eigen::Infinity>());
      const double tol = params_.tol;
      // Round-off floor, which matters only near a singular position (double_four_bar,
      // where cond(H) reaches ~1e4): the constraint solve fixes x only to about
      // eps cond(H) |x|; that uncertainty reaches v and a through the Newmark relations
      // (1/h, 1/h^2) and through the constraints, whose velocity and acceleration
      // solutions change by about cond(H) |v| / |x| and its square per unit change of x
      // (H^+ and its derivative). Measured: 10 is the smallest power of ten with which
      // every step of the double four-bar sweep converges; 100 leaves a factor 10.
      const double cond = w.ConditionEstimate();
      const double x_scale = 1.0 + w.x1.lpNorm<Eigen::Infinity>();
      const double rate = cond * w.v1.lpNorm<Eigen::Infinity>() / x_scale;
      const double floor_x = 100.0 * eps * cond * x_scale;
      const Changes tolerance{tol * x_scale, tol * (1.0 + w.v1.lpNorm<Eigen::Infinity>()),
                              tol * (1.0 + w.a1.lpNorm<Eigen::Infinity>())};
      const bool converged =
          (dx <= tolerance.x + floor_x && dv <= tolerance.v + floor_x * (1.0 / h + rate) &&
           da <= tolerance.a + floor_x * (1.0 / (h * h) + rate * rate)) ||
          (contraction_test_ && iter > 0 && NextChangeBelow(previous, current, tolerance));
      previous = current;
      w.x0 = w.x1;
      w.v0 = w.v1;
      w.a0 = w.a1;
      if (!w.x0.allFinite() || !w.v0.allFinite() || !w.a0.allFinite())
        return StepStatus::Failed("non-finite iterate");
      if (converged) {
        s.q = w.x1;
        s.v = w.v1;
        s.a = w.a1;
        w.acceleration_history.Accept(s.a, h);
        if (w.m > 0) s.lambda = w.lambda0;
        // The last factorisation was at an iterate on the manifold to within the tolerance.
        w.manifold_rank = w.computed_rank;
        // Per-step series (paper 001 Fig. 25); a step that reused an earlier step's
        // derivatives has no omega of its own (NaN, left out of omega_max).
        s.extra[0] = !refreshed           ? std::numeric_limits<double>::quiet_NaN()
                     : w.last_pass_sparse ? TrackFrequency(w, SparseOps{w, *w.sparse})
                                          : TrackFrequency(w, DenseOps{w});
        // Reused while the iteration contracts well and a step takes at most
        // kReusePasses passes (older terms cost more passes than a refresh saves).
        w.derivatives_reusable = !refresh && iter < kReusePasses;
        return StepStatus::Ok();
      }
    }
    return StepStatus::Failed("tangent Newmark iteration did not converge in " +
                              std::to_string(params_.max_iterations) + " iterations");
  }

  std::vector<std::string> ExtraSeriesNames(const Problem&) const override {
    return {"omega"};  // largest natural frequency of (M_R, K_R) at each converged step, rad/s
  }

  void Finish(FixedStepWorkspace& workspace, std::map<std::string, double>& m) const override {
    auto& w = MBB_DOWNCAST(TangentWorkspace, workspace);
    if (w.omega_valid) ReportStabilityMetrics(w.omega_max, params_.gamma, params_.beta, m);
    if (w.sparse) {  // the names newmark-index3 reports for its Newton solves
      m["newton_solves_sparse"] = static_cast<double>(w.sparse_passes);
      m["newton_solves_dense_fallback"] = static_cast<double>(w.dense_fallbacks);
    }
  }

 private:
  // A modified-Newton iteration whose change shrank by less than this factor takes fresh
  // derivatives for the next one (a full Newton step contracts quadratically; a frozen
  // iteration matrix linearly, by O(h) per iteration at the step sizes used).
  static constexpr double kSlowContraction = 0.25;
  // `derivatives=reuse`: a step that needed more passes than this takes fresh derivative
  // terms at the next step's first iterate.
  static constexpr int kReusePasses = 4;
  // A change above this fraction of the coordinate scale is far from the point of
  // linearisation (a diverging run): full Newton there, so that the iteration keeps to the
  // root it would have found with fresh derivatives.
  static constexpr double kLargeCorrection = 1e-3;
  // The contraction test trusts a rate estimate only below this (an iteration contracting
  // more slowly than by half per pass is tested by its change alone, as in the paper).
  static constexpr double kMaxContraction = 0.5;

  // The changes of x, x', x'' (infinity norms) a pass made, or their tolerances.
  struct Changes {
    double x = 0.0, v = 0.0, a = 0.0;
    double InPositionUnits(double h) const { return x + h * v + h * h * a; }
  };

  // `convergence=contraction`: the change the next pass would make, estimated from the
  // contraction of the last two passes (Hairer & Wanner, Solving Ordinary Differential
  // Equations II, section IV.8: theta = |D_k| / |D_{k-1}|, remaining error of the iterate
  // about theta / (1 - theta) |D_k|), is below the tolerance in each of x, x', x''. The
  // slowest-contracting of the three sets theta; no estimate unless every one contracted.
  static bool NextChangeBelow(const Changes& previous, const Changes& current,
                              const Changes& tolerance) {
    double theta = 0.0;
    for (auto [before, now] : {std::pair{previous.x, current.x}, std::pair{previous.v, current.v},
                               std::pair{previous.a, current.a}}) {
      if (now == 0.0) continue;
      if (!(now < kMaxContraction * before)) return false;
      theta = std::max(theta, now / before);
    }
    const double factor = theta / (1.0 - theta);
    return factor * current.x <= tolerance.x && factor * current.v <= tolerance.v &&
           factor * current.a <= tolerance.a;
  }

  // The derivative terms of the iteration at the iterate: the stiffness
  // K = d(Ma)/dq - dQ/dq + d(Phi_q^T lambda)/dq (the reaction stiffness, after eq. 52) from
  // the force and mass-rate Jacobians already computed, and H', H''. They shape only the
  // iteration (at convergence x1 = x0, so every term they multiply vanishes), which is why
  // a step may keep them over several iterations (modified Newton).
  void RefreshDerivatives(TangentWorkspace& w, double t1) const {
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

  // dgamma/dq at (x0, v0) by central differences (header comment). Row r of gamma depends
  // on q only through the coordinates Phi_r depends on, so with the DAE's Phi_q pattern
  // the columns of a group (no two share a row) are perturbed together: 2 G evaluations
  // of gamma instead of 2 n (Bricard: G = 14 groups for n = 35), with the same values,
  // since no row sees more than one perturbed column.
  void GammaJacobianByDifferences(TangentWorkspace& w, double t1) const {
    const MechanicalDae& dae = w.dae;
    const JacobianCompression* pattern =
        dae.capabilities().constraint_pattern ? &dae.constraint_jacobian_pattern() : nullptr;
    const int groups = pattern ? pattern->num_groups() : w.n;
    auto in_group = [&](int j, int g) {
      return pattern ? pattern->group_of_column(j) == g : j == g;
    };
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

  // The matrices of a pass on each route, for the steps both share (FinishPass,
  // StateFromAlpha, TrackFrequency): N_H, products with M, K, C = -dQ/dv, H' and H'',
  // and the minimum-norm solves with H. The dense route's products run over the matrices'
  // non-zeros (matrix_non_zeros.h).
  struct DenseOps {
    TangentWorkspace& w;
    auto null_space() const { return w.null_space(); }
    template <class X, class Y>
    void AddMass(double scale, const X& x, Y&& y) const {
      w.mass_entries.AddProduct(scale, x, y);
    }
    template <class X, class Y>
    void AddStiffness(double scale, const X& x, Y&& y) const {
      w.stiffness_entries.AddProduct(scale, x, y);
    }
    template <class X, class Y>
    void AddDamping(double scale, const X& x, Y&& y) const {
      w.damping_entries.AddProduct(-scale, x, y);
    }
    template <class X, class Y>
    void AddHDot(double scale, const X& x, Y&& y) const {
      w.h_dot_entries.AddProduct(scale, x, y);
    }
    template <class X, class Y>
    void AddHDDot(double scale, const X& x, Y&& y) const {
      w.h_ddot_entries.AddProduct(scale, x, y);
    }
    template <class B, class X>
    void SolveMinimumNorm(const B& b, X&& x) const {
      w.SolveMinimumNorm(b, x);
    }
    void SolveMultiplier(const Vector& b, Vector& lambda) const { w.SolveMultiplier(b, lambda); }
  };
  struct SparseOps {
    using Term = TangentSparseSystem::Term;
    TangentWorkspace& w;
    TangentSparseSystem& sparse;
    const Matrix& null_space() const { return sparse.null_space(); }
    template <class X, class Y>
    void AddMass(double scale, const X& x, Y&& y) const {
      sparse.AddProduct(Term::kMass, scale, x, y);
    }
    template <class X, class Y>
    void AddStiffness(double scale, const X& x, Y&& y) const {
      sparse.AddProduct(Term::kStiffness, scale, x, y);
    }
    template <class X, class Y>
    void AddDamping(double scale, const X& x, Y&& y) const {
      sparse.AddProduct(Term::kDamping, scale, x, y);
    }
    template <class X, class Y>
    void AddHDot(double scale, const X& x, Y&& y) const {
      sparse.AddProduct(Term::kHDot, scale, x, y);
    }
    template <class X, class Y>
    void AddHDDot(double scale, const X& x, Y&& y) const {
      sparse.AddProduct(Term::kHDDot, scale, x, y);
    }
    template <class B, class X>
    void SolveMinimumNorm(const B& b, X&& x) const {
      if constexpr (B::ColsAtCompileTime == 1) {
        sparse.SolveMinimumNorm(b, x);
      } else {
        sparse.SolveMinimumNormColumns(b, x);
      }
    }
    void SolveMultiplier(const Vector& b, Vector& lambda) const {
      sparse.SolveMultiplier(b, lambda);
    }
  };

  // One pass of Fig. 11 at the iterate (x0, v0, a0) on the sparse route where it has one
  // and its constraint system factors, else on the dense route; writes x1, v1, a1. With
  // `refresh` false the derivative terms (K, C, H', H'') of the last refresh are kept.
  bool Pass(TangentWorkspace& w, double h, double t1, const FixedStepState& s, bool refresh,
            WorkCounters& counters) const {
    if (w.sparse && w.sparse->Factor(*w.ws, t1, w.x0)) {
      const bool fresh = refresh || !w.sparse_derivatives_valid;
      ++counters.newton_iterations, ++counters.rhs_evals, ++counters.factorizations;
      if (fresh) ++counters.jacobian_evals;
      w.sparse->EvaluateMass(*w.ws, w.x0);
      w.dae.CalcForces(*w.ws, t1, w.x0, w.v0, w.forces);
      w.last_pass_sparse = true;
      ++w.sparse_passes;
      SparseOps ops{w, *w.sparse};
      auto evaluate_derivatives = [&] {
        w.sparse->EvaluateDerivatives(*w.ws, t1, w.x0, w.v0, w.a0, w.lambda0);
        w.sparse_derivatives_valid = true;
      };
      return FinishPass(w, h, t1, s, fresh, ops, evaluate_derivatives);
    }
    // The dense route; a pass after a refusal takes fresh derivatives (its matrices may be
    // older than the sparse route's).
    const bool fresh = refresh || (w.sparse != nullptr && w.last_pass_sparse);
    w.last_pass_sparse = false;
    if (w.sparse) ++w.dense_fallbacks;
    return Iterate(w, h, t1, s, fresh, counters);
  }

  // The dense pass: dynamics, H and its rank-revealing QR, then FinishPass.
  bool Iterate(TangentWorkspace& w, double h, double t1, const FixedStepState& s, bool refresh,
               WorkCounters& counters) const {
    const MechanicalDae& dae = w.dae;
    DaeWorkspace& ws = *w.ws;
    ++counters.newton_iterations, ++counters.rhs_evals;
    if (refresh) ++counters.jacobian_evals;

    // Dynamics at the iterate: M, Q (and, on a refresh, dQ/dq, dQ/dv, d(Ma)/dq).
    if (!w.mass_constant) {  // a constant M is evaluated once (Begin)
      dae.CalcMassMatrix(ws, w.x0, w.mass);
      w.mass_entries.Gather(w.mass);
    }
    dae.CalcForces(ws, t1, w.x0, w.v0, w.forces);
    if (refresh) {
      dae.CalcForceJacobians(ws, t1, w.x0, w.v0, w.dq, w.dv);
      dae.CalcMassTimesAccelerationJacobian(ws, w.x0, w.a0, w.dma);
    }

    // 1. Linearised constraints (eq. 32-33), factorisation and null space N_H.
    if (w.m > 0) dae.CalcPhiQ(ws, t1, w.x0, w.h_mat);
    w.Factor();
    ++counters.factorizations;
    if (w.m > 0) w.sparse_derivatives_valid = false;  // this pass's K, H' are the dense ones
    return FinishPass(w, h, t1, s, refresh, DenseOps{w}, [&] { RefreshDerivatives(w, t1); });
  }

  // The rest of a pass, the same on both routes: the multiplier of the iterate, the
  // derivative terms on a refresh, and steps 2-5 of Fig. 11.
  template <class Ops, class Refresh>
  bool FinishPass(TangentWorkspace& w, double h, double t1, const FixedStepState& s, bool refresh,
                  const Ops& ops, Refresh&& refresh_derivatives) const {
    const double beta = params_.beta, gamma = params_.gamma;
    const MechanicalDae& dae = w.dae;
    DaeWorkspace& ws = *w.ws;
    const int k = w.k;
    const auto& null_space = ops.null_space();  // a reference: no copy of N_H

    // Least-squares multiplier of the iterate: Phi_q^T lambda = Q - M a.
    w.residual = w.forces;
    ops.AddMass(-1.0, w.a0, w.residual);
    ops.SolveMultiplier(w.residual, w.lambda0);
    if (refresh) refresh_derivatives();

    // 2. Particular solutions. x_p is taken of minimum norm relative to the iterate
    //    (x_p - x0 = H^+ (-Phi(x0)), a solution of eq. 33 that differs from the minimum-norm
    //    one by N_H N_H^T x0, i.e. only by the origin of alpha), so that alpha and x0 - x_p
    //    stay of the size of a step instead of the size of x.
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
                      const Add& alpha1_dd) const {
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

  // Section 5: M_R = N^T M N, K_R = N^T K N + N^T C X'_p + N^T M X''_p1 at the iterate.
  // Returns this step's largest natural frequency (NaN if it could not be computed).
  template <class Ops>
  double TrackFrequency(TangentWorkspace& w, const Ops& ops) const {
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

  static bool ParseConvergenceTest(const std::string& name) {
    if (name != "contraction" && name != "change")
      throw InputError("convergence = '" + name + "': must be change or contraction");
    return name == "contraction";
  }

  NewmarkParameters params_;
  ConstraintSolves solves_;
  bool contraction_test_;  // `convergence=contraction` (NextChangeBelow) besides Fig. 11's test
};

}  // namespace

std::unique_ptr<Method> MakeTangentNewmark(const ParameterSet& p) {
  return std::make_unique<TangentNewmark>(p);
}

}  // namespace mbb
