// constrained-em: the constrained energy-momentum scheme of paper 002 eq 10 (Betsch &
// Leyendecker 2006; Part I section 3.1), Newton on the n + m unknowns (q1, lambda):
//   R(q1, lambda) = [ M (v1 - v0) + h dV(q0, q1) - h Q_nc + h G(q_{1/2})^T lambda ]  (10.2)
//                   [ Phi(t1, q1)                                              ]  (10.3)
// with v1 = 2 (q1 - q0) / h - v0 (10.1), the shared pieces in discrete_gradient.h. The
// iteration matrix, eq (10) exactly as written (momentum balance in impulse form, unknowns
// q1 and lambda, constraint rows unscaled), is
//   [ 2 M / h - h/2 dQ/dq - dQ/dv + h/2 K(q_{1/2}, lambda)   h G(q_{1/2})^T ]
//   [ G(q1)                                                   0              ]
// with the reaction stiffness K = d(G^T lambda)/dq; its 2-norm condition number grows like
// h^-3 (paper 002 Tables II-V). It is solved equilibrated, by an LU with partial pivoting
// whose solution is checked (backward error), else by a column-pivoting QR in least squares
// (a singular matrix whose LU solution is not finite; an exactly singular one with a
// consistent right-hand side the LU's triangular solves already answer with the basic
// solution). The QR for every solve was three quarters of a double four-bar step.
// Converged when the largest change of q1 is below tol (1 + |q1|).
#include <Eigen/LU>
#include <Eigen/QR>
#include <algorithm>
#include <cmath>
#include <limits>

#include "methods/energy_momentum/discrete_gradient.h"
#include "methods/energy_momentum/energy_momentum_methods.h"
#include "methods/fixed_step_method.h"

namespace mbb {
namespace {

struct ConstrainedWorkspace final : FixedStepWorkspace {
  ConstrainedWorkspace(const Problem& p, bool extrapolate)
      : balance(p),
        kept(IndependentConstraintRows(*p.dae, balance.workspace(), p.t0, p.q0)),
        n(p.dae->num_coordinates()),
        m(static_cast<int>(kept.size())),
        m_all(p.dae->num_constraints()),
        r(n),
        residual(n + m),
        delta(n + m),
        phi(m),
        phi_all(m_all),
        lambda_all(m_all),
        g_mid(m, n),
        g_end(m, n),
        g_all(m_all, n),
        reaction(n, n),
        iteration(n + m, n + m),
        dq(n),
        lambda(m),
        row_scale(n + m),
        column_scale(n + m),
        rhs(n + m),
        check(n + m),
        lu(n + m),
        solver(n + m, n + m),
        condition_svd(n + m, n + m),
        start(n, extrapolate),
        multiplier_history(m, extrapolate) {}
  MidpointBalance balance;
  std::vector<int> kept;  // independent constraint rows (IndependentConstraintRows)
  int n, m, m_all;
  Vector r, residual, delta, phi, phi_all, lambda_all;
  Matrix g_mid, g_end, g_all, reaction, iteration;
  // Sized once: the Newton loop allocates nothing.
  Vector dq, lambda, row_scale, column_scale, rhs, check;
  Eigen::PartialPivLU<Matrix> lu;
  Eigen::ColPivHouseholderQR<Matrix> solver;  // where the LU's solution fails its check
  long qr_solves = 0;
  Eigen::JacobiSVD<Matrix> condition_svd;
  double condition_first = -1.0, condition_max = 0.0, condition_last = -1.0;
  double energy_residual_max = 0.0;  // StepEnergyResidual over the run
  long steps = 0;
  // The first iterate's q1 (MidpointStart) and lambda (`predictor`, extrapolator.h); the
  // multipliers have their first record at the end of the first step.
  MidpointStart start;
  Extrapolator multiplier_history;
};

class ConstrainedEm final : public FixedStepMethod {
 public:
  explicit ConstrainedEm(const MidpointNewton& newton) : newton_(newton) {}

  std::string CheckApplicable(const Problem& problem) const override {
    return CheckMidpointSchemeApplicable(problem);
  }

 protected:
  std::unique_ptr<FixedStepWorkspace> Begin(const Problem& problem, double /*h*/,
                                            FixedStepState& state, WorkCounters& /*counters*/,
                                            std::string& /*error*/) const override {
    auto ws = std::make_unique<ConstrainedWorkspace>(problem, newton_.extrapolate_start);
    ws->start.Begin(state.v);
    state.lambda = Vector::Zero(ws->m_all);
    state.has_multipliers = ws->m_all > 0;
    return ws;
  }

  StepStatus Step(FixedStepWorkspace& base, double h, FixedStepState& state,
                  WorkCounters& counters) const override {
    auto& w = MBB_DOWNCAST(ConstrainedWorkspace, base);
    const MechanicalDae& dae = w.balance.dae();
    DaeWorkspace& dws = w.balance.workspace();
    const int n = w.n, m = w.m;
    w.balance.BeginStep(state.t, h, state.q, state.v);
    Vector& dq = w.dq;
    Vector& lambda = w.lambda;
    // First iterate: the increment h (v0 + v1) / 2 of the mid-point rule with v1 and lambda
    // extrapolated from the last steps, or h v0 and the last step's lambda (`predictor`).
    dq = h * w.start.MeanVelocity(h, state.v);
    SelectRows(state.lambda, w.kept, lambda);
    w.multiplier_history.Predict(h, lambda);  // leaves lambda before the first record
    for (int it = 0; it < newton_.max_iterations; ++it) {
      w.balance.ResidualFromStep(dq, w.r);
      const Vector& q1 = w.balance.q1();
      dae.CalcPhiQ(dws, w.balance.t_mid(), w.balance.q_mid(), w.g_all);
      SelectRows(w.g_all, w.kept, w.g_mid);
      dae.CalcPhi(dws, w.balance.t1(), q1, w.phi_all);
      SelectRows(w.phi_all, w.kept, w.phi);
      dae.CalcPhiQ(dws, w.balance.t1(), q1, w.g_all);
      SelectRows(w.g_all, w.kept, w.g_end);
      w.residual.head(n) = w.r;
      w.residual.head(n).noalias() += h * w.g_mid.transpose() * lambda;
      w.residual.tail(m) = w.phi;
      w.lambda_all.setZero();
      for (int i = 0; i < m; ++i) w.lambda_all[w.kept[i]] = lambda[i];
      w.balance.ReactionStiffness(w.lambda_all, w.reaction);
      w.iteration.topLeftCorner(n, n) = w.balance.Jacobian() + 0.5 * h * w.reaction;
      w.iteration.topRightCorner(n, m) = h * w.g_mid.transpose();
      w.iteration.bottomLeftCorner(m, n) = w.g_end;
      w.iteration.bottomRightCorner(m, m).setZero();
      // The condition number is a metric only: not in the harness's timed repeats.
      if (it == 0 && w.diagnostics && (newton_.condition_every_step || w.condition_first < 0.0))
        RecordCondition(w);
      // Solved equilibrated (rows, then columns, scaled to unit max-norm): the condition
      // number above is that of eq (10) as written; the solve need not suffer it.
      Equilibrate(w);
      ++counters.factorizations;
      ++counters.jacobian_evals;
      w.rhs = -w.row_scale.cwiseProduct(w.residual);
      SolveEquilibrated(w);
      w.delta = w.delta.cwiseProduct(w.column_scale);
      ++counters.newton_iterations;
      if (!w.delta.allFinite())
        return StepStatus::Failed("constrained-em: singular iteration matrix");
      dq += w.delta.head(n);
      lambda += w.delta.tail(m);
      // Converged when the change of q1 is below tol relative, after a second pass at least:
      // the first one also corrects the start's lambda (by up to 3e4 on Bricard at h = 1e-3
      // from an extrapolated q1 already within the tolerance), and its solve's round-off,
      // ~eps cond |delta lambda|, stays in q1 (a position residual of 9e-13 instead of 2e-15).
      // From the constant start no step converged in one pass.
      if (it > 0 && w.delta.head(n).lpNorm<Eigen::Infinity>() <=
                        newton_.tol * (1.0 + q1.lpNorm<Eigen::Infinity>())) {
        w.balance.ResidualFromStep(dq, w.r);  // v1 of the converged step
        w.energy_residual_max = std::max(w.energy_residual_max, w.balance.StepEnergyResidual());
        state.v = w.balance.v1();
        state.q = w.balance.q1();
        state.lambda.setZero();
        for (int i = 0; i < m; ++i) state.lambda[w.kept[i]] = lambda[i];
        w.start.Accept(state.v, h);
        w.multiplier_history.Accept(lambda, h);
        state.t += h;
        ++w.steps;
        return StepStatus::Ok();
      }
    }
    return StepStatus::Failed("constrained-em: Newton did not converge in " +
                              std::to_string(newton_.max_iterations) + " iterations");
  }

  void Finish(FixedStepWorkspace& base, std::map<std::string, double>& metrics) const override {
    auto& w = MBB_DOWNCAST(ConstrainedWorkspace, base);
    metrics["newton_unknowns"] = w.n + w.m;
    metrics["iteration_matrix_condition.first"] = w.condition_first;
    metrics["iteration_matrix_condition.max"] = w.condition_max;
    // The last step's (at t_end: paper 002's Table V is at t = 0.04).
    metrics["iteration_matrix_condition.last"] = w.condition_last;
    metrics["step_energy_residual_max"] = w.energy_residual_max;
    metrics["newton_solves_qr"] = static_cast<double>(w.qr_solves);
  }

 private:
  // delta from the equilibrated iteration matrix and rhs: the LU's solution where its
  // backward error |A x - b| <= kLuBackwardError (|A| |x| + |b|) (max-norms; partial
  // pivoting on the equilibrated matrix gives about n eps), else the QR's (a singular
  // matrix, where the LU's solution is not finite or not a solution).
  static void SolveEquilibrated(ConstrainedWorkspace& w) {
    w.lu.compute(w.iteration);
    w.delta = w.lu.solve(w.rhs);
    if (w.delta.allFinite()) {
      w.check.noalias() = w.iteration * w.delta;
      w.check -= w.rhs;
      const double scale =
          w.iteration.lpNorm<Eigen::Infinity>() * w.delta.lpNorm<Eigen::Infinity>() +
          w.rhs.lpNorm<Eigen::Infinity>();
      if (w.check.lpNorm<Eigen::Infinity>() <= kLuBackwardError * scale) return;
    }
    ++w.qr_solves;
    w.solver.compute(w.iteration);
    SolveWithQr(w.solver, w.rhs, w.delta);
  }
  static constexpr double kLuBackwardError = 1e-12;

  static void Equilibrate(ConstrainedWorkspace& w) {
    const int size = w.n + w.m;
    for (int i = 0; i < size; ++i) {
      const double largest = w.iteration.row(i).lpNorm<Eigen::Infinity>();
      w.row_scale[i] = largest > 0.0 ? 1.0 / largest : 1.0;
    }
    w.iteration.array().colwise() *= w.row_scale.array();  // in place: no temporary
    for (int j = 0; j < size; ++j) {
      const double largest = w.iteration.col(j).lpNorm<Eigen::Infinity>();
      w.column_scale[j] = largest > 0.0 ? 1.0 / largest : 1.0;
    }
    w.iteration.array().rowwise() *= w.column_scale.array().transpose();
  }

  static void RecordCondition(ConstrainedWorkspace& w) {
    const double c = ConditionNumber2(w.condition_svd, w.iteration);
    if (w.condition_first < 0.0) w.condition_first = c;
    w.condition_max = std::max(w.condition_max, c);
    w.condition_last = c;
  }

  MidpointNewton newton_;
};

}  // namespace

std::unique_ptr<Method> MakeConstrainedEm(const ParameterSet& params) {
  return std::make_unique<ConstrainedEm>(MidpointNewton::FromParameters(params));
}

}  // namespace mbb
