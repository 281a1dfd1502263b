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
// has full row rank at the start). Both share FinishTangentPass, StateFromAlpha and
// TrackFrequency (tangent_pass.cc) through small operation structs (DenseOps, SparseOps,
// tangent_workspace.h); a pass whose H H^T the sparse route
// refuses (a singular position) runs on the dense route with fresh derivatives.
//
// Numerical rank: the rank-revealing factorisation of problems/core/constraint_factorization.h,
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

#include "methods/fixed_step_method.h"
#include "methods/newmark/newmark_common.h"
#include "methods/newmark/newmark_methods.h"
#include "methods/newmark/tangent_pass.h"
#include "methods/newmark/tangent_workspace.h"
#include "problems/core/invariant.h"

namespace mbb {
namespace {

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
    return FinishPass(w, h, t1, s, refresh, DenseOps{w}, [&] { RefreshTangentDerivatives(w, t1); });
  }

  // The rest of a pass, the same on both routes: the multiplier of the iterate, the
  // derivative terms on a refresh, and steps 2-5 of Fig. 11 (tangent_pass.h).
  template <class Ops, class Refresh>
  bool FinishPass(TangentWorkspace& w, double h, double t1, const FixedStepState& s, bool refresh,
                  const Ops& ops, Refresh&& refresh_derivatives) const {
    SolveTangentMultiplier(w, ops);
    if (refresh) refresh_derivatives();
    return FinishTangentPass(w, params_.beta, params_.gamma, h, t1, s, ops);
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
