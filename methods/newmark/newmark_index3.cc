// Classical displacement-based index-3 Newmark with Lagrange multipliers: the baseline of
// paper 001, section 2 (Fig. 1 "typical integration algorithm", eqs. 7 and 10) whose
// stability section 4 analyses (eqs. 28-30).
//
// Unknowns q_{n+1} and lambda_{n+1}; a_{n+1} and v_{n+1} follow from the Newmark formulas
// (newmark_common.h) as functions of q_{n+1}:
//   a = (q - q_pred) / (beta h^2),  q_pred = q_n + h v_n + (1/2 - beta) h^2 a_n
//   v = v_pred + gamma h a,         v_pred = v_n + (1 - gamma) h a_n.
// Equations at t_{n+1}: the equilibrium M(q) a + Phi_q^T lambda - Q(t, q, v) = 0 (eq. 7 with
// the constraint forces; this suite's sign convention for lambda, mechanical_dae.h) and the
// position constraints Phi(t, q) = 0 (eq. 10). Newton on [q, lambda] with the tangent
// matrix (eq. 28/29 with the linearised terms of eq. 6):
//   [ K_T     Phi_q^T ] [dq     ]     [ r   ]
//   [ Phi_q   0       ] [dlambda] = - [ Phi ],
//   K_T = M/(beta h^2) + d(M a)/dq + d(Phi_q^T lambda)/dq - dQ/dq - gamma/(beta h) dQ/dv,
// where d(Phi_q^T lambda)/dq is the reaction stiffness. The first block row is scaled by
// beta h^2 (and dlambda by 1/(beta h^2)) for conditioning; this does not change the iterates.
// Only position constraints are imposed, so velocity and acceleration constraints are not
// met (paper 001, s2: 3N + N_R unknowns for 3N + 3N_R equations).
//
// Modified Newton: d(M a)/dq, dQ/dq, dQ/dv and the reaction stiffness are evaluated at the
// first iterate of a step and kept while each correction shrinks by at least
// kSlowContraction and stays below kLargeCorrection (else refreshed); M, Q, Phi and Phi_q
// are fresh at every iterate (`derivatives=reuse`: kept across steps too, while the last
// pass of a step contracted well). Paper 001 obtains the linearised terms "in a numerical way"
// and iterates (section 2, after eq. 6); the residual is exact, so the converged step is
// the same to the tolerance.
//
// The linear algebra (`constraint_solves`): the dense (n + m)^2 matrix and its LU, or on
// long chains the same matrix from entries by envelope LU (methods/common/sparse_kkt_system.h,
// a pass it refuses solved densely). Redundant constraints (Bricard) make the matrix
// singular: the dense route then imposes a maximal independent subset of the rows, chosen at
// the start (IndependentConstraintRows), the others' multipliers zero.
//
// Stability: with rigid constraints the constrained directions have omega = infinity (eq. 30),
// so a scheme with gamma/2 - beta > 0 (Fox-Goodwin) is unstable at every h; the multipliers
// and accelerations then grow by the spectral radius of the Newmark recursion with
// q_{n+1} = q_n = 0 in those directions: 9.899 per step for Fox-Goodwin (derivation in
// tests/test_newmark.cc).
#include <cmath>
#include <limits>
#include <numeric>
#include <string>

#include "methods/common/acceleration_solver.h"
#include "methods/common/extrapolator.h"
#include "methods/common/sparse_kkt_system.h"
#include "methods/fixed_step_method.h"
#include "methods/newmark/newmark_common.h"
#include "methods/newmark/newmark_methods.h"
#include "problems/core/constraint_factorization.h"
#include "problems/core/invariant.h"

namespace mbb {
namespace {

struct Index3Workspace final : FixedStepWorkspace {
  // The dense n x n matrices only on the dense route; the (n + m)^2 iteration matrix and
  // its LU on both (the sparse route falls back to them for a system it refuses).
  // `kept`: the constraint rows imposed (all m, or an independent subset on the dense route).
  Index3Workspace(const Problem& p, int n, int m, std::unique_ptr<SparseKktSystem> sparse_kkt,
                  std::vector<int> kept_rows, bool extrapolate)
      : dae(*p.dae),
        ws(dae.MakeWorkspace()),
        sparse(std::move(sparse_kkt)),
        kept(std::move(kept_rows)),
        drops_rows(static_cast<int>(kept.size()) < m),
        mass(DenseSize(n), DenseSize(n)),
        dq(DenseSize(n), DenseSize(n)),
        dv(DenseSize(n), DenseSize(n)),
        dma(DenseSize(n), DenseSize(n)),
        reaction(DenseSize(n), DenseSize(n)),
        phi_q(DenseSize(Kept()), DenseSize(n)),
        phi_q_all(drops_rows ? DenseSize(m) : 0, drops_rows ? DenseSize(n) : 0),
        kkt(n + Kept(), n + Kept()),
        lu(n + Kept()),
        forces(n),
        phi(Kept()),
        phi_all(drops_rows ? m : 0),
        lambda_kept(drops_rows ? DenseSize(Kept()) : 0),
        rhs(n + Kept()),
        delta(n + Kept()),
        q_pred(n),
        v_pred(n),
        a_start(n),
        acceleration_history(n, extrapolate),
        multiplier_history(m, extrapolate) {
    if (sparse) {
      const size_t entries = sparse->matrix_entries().size();
      mass_values.resize(entries);
      stiffness_values.resize(entries);
      damping_values.resize(entries);
    }
  }
  int DenseSize(int size) const { return sparse ? 0 : size; }
  int Kept() const { return static_cast<int>(kept.size()); }

  const MechanicalDae& dae;
  std::unique_ptr<DaeWorkspace> ws;
  std::unique_ptr<SparseKktSystem> sparse;  // null: the dense route
  // Redundant constraints (Bricard's closure) make the Newton matrix singular; the dense
  // route then imposes an independent subset of the rows (IndependentConstraintRows at the
  // start), whose multipliers carry the reactions (the others' stay zero).
  std::vector<int> kept;
  bool drops_rows;
  Matrix mass, dq, dv, dma, reaction, phi_q, phi_q_all, kkt;
  Eigen::PartialPivLU<Matrix> lu;
  Vector forces, phi, phi_all, lambda_kept, rhs, delta, q_pred, v_pred, a_start;
  // The first iterate's a_{n+1} and lambda_{n+1} (`predictor`, extrapolator.h).
  Extrapolator acceleration_history, multiplier_history;
  // The sparse route: M, d(M a)/dq + d(Phi_q^T lambda)/dq - dQ/dq and -dQ/dv on the tangent
  // pattern (their sum is K_T); Phi_q's entries live in `sparse`.
  std::vector<double> mass_values, stiffness_values, damping_values;
  long sparse_solves = 0, dense_fallbacks = 0;  // the sparse route's, and those it refused
  bool derivatives_reusable = false;  // `derivatives=reuse`: the last step contracted well
};

class NewmarkIndex3 final : public FixedStepMethod {
 public:
  explicit NewmarkIndex3(const ParameterSet& p)
      : params_(NewmarkParameters::FromParameters(p, true)),
        solves_(ParseConstraintSolves(p.GetString("constraint_solves", "auto"))) {}

 protected:
  std::unique_ptr<FixedStepWorkspace> Begin(const Problem& problem, double, FixedStepState& s,
                                            WorkCounters& counters,
                                            std::string& error) const override {
    auto sparse = SparseKktSystem::Make(*problem.dae, solves_);
    std::vector<int> kept(problem.m());
    std::iota(kept.begin(), kept.end(), 0);
    if (problem.m() > 0) {
      auto start_ws = problem.dae->MakeWorkspace();
      // Redundant rows: an independent subset on either route (the dense one finds out by
      // its QR; the sparse one by the rank of S, to keep the O(n m^2) QR off a large model
      // that has none).
      if (!sparse || ConstraintRankAt(*problem.dae, *start_ws, s.t, s.q) < problem.m())
        kept = IndependentConstraintRows(*problem.dae, *start_ws, s.t, s.q);
      if (sparse && static_cast<int>(kept.size()) < problem.m())
        sparse = SparseKktSystem::Make(*problem.dae, solves_, kept);
    }
    auto w = std::make_unique<Index3Workspace>(problem, problem.n(), problem.m(), std::move(sparse),
                                               std::move(kept), params_.extrapolate_start);
    if (!StartFromIndex1Solution(w->dae, *w->ws, s, counters, error)) return nullptr;
    if (w->drops_rows) KeptRowMultipliers(*w, s);
    w->acceleration_history.Start(s.a);
    w->multiplier_history.Start(s.lambda);
    return w;
  }

  StepStatus Step(FixedStepWorkspace& workspace, double h, FixedStepState& s,
                  WorkCounters& counters) const override {
    auto& w = MBB_DOWNCAST(Index3Workspace, workspace);
    const int n = static_cast<int>(s.q.size());
    const double beta = params_.beta, gamma = params_.gamma, t1 = s.t + h;
    const double bh2 = beta * h * h;
    w.q_pred.noalias() = s.q + h * s.v + (0.5 - beta) * h * h * s.a;
    w.v_pred.noalias() = s.v + (1.0 - gamma) * h * s.a;
    // Start from a_{n+1} = a_n and lambda_{n+1} = lambda_n, or their extrapolations from the
    // last steps (`predictor`, extrapolator.h).
    w.acceleration_history.Predict(h, w.a_start);
    w.multiplier_history.Predict(h, s.lambda);
    s.q.noalias() = w.q_pred + bh2 * w.a_start;
    // Modified Newton (header comment): derivative terms at the first iterate, refreshed
    // only when an iteration contracts slowly.
    bool refresh = !(params_.reuse_derivatives && w.derivatives_reusable);
    w.derivatives_reusable = false;
    double previous_norm = std::numeric_limits<double>::infinity();
    for (int k = 0; k < params_.max_iterations; ++k) {
      s.a = (s.q - w.q_pred) / bh2;
      s.v.noalias() = w.v_pred + gamma * h * s.a;
      ++counters.rhs_evals, ++counters.newton_iterations;
      if (refresh) ++counters.jacobian_evals;
      if (w.sparse)
        SolveSparse(w, t1, bh2, gamma * h, refresh, s);
      else
        SolveDense(w, t1, bh2, gamma * h, refresh, s);
      ++counters.factorizations;
      if (!w.delta.allFinite())
        return StepStatus::Failed("singular iteration matrix (redundant constraints?)");
      s.q += w.delta.head(n);
      for (int i = 0; i < w.Kept(); ++i) s.lambda[w.kept[i]] += w.delta[n + i] / bh2;
      // Converged once the change of a is below tol relative, or q changes at round-off,
      // after a second pass at least: the first one also corrects the start's multipliers,
      // and a large multiplier correction leaves its solve's round-off in q (the same rule as
      // constrained-em's; from the constant start no step converged in one pass).
      const double dq_norm = w.delta.head(n).lpNorm<Eigen::Infinity>();
      refresh = dq_norm > kSlowContraction * previous_norm ||
                dq_norm > kLargeCorrection * (1.0 + s.q.lpNorm<Eigen::Infinity>());
      previous_norm = dq_norm;
      const double eps = std::numeric_limits<double>::epsilon();
      if (k > 0 && dq_norm <= bh2 * params_.tol * (1.0 + s.a.lpNorm<Eigen::Infinity>()) +
                                  4.0 * eps * (1.0 + s.q.lpNorm<Eigen::Infinity>())) {
        s.a = (s.q - w.q_pred) / bh2;
        s.v.noalias() = w.v_pred + gamma * h * s.a;
        w.acceleration_history.Accept(s.a, h);
        w.multiplier_history.Accept(s.lambda, h);
        w.derivatives_reusable = !refresh;
        return StepStatus::Ok();
      }
    }
    return StepStatus::Failed("Newton did not converge in " +
                              std::to_string(params_.max_iterations) + " iterations");
  }

  void Finish(FixedStepWorkspace& workspace, std::map<std::string, double>& m) const override {
    auto& w = MBB_DOWNCAST(Index3Workspace, workspace);
    if (!w.sparse) return;
    m["newton_solves_sparse"] = static_cast<double>(w.sparse_solves - w.dense_fallbacks);
    m["newton_solves_dense_fallback"] = static_cast<double>(w.dense_fallbacks);
  }

 private:
  // The start's multipliers (a least-squares solution over all m rows) carried by the kept
  // rows alone: Phi_q,kept^T lambda_kept = Phi_q^T lambda, solvable since the dropped rows
  // depend on the kept ones.
  static void KeptRowMultipliers(Index3Workspace& w, FixedStepState& s) {
    Matrix all(s.lambda.size(), s.q.size()), kept(w.Kept(), s.q.size());
    w.dae.CalcPhiQ(*w.ws, s.t, s.q, all);
    SelectRows(all, w.kept, kept);
    const Vector reactions = all.transpose() * s.lambda;
    const Vector lambda_kept = kept.transpose().colPivHouseholderQr().solve(reactions);
    s.lambda.setZero();
    for (int i = 0; i < w.Kept(); ++i) s.lambda[w.kept[i]] = lambda_kept[i];
  }

  // One Newton correction w.delta at the iterate s (q, v, a, lambda), dense: the residuals
  // (eq. 7 and eq. 10) with the first row scaled by beta h^2, and the tangent matrix (eqs.
  // 28-29) scaled likewise: beta h^2 K_T and beta h^2 Phi_q^T.
  static void SolveDense(Index3Workspace& w, double t1, double bh2, double gh, bool refresh,
                         const FixedStepState& s) {
    const int n = static_cast<int>(s.q.size()), m = w.Kept();
    w.dae.CalcMassMatrix(*w.ws, s.q, w.mass);
    w.dae.CalcForces(*w.ws, t1, s.q, s.v, w.forces);
    if (w.drops_rows) {
      w.dae.CalcPhi(*w.ws, t1, s.q, w.phi_all);
      w.dae.CalcPhiQ(*w.ws, t1, s.q, w.phi_q_all);
      SelectRows(w.phi_all, w.kept, w.phi);
      SelectRows(w.phi_q_all, w.kept, w.phi_q);
      SelectRows(s.lambda, w.kept, w.lambda_kept);
    } else {
      w.dae.CalcPhi(*w.ws, t1, s.q, w.phi);
      w.dae.CalcPhiQ(*w.ws, t1, s.q, w.phi_q);
    }
    if (refresh) {
      w.dae.CalcForceJacobians(*w.ws, t1, s.q, s.v, w.dq, w.dv);
      w.dae.CalcMassTimesAccelerationJacobian(*w.ws, s.q, s.a, w.dma);
      w.dae.CalcReactionStiffness(*w.ws, t1, s.q, s.lambda, w.reaction);
    }
    w.rhs.head(n).noalias() = w.mass * s.a - w.forces;
    w.rhs.head(n).noalias() += w.phi_q.transpose() * (w.drops_rows ? w.lambda_kept : s.lambda);
    w.rhs.head(n) *= -bh2;
    w.rhs.tail(m) = -w.phi;
    w.kkt.topLeftCorner(n, n) = w.mass + bh2 * (w.dma + w.reaction - w.dq) - gh * w.dv;
    w.kkt.topRightCorner(n, m) = w.phi_q.transpose();
    w.kkt.bottomLeftCorner(m, n) = w.phi_q;
    w.kkt.bottomRightCorner(m, m).setZero();
    w.lu.compute(w.kkt);
    w.delta.noalias() = w.lu.solve(w.rhs);
  }

  // The same correction from the entries of M, K_T and Phi_q (sparse_kkt_system.h): no
  // n x n matrix, O(n) on a chain. A system the envelope LU refuses (a singular position,
  // redundant rows, a massless coordinate) is assembled densely and solved by the LU with
  // partial pivoting instead.
  static void SolveSparse(Index3Workspace& w, double t1, double bh2, double gh, bool refresh,
                          const FixedStepState& s) {
    const int n = static_cast<int>(s.q.size()), m = w.Kept();
    SparseKktSystem& kkt = *w.sparse;
    if (refresh || !w.dae.has_constant_mass_matrix())
      w.dae.CalcMassMatrixEntries(*w.ws, s.q, w.mass_values.data());
    w.dae.CalcForces(*w.ws, t1, s.q, s.v, w.forces);
    if (w.drops_rows) {
      w.dae.CalcPhi(*w.ws, t1, s.q, w.phi_all);
      SelectRows(w.phi_all, w.kept, w.phi);
    } else {
      w.dae.CalcPhi(*w.ws, t1, s.q, w.phi);
    }
    if (m > 0) w.dae.CalcPhiQEntries(*w.ws, t1, s.q, kkt.jacobian_values());
    if (refresh)
      w.dae.CalcTangentStiffnessEntries(*w.ws, t1, s.q, s.v, s.a, s.lambda,
                                        w.stiffness_values.data(), w.damping_values.data());
    // Residuals (eq. 7 and eq. 10), scaled as on the dense route.
    auto head = w.rhs.head(n);
    head = w.forces;
    head = -head;
    AddEntriesProduct(kkt.matrix_entries(), w.mass_values.data(), s.a, head);
    AddEntriesTransposeProduct(kkt.jacobian_entries(), kkt.jacobian_values(), s.lambda, head);
    head *= -bh2;
    w.rhs.tail(m) = -w.phi;
    // beta h^2 K_T (eqs. 28-29) = M + beta h^2 (stiffness) + gamma h (damping).
    double* k = kkt.matrix_values();
    for (size_t e = 0; e < w.mass_values.size(); ++e)
      k[e] = w.mass_values[e] + bh2 * w.stiffness_values[e] + gh * w.damping_values[e];
    w.delta = w.rhs;
    ++w.sparse_solves;
    if (kkt.Factor() && kkt.Solve(w.delta)) return;
    ++w.dense_fallbacks;
    w.kkt.setZero();
    const auto& k_entries = kkt.matrix_entries();
    for (size_t e = 0; e < k_entries.size(); ++e) w.kkt(k_entries[e].row, k_entries[e].col) = k[e];
    const auto& j_entries = kkt.jacobian_entries();
    for (size_t e = 0; e < j_entries.size(); ++e) {
      const int row = kkt.kept_row(j_entries[e].row);
      if (row < 0) continue;
      const double value = kkt.jacobian_values()[e];
      w.kkt(n + row, j_entries[e].col) = value;
      w.kkt(j_entries[e].col, n + row) = value;
    }
    w.lu.compute(w.kkt);
    w.delta.noalias() = w.lu.solve(w.rhs);
  }

  // An iteration whose correction shrank by less than this factor takes fresh derivatives
  // for the next one (a frozen iteration matrix contracts linearly, by O(h) per pass).
  static constexpr double kSlowContraction = 0.25;
  // A correction above this fraction of the coordinate scale is far from the point of
  // linearisation (a diverging run, the Fox-Goodwin stiff pendulum): full Newton there, so
  // that the iteration keeps to the root it would have found with fresh derivatives.
  static constexpr double kLargeCorrection = 1e-3;
  NewmarkParameters params_;
  ConstraintSolves solves_;
};

}  // namespace

std::unique_ptr<Method> MakeNewmarkIndex3(const ParameterSet& p) {
  return std::make_unique<NewmarkIndex3>(p);
}

}  // namespace mbb
