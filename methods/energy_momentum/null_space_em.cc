// null-space-em: the discrete null space method of paper 002 (Betsch & Leyendecker 2006,
// section 2.2.2; Part I section 3.2): scheme (10) with the multipliers eliminated by a
// discrete null space matrix P, range(P) = null(G(q_{1/2})) (eq 11):
//   P^T [ M (v1 - v0) + h dV(q0, q1) - h Q_nc ] = 0      (n - m rows)
//   Phi(t1, q1) = 0                                      (m rows)
// for the n unknowns q1 (v1 = 2 (q1 - q0) / h - v0, discrete_gradient.h). This is the
// generic form for any problem the scheme applies to: P is the numerical null space of the
// mid-point Jacobian (right singular vectors of G(q_{1/2}) beyond its numerical rank, so
// redundant constraints are handled), not yet the explicit P_int P_ext of sections 3.3 and
// 4.3-4.5 nor the reparametrisations (44), (95), ... that shrink the unknowns to the
// degrees of freedom. Newton matrix (rows as above, impulse form, constraints unscaled):
//   [ P^T (2 M / h - h/2 dQ/dq - dQ/dv - 1/2 K(q_{1/2}, mu)) ]
//   [ G(q1)                                                 ]
// where the last term is the derivative of P^T along the iteration: P(q)^T G(q)^T mu = 0
// for every q gives d(P^T) r = -1/2 P^T K(q_{1/2}, mu) r at r = G^T mu, with mu the
// least-squares multiplier of r = G(q_{1/2})^T mu (mu = -h lambda) and K = d(G^T mu)/dq.
// Redundant constraint rows make the matrix rectangular; it is solved in least squares.
//
// Where the paper's explicit P and reparametrisation do not apply (closed chains such as
// the six-body linkage, non-tree models), the default takes the degrees of freedom as the
// unknowns through local coordinates of the constraint manifold instead (LocalStep):
//   q1 = q0 + U z + V y(z),  U, V bases of null(Phi_q(q0)) and of its row space,
// y(z) by Newton on Phi(t1, q1) = 0; the reduced equation is the same P(q_1/2)^T r(q1) = 0,
// d = n - rank equations in the d unknowns z. This solves the same discrete equations (10)
// as the generic form (the same q1 to the Newton tolerance) with as many unknowns as the
// paper's closed-chain form (190)-(192) has; it is not that form (joint angles with the
// closure solved by the symmetry of the linkage).
//
// The local-coordinate step has two routes for its linear algebra (`constraint_solves`):
// rank-revealing QRs of G^T with n x n bases (dense), or envelope factors on Phi_q's entries,
// Cholesky of G G^T and LU of G1 G0^T (null_space_sparse_system.h: the same equations and
// unknowns, bases that differ by d x d orthogonal factors, O(nnz) per basis column). `auto` takes
// the sparse route from 12 coordinates on; a step the sparse route refuses (a factor too close to
// singular, a lift that does not converge) runs dense.
#include <Eigen/QR>
#include <Eigen/SVD>
#include <algorithm>
#include <cmath>
#include <limits>

#include "methods/energy_momentum/discrete_gradient.h"
#include "methods/energy_momentum/energy_momentum_methods.h"
#include "methods/energy_momentum/null_space_sparse_system.h"
#include "methods/energy_momentum/spherical_tree.h"
#include "methods/fixed_step_method.h"
#include "problems/core/constraint_factorization.h"

namespace mbb {
namespace {

struct NullSpaceWorkspace final : FixedStepWorkspace {
  NullSpaceWorkspace(const Problem& p, bool extrapolate)
      : balance(p),
        kept(IndependentConstraintRows(*p.dae, balance.workspace(), p.t0, p.q0)),
        n(p.dae->num_coordinates()),
        m(static_cast<int>(kept.size())),
        m_all(p.dae->num_constraints()),
        r(n),
        phi(m),
        phi_all(m_all),
        mu(m),
        mu_all(m_all),
        g_mid(m, n),
        g_end(m, n),
        g_all(m_all, n),
        reaction(n, n),
        dq(n),
        g_svd(Matrix::Zero(std::max(m, 1), n)),
        jacobian(n, n),
        svd(std::max(m, 1), n, Eigen::ComputeFullV | Eigen::ComputeThinU),
        condition_svd(n + m, n),
        start_qr(m, n),
        mid_qr(m, n),
        start(n, extrapolate),
        mean_velocity(n) {}
  MidpointBalance balance;
  std::vector<int> kept;  // independent constraint rows (IndependentConstraintRows)
  int n, m, m_all;
  Vector r, phi, phi_all, mu, mu_all;
  Matrix g_mid, g_end, g_all, reaction, null_space, iteration;
  Vector residual, delta;
  double condition_first = -1.0, condition_max = 0.0, condition_last = -1.0;
  double energy_residual_max = 0.0;  // StepEnergyResidual over the run
  // The explicit S-pair null space and reparametrisation where the model allows it
  // (spherical_tree.h); null: the generic numerical null space.
  std::unique_ptr<SphericalTree> tree;
  Matrix reduced_p, reduced_f;
  Vector increments, q_trial;
  // The explicit path's scratch (sized on first use).
  Vector q1, q_plus, q_minus, shifted, velocity, neg_residual;
  Matrix projected;  // P^T (dr/dq1 - 1/2 K), dof x n
  Eigen::ColPivHouseholderQR<Matrix> reduced_qr, multiplier_qr;
  Eigen::PartialPivLU<Matrix> reduced_lu;
  // The generic path's scratch, sized once: its Newton loop allocates nothing.
  Vector dq;
  Matrix g_svd;     // G(q_{1/2}) (kept rows), or one zero row without constraints
  Matrix jacobian;  // dr/dq1 - 1/2 K
  Eigen::JacobiSVD<Matrix> svd;
  Eigen::ColPivHouseholderQR<Matrix> solver;
  Eigen::JacobiSVD<Matrix> condition_svd;
  // The local-coordinate path's bases and scratch (LocalStep).
  Matrix basis_u, basis_v, lift_matrix, dq_dz, lift_rhs;
  Vector z, y, lift_delta, lift_column;
  // G's rank-revealing QR (constraint_factorization.h) at q0 and at q_{1/2}: bases and
  // multipliers at a fraction of a full SVD's cost (the SVD was 72 % of a double four-bar step).
  ConstraintFactorization start_qr, mid_qr;
  Eigen::ColPivHouseholderQR<Matrix> lift_qr;
  bool lift_qr_valid = false;  // lift_qr factors G(q1) V for this step's V at a recent q1
  int newton_unknowns = 0;     // the largest per step (Finish)
  // The local-coordinate step's sparse route (null_space_sparse_system.h); null: dense.
  std::unique_ptr<NullSpaceSparseSystem> sparse;
  long sparse_steps = 0, dense_fallbacks = 0;
  // The first iterate q1 = q0 + h mean_velocity (`predictor`, MidpointStart).
  MidpointStart start;
  Vector mean_velocity;
};

class NullSpaceEm final : public FixedStepMethod {
 public:
  // explicit: the paper's P where a tree allows it, else local coordinates; local: local
  // coordinates everywhere; generic: the n-unknown form everywhere.
  enum class Mode { kExplicit, kLocal, kGeneric };
  NullSpaceEm(const MidpointNewton& newton, Mode mode, ConstraintSolves solves)
      : newton_(newton), mode_(mode), solves_(solves) {}

  std::string CheckApplicable(const Problem& problem) const override {
    return CheckMidpointSchemeApplicable(problem);
  }

 protected:
  std::unique_ptr<FixedStepWorkspace> Begin(const Problem& problem, double /*h*/,
                                            FixedStepState& state, WorkCounters& /*counters*/,
                                            std::string& /*error*/) const override {
    auto ws = std::make_unique<NullSpaceWorkspace>(problem, newton_.extrapolate_start);
    if (mode_ == Mode::kExplicit) ws->tree = SphericalTree::Make(problem);
    if (!ws->tree && mode_ != Mode::kGeneric)
      ws->sparse = NullSpaceSparseSystem::Make(*problem.dae, ws->kept, solves_);
    ws->start.Begin(state.v);
    state.lambda = Vector::Zero(ws->m_all);
    state.has_multipliers = ws->m_all > 0;
    return ws;
  }

  StepStatus Step(FixedStepWorkspace& base, double h, FixedStepState& state,
                  WorkCounters& counters) const override {
    auto& w = MBB_DOWNCAST(NullSpaceWorkspace, base);
    w.mean_velocity = w.start.MeanVelocity(h, state.v);
    const StepStatus status = StepOnRoute(w, h, state, counters);
    if (status.ok) w.start.Accept(state.v, h);
    return status;
  }

  // Step from the first iterate q0 + h mean_velocity: the paper's reparametrisation where
  // the model is a tree, else local coordinates (sparse or dense route), else (and at a
  // singular position) the generic n-unknown form.
  StepStatus StepOnRoute(NullSpaceWorkspace& w, double h, FixedStepState& state,
                         WorkCounters& counters) const {
    w.balance.BeginStep(state.t, h, state.q, state.v);
    if (w.tree) return ReducedStep(w, h, state, counters);
    if (mode_ != Mode::kGeneric && w.m > 0) {
      if (w.sparse) {
        if (SparseLocalStep(w, h, state, counters)) {
          ++w.sparse_steps;
          return StepStatus::Ok();
        }
        ++w.dense_fallbacks;
        w.balance.BeginStep(state.t, h, state.q, state.v);
      }
      bool rank_changed = false;
      const StepStatus local = LocalStep(w, h, state, counters, rank_changed);
      if (!rank_changed) return local;
      w.balance.BeginStep(state.t, h, state.q, state.v);  // a singular position: generic
    }
    return GenericStep(w, h, state, counters);
  }

  StepStatus GenericStep(NullSpaceWorkspace& w, double h, FixedStepState& state,
                         WorkCounters& counters) const {
    const MechanicalDae& dae = w.balance.dae();
    DaeWorkspace& dws = w.balance.workspace();
    const int n = w.n, m = w.m;
    w.newton_unknowns = std::max(w.newton_unknowns, n);
    Vector& dq = w.dq;
    dq = h * w.mean_velocity;  // predictor of the increment q1 - q0
    bool polish = false;
    for (int it = 0; it < newton_.max_iterations; ++it) {
      w.balance.ResidualFromStep(dq, w.r);
      const Vector& q1 = w.balance.q1();
      dae.CalcPhiQ(dws, w.balance.t_mid(), w.balance.q_mid(), w.g_all);
      SelectRows(w.g_all, w.kept, w.g_mid);
      dae.CalcPhi(dws, w.balance.t1(), q1, w.phi_all);
      SelectRows(w.phi_all, w.kept, w.phi);
      dae.CalcPhiQ(dws, w.balance.t1(), q1, w.g_all);
      SelectRows(w.g_all, w.kept, w.g_end);
      // Discrete null space matrix (eq 11) and the least-squares multiplier of r.
      // (A problem without constraints: one zero row, whose null space is all of R^n.)
      if (m > 0) w.g_svd = w.g_mid;
      Eigen::JacobiSVD<Matrix>& svd = w.svd;
      svd.compute(w.g_svd, Eigen::ComputeFullV | Eigen::ComputeThinU);
      const auto& s = svd.singularValues();
      int rank = 0;
      for (int i = 0; i < s.size(); ++i)
        if (s[i] > 1e-10 * std::max(1.0, s.size() ? s[0] : 1.0)) ++rank;
      w.null_space = svd.matrixV().rightCols(n - rank);
      // mu = U_r S_r^-1 V_r^T r: the minimum-norm least-squares solution of G^T mu = r.
      w.mu.setZero();
      for (int i = 0; i < rank; ++i)
        w.mu += (svd.matrixV().col(i).dot(w.r) / s[i]) * svd.matrixU().col(i);
      ScatterMultiplier(w);
      if (m > 0)
        w.balance.ReactionStiffness(w.mu_all, w.reaction);
      else
        w.reaction.setZero();
      const int rows = (n - rank) + m;
      w.iteration.resize(rows, n);
      w.residual.resize(rows);
      w.jacobian = w.balance.Jacobian() - 0.5 * w.reaction;
      w.iteration.topRows(n - rank).noalias() = w.null_space.transpose() * w.jacobian;
      w.iteration.bottomRows(m) = w.g_end;
      w.residual.head(n - rank).noalias() = w.null_space.transpose() * w.r;
      w.residual.tail(m) = w.phi;
      if (it == 0 && ConditionDue(w)) RecordCondition(w);
      w.solver.compute(w.iteration);
      ++counters.factorizations;
      ++counters.jacobian_evals;
      w.residual = -w.residual;
      w.delta.resize(n);
      SolveWithQr(w.solver, w.residual, w.delta);
      ++counters.newton_iterations;
      if (!w.delta.allFinite())
        return StepStatus::Failed("null-space-em: singular iteration matrix");
      dq += w.delta;
      if (Converged(w, q1, polish)) {
        w.balance.ResidualFromStep(dq, w.r);
        FinishStep(w, h, state);
        return StepStatus::Ok();
      }
    }
    return StepStatus::Failed("null-space-em: Newton did not converge in " +
                              std::to_string(newton_.max_iterations) + " iterations");
  }

  // Paper 002 s2.2.2 with the explicit P (eq 92) and the reparametrisation q1 = F(mu)
  // (eqs 44, 95): P(q_1/2)^T r(F(mu)) = 0, dof equations in dof unknowns; the constraints
  // hold by construction. Newton matrix P^T (dr/dq1 - 1/2 K(q_1/2, mu_G)) dF/dmu (the
  // second term as in the generic form), dF/dmu by central differences (step 1e-6: error
  // 1e-12 relative, enough for the Newton matrix only; the residual is exact).
  StepStatus ReducedStep(NullSpaceWorkspace& w, double h, FixedStepState& state,
                         WorkCounters& counters) const {
    const MechanicalDae& dae = w.balance.dae();
    DaeWorkspace& dws = w.balance.workspace();
    const int n = w.n, dof = w.tree->dof();
    // Predictor: the generalised velocities of the start's mean velocity times h
    // (P(q0) w = mean_velocity).
    w.tree->NullSpace(state.q, w.reduced_p);
    w.reduced_qr.compute(w.reduced_p);
    w.velocity = w.mean_velocity;
    Vector& increments = w.increments;
    increments.resize(dof);
    SolveWithQr(w.reduced_qr, w.velocity, increments);
    increments *= h;
    w.tree->WrapRotations(increments);
    Vector& q1 = w.q1;
    Vector& q_plus = w.q_plus;
    Vector& q_minus = w.q_minus;
    q1.resize(n);
    q_plus.resize(n);
    q_minus.resize(n);
    w.reduced_f.resize(n, dof);
    for (int it = 0; it < newton_.max_iterations; ++it) {
      w.tree->Configuration(state.q, increments, q1);
      w.balance.Residual(q1, w.r);
      w.tree->NullSpace(w.balance.q_mid(), w.reduced_p);
      for (int j = 0; j < dof; ++j) {
        const double step = 1e-6;
        Vector& shifted = w.shifted;
        shifted = increments;
        shifted[j] += step;
        w.tree->Configuration(state.q, shifted, q_plus);
        shifted[j] -= 2.0 * step;
        w.tree->Configuration(state.q, shifted, q_minus);
        w.reduced_f.col(j) = (q_plus - q_minus) / (2.0 * step);
      }
      w.balance.Residual(q1, w.r);  // restores q_mid and v1 of q1
      dae.CalcPhiQ(dws, w.balance.t_mid(), w.balance.q_mid(), w.g_all);
      SelectRows(w.g_all, w.kept, w.g_mid);
      SolveMultiplier(w);  // r = G^T mu
      w.balance.ReactionStiffness(w.mu_all, w.reaction);
      w.jacobian = w.balance.Jacobian() - 0.5 * w.reaction;
      if (!ReducedCorrection(w, w.reduced_p, w.reduced_f, it, counters))
        return StepStatus::Failed("null-space-em: singular reduced matrix");
      increments += w.delta;
      w.tree->WrapRotations(increments);  // the same q1, away from |theta| = 2 pi
      if (w.delta.lpNorm<Eigen::Infinity>() <=
          newton_.tol * (1.0 + increments.lpNorm<Eigen::Infinity>())) {
        w.tree->Configuration(state.q, increments, q1);
        w.balance.Residual(q1, w.r);
        return AcceptStep(w, h, state);
      }
    }
    return StepStatus::Failed(
        "null-space-em (explicit S-pair null space): Newton did not converge in " +
        std::to_string(newton_.max_iterations) + " iterations");
  }

  // The degrees of freedom as unknowns through local coordinates (header comment):
  // Newton on z with the matrix P^T (dr/dq1 - 1/2 K) dq1/dz, dq1/dz = U - V (Phi_q V)^+
  // Phi_q U at q1 (implicit function theorem; P's variation along the iteration left out as
  // in the other forms). `rank_changed`: G(q_1/2) and Phi_q(q0) differ in rank (a singular
  // position), the caller takes the generic form for this step.
  StepStatus LocalStep(NullSpaceWorkspace& w, double h, FixedStepState& state,
                       WorkCounters& counters, bool& rank_changed) const {
    const MechanicalDae& dae = w.balance.dae();
    DaeWorkspace& dws = w.balance.workspace();
    const int n = w.n;
    const double t1 = state.t + h;
    // Bases at q0: the right singular vectors of Phi_q(q0) (kept rows).
    dae.CalcPhiQ(dws, state.t, state.q, w.g_all);
    SelectRows(w.g_all, w.kept, w.g_end);
    w.start_qr.Compute(w.g_end);
    w.start_qr.FormBases();
    const int rank = w.start_qr.rank();
    const int d = n - rank;
    w.basis_u = w.start_qr.null_space_basis();
    w.basis_v = w.start_qr.range_basis();
    w.newton_unknowns = std::max(w.newton_unknowns, d);
    w.lift_delta.resize(rank);  // SolveWithQr writes x in place (no-op after the first step)
    w.lift_qr_valid = false;    // new bases
    // Predictor: the increment h mean_velocity split along the bases.
    w.z.noalias() = w.basis_u.transpose() * w.mean_velocity;
    w.z *= h;
    w.y.noalias() = w.basis_v.transpose() * w.mean_velocity;
    w.y *= h;
    Vector& q1 = w.q1;
    bool polish = false;
    for (int it = 0; it < newton_.max_iterations; ++it) {
      if (!Lift(w, t1, state.q, q1)) return StepStatus::Failed(kLiftFailed);
      w.balance.ResidualFromStep(w.dq, w.r);
      dae.CalcPhiQ(dws, w.balance.t_mid(), w.balance.q_mid(), w.g_all);
      SelectRows(w.g_all, w.kept, w.g_mid);
      w.mid_qr.Compute(w.g_mid);
      if (w.mid_qr.rank() != rank) {
        rank_changed = true;
        return StepStatus::Ok();
      }
      w.mid_qr.FormBases();
      w.null_space = w.mid_qr.null_space_basis();
      // The least-squares multiplier of G^T mu = r. G's rows are the independent ones
      // (IndependentConstraintRows), so away from singular positions the rank is m and this
      // is the minimum-norm multiplier; mu enters only the Newton matrix (reaction term).
      w.mid_qr.SolveMultipliers(w.r, w.mu);
      ScatterMultiplier(w);
      w.balance.ReactionStiffness(w.mu_all, w.reaction);
      w.jacobian = w.balance.Jacobian() - 0.5 * w.reaction;
      // dq1/dz at q1.
      dae.CalcPhiQ(dws, t1, q1, w.g_all);
      SelectRows(w.g_all, w.kept, w.g_end);
      w.lift_matrix.noalias() = w.g_end * w.basis_v;
      w.lift_qr.compute(w.lift_matrix);
      w.lift_qr_valid = true;  // the next Lift starts from it
      w.lift_rhs.noalias() = w.g_end * w.basis_u;
      w.dq_dz = w.basis_u;
      for (int j = 0; j < d; ++j) {
        w.lift_column = w.lift_rhs.col(j);
        SolveWithQr(w.lift_qr, w.lift_column, w.lift_delta);
        w.dq_dz.col(j).noalias() -= w.basis_v * w.lift_delta;
      }
      if (!ReducedCorrection(w, w.null_space, w.dq_dz, it, counters))
        return StepStatus::Failed("null-space-em: singular reduced matrix");
      w.z += w.delta;
      if (Converged(w, q1, polish)) {
        if (!Lift(w, t1, state.q, q1)) return StepStatus::Failed(kLiftFailed);
        w.balance.ResidualFromStep(w.dq, w.r);
        return AcceptStep(w, h, state);
      }
    }
    return StepStatus::Failed("null-space-em (local coordinates): Newton did not converge in " +
                              std::to_string(newton_.max_iterations) + " iterations");
  }

  // LocalStep on the sparse route (null_space_sparse_system.h): the same Newton iteration on
  // z. False, with the state untouched, where the route refuses (a factor too close to
  // singular, a lift that does not converge) or Newton does not converge: the
  // caller then takes the dense form for this step.
  bool SparseLocalStep(NullSpaceWorkspace& w, double h, FixedStepState& state,
                       WorkCounters& counters) const {
    DaeWorkspace& dws = w.balance.workspace();
    NullSpaceSparseSystem& sparse = *w.sparse;
    const double t1 = state.t + h;
    w.newton_unknowns = std::max(w.newton_unknowns, sparse.dof());
    if (!sparse.BeginStep(dws, state.t, state.q, w.mean_velocity, h, w.z, w.y)) return false;
    Vector& q1 = w.q1;
    bool polish = false;
    for (int it = 0; it < newton_.max_iterations; ++it) {
      if (!sparse.Lift(dws, t1, state.q, w.z, w.y, w.dq, q1)) return false;
      w.balance.ResidualFromStep(w.dq, w.r);
      if (!sparse.Midpoint(dws, w.balance.t_mid(), w.balance.q_mid(), w.r, w.mu)) return false;
      ScatterMultiplier(w);
      w.balance.ReactionStiffness(w.mu_all, w.reaction);
      w.jacobian = w.balance.Jacobian() - 0.5 * w.reaction;
      if (!sparse.TangentMap(dws, t1, q1, w.dq_dz)) return false;
      if (!ReducedCorrection(w, sparse.null_space(), w.dq_dz, it, counters)) return false;
      w.z += w.delta;
      if (Converged(w, q1, polish)) {
        if (!sparse.Lift(dws, t1, state.q, w.z, w.y, w.dq, q1)) return false;
        w.balance.ResidualFromStep(w.dq, w.r);
        if (!sparse.Midpoint(dws, w.balance.t_mid(), w.balance.q_mid(), w.r, w.mu)) return false;
        ScatterMultiplier(w);
        FinishStep(w, h, state);
        return true;
      }
    }
    return false;
  }

  // q1 = q0 + U z + V y with y from Phi(t1, q1) = 0 (least squares on the kept rows: the
  // row space's coordinates), warm-started from the last y. A chord iteration: the matrix
  // G(q1) V is the one factored last in this step (at the previous iterate's q1, whose
  // distance to this one is a Newton correction), refactored where an iteration contracts
  // by less than kLiftContraction and for the final correction past kLiftTolerance (a
  // Newton step, as before, so that Phi ends at rounding). It converges to the same y (the
  // residual is exact); a QR per lift pass was a fifth of a step on the double four-bar
  // (280 -> 220 us per step; energy drift over 10 s at h = 0.01 within rounding of before,
  // 4e-13 and 1.3e-12 J, both from one step at the singular position).
  bool Lift(NullSpaceWorkspace& w, double t1, const Vector& q0, Vector& q1) const {
    const MechanicalDae& dae = w.balance.dae();
    DaeWorkspace& dws = w.balance.workspace();
    bool polished = false;
    double previous_residual = std::numeric_limits<double>::infinity();
    for (int k = 0; k < kLiftIterations; ++k) {
      // The increment itself, not q1 - q0: v1 = 2 (q1 - q0) / h - v0 would carry the
      // rounding of q1 times 2 / h into the energy (1e-13 J per step on the planar pendulum).
      w.dq.noalias() = w.basis_u * w.z;
      w.dq.noalias() += w.basis_v * w.y;
      q1 = q0 + w.dq;
      dae.CalcPhi(dws, t1, q1, w.phi_all);
      SelectRows(w.phi_all, w.kept, w.phi);
      const double scale = 1.0 + q1.lpNorm<Eigen::Infinity>();
      const double residual = w.phi.lpNorm<Eigen::Infinity>();
      // One correction past the tolerance (quadratic convergence takes Phi to rounding):
      // the planar pendulum's |Phi| over 20 s 1.3e-15 instead of 1.7e-14.
      if (residual <= kLiftTolerance * scale) {
        if (polished || residual <= 4.0 * std::numeric_limits<double>::epsilon() * scale)
          return true;
        polished = true;
      }
      if (polished || !w.lift_qr_valid || residual > kLiftContraction * previous_residual) {
        dae.CalcPhiQ(dws, t1, q1, w.g_all);
        SelectRows(w.g_all, w.kept, w.g_end);
        w.lift_matrix.noalias() = w.g_end * w.basis_v;
        w.lift_qr.compute(w.lift_matrix);
        w.lift_qr_valid = true;
      }
      previous_residual = residual;
      w.lift_column = w.phi;
      SolveWithQr(w.lift_qr, w.lift_column, w.lift_delta);
      w.y -= w.lift_delta;
      if (!w.y.allFinite()) return false;
    }
    return false;
  }

  void Finish(FixedStepWorkspace& base, std::map<std::string, double>& metrics) const override {
    auto& w = MBB_DOWNCAST(NullSpaceWorkspace, base);
    metrics["newton_unknowns"] = w.tree ? w.tree->dof() : w.newton_unknowns;
    metrics["iteration_matrix_condition.first"] = w.condition_first;
    metrics["iteration_matrix_condition.max"] = w.condition_max;
    // The last step's (at t_end: paper 002's Table V is at t = 0.04).
    metrics["iteration_matrix_condition.last"] = w.condition_last;
    metrics["step_energy_residual_max"] = w.energy_residual_max;
    if (w.sparse) {
      metrics["steps_sparse"] = static_cast<double>(w.sparse_steps);
      metrics["steps_dense_fallback"] = static_cast<double>(w.dense_fallbacks);
      metrics["lift_iterations_max"] = w.sparse->max_lift_iterations();
    }
  }

 private:
  // The step's end with the balance at the converged q1: multipliers, the energy residual,
  // the state.
  StepStatus AcceptStep(NullSpaceWorkspace& w, double h, FixedStepState& state) const {
    w.balance.dae().CalcPhiQ(w.balance.workspace(), w.balance.t_mid(), w.balance.q_mid(), w.g_all);
    SelectRows(w.g_all, w.kept, w.g_mid);
    SolveMultiplier(w);
    FinishStep(w, h, state);
    return StepStatus::Ok();
  }

  // The state from the balance at the converged q1 and the multipliers in mu_all.
  static void FinishStep(NullSpaceWorkspace& w, double h, FixedStepState& state) {
    w.energy_residual_max = std::max(w.energy_residual_max, w.balance.StepEnergyResidual());
    state.v = w.balance.v1();
    state.q = w.balance.q1();
    state.lambda = -w.mu_all / h;  // r = G^T mu = -h G^T lambda (10.2)
    state.t += h;
  }

  // mu (and mu_all) from r = G(q_{1/2})^T mu in least squares (the kept rows of g_mid).
  static void SolveMultiplier(NullSpaceWorkspace& w) {
    w.multiplier_qr.compute(w.g_mid.transpose());
    w.velocity = w.r;  // scratch of size n: overwritten with Q^T r
    SolveWithQr(w.multiplier_qr, w.velocity, w.mu);
    ScatterMultiplier(w);
  }

  // mu_all: mu on the kept rows, zero on the redundant ones.
  static void ScatterMultiplier(NullSpaceWorkspace& w) {
    w.mu_all.setZero();
    for (int i = 0; i < w.m; ++i) w.mu_all[w.kept[i]] = w.mu[i];
  }

  // Newton's stop: converged one iteration after the change w.delta first falls below tol
  // (relative to 1 + |q1|). The Newton matrix is approximate (P varies along the iteration),
  // so convergence is fast-linear, and the extra iteration keeps the energy and momentum
  // errors at rounding level (a random walk otherwise).
  bool Converged(const NullSpaceWorkspace& w, const Vector& q1, bool& polish) const {
    if (w.delta.lpNorm<Eigen::Infinity>() > newton_.tol * (1.0 + q1.lpNorm<Eigen::Infinity>()))
      return false;
    if (polish) return true;
    polish = true;
    return false;
  }

  // One correction of the reduced Newton iteration (ReducedStep, LocalStep, SparseLocalStep):
  // delta solves P^T (dr/dq1 - 1/2 K) T delta = -P^T r, T = dq1/d(unknowns), with w.jacobian
  // holding dr/dq1 - 1/2 K. False if the matrix is singular.
  bool ReducedCorrection(NullSpaceWorkspace& w, const Matrix& p, const Matrix& tangent, int it,
                         WorkCounters& counters) const {
    w.projected.noalias() = p.transpose() * w.jacobian;
    w.iteration.noalias() = w.projected * tangent;
    w.residual.noalias() = p.transpose() * w.r;
    if (it == 0 && ConditionDue(w)) RecordCondition(w);
    w.reduced_lu.compute(w.iteration);
    w.neg_residual = -w.residual;
    w.delta = w.reduced_lu.solve(w.neg_residual);
    ++counters.factorizations;
    ++counters.jacobian_evals;
    ++counters.newton_iterations;
    return w.delta.allFinite();
  }

  // The condition number (a metric only) at this step's first iteration: every step or the
  // first, and not in the harness's timed repeats (RunSettings::diagnostics).
  bool ConditionDue(const NullSpaceWorkspace& w) const {
    return w.diagnostics && (newton_.condition_every_step || w.condition_first < 0.0);
  }

  static void RecordCondition(NullSpaceWorkspace& w) {
    const double c = ConditionNumber2(w.condition_svd, w.iteration);
    if (w.condition_first < 0.0) w.condition_first = c;
    w.condition_max = std::max(w.condition_max, c);
    w.condition_last = c;
  }

  static constexpr const char* kLiftFailed =
      "null-space-em: the local coordinates' constraint solve did not converge";
  // The lift's Newton: quadratic convergence from a predictor O(h^2) off the manifold.
  static constexpr int kLiftIterations = 20;
  // A chord iteration that shrinks the residual by less than this refactors (Lift).
  static constexpr double kLiftContraction = 0.1;
  static constexpr double kLiftTolerance = 1e-14;

  MidpointNewton newton_;
  Mode mode_;
  ConstraintSolves solves_;
};

}  // namespace

std::unique_ptr<Method> MakeNullSpaceEm(const ParameterSet& params) {
  const std::string mode = params.GetString("null_space", "explicit");
  return std::make_unique<NullSpaceEm>(
      MidpointNewton::FromParameters(params),
      mode == "generic" ? NullSpaceEm::Mode::kGeneric
      : mode == "local" ? NullSpaceEm::Mode::kLocal
                        : NullSpaceEm::Mode::kExplicit,
      ParseConstraintSolves(params.GetString("constraint_solves", "auto")));
}

}  // namespace mbb
