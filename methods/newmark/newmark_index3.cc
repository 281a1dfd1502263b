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
// Stability: with rigid constraints the constrained directions have omega = infinity (eq. 30),
// so a scheme with gamma/2 - beta > 0 (Fox-Goodwin) is unstable at every h; the multipliers
// and accelerations then grow by the spectral radius of the Newmark recursion with
// q_{n+1} = q_n = 0 in those directions: 9.899 per step for Fox-Goodwin (derivation in
// tests/test_newmark.cc).
#include <cmath>
#include <limits>
#include <string>

#include "methods/common/acceleration_solver.h"
#include "methods/fixed_step_method.h"
#include "methods/newmark/newmark_common.h"
#include "methods/newmark/newmark_methods.h"
#include "problems/invariant.h"

namespace mbb {
namespace {

struct Index3Workspace final : FixedStepWorkspace {
  Index3Workspace(const Problem& p, int n, int m)
      : dae(*p.dae),
        ws(dae.MakeWorkspace()),
        mass(n, n),
        dq(n, n),
        dv(n, n),
        dma(n, n),
        reaction(n, n),
        phi_q(m, n),
        kkt(n + m, n + m),
        lu(n + m),
        forces(n),
        phi(m),
        rhs(n + m),
        delta(n + m),
        q_pred(n),
        v_pred(n) {}
  const MechanicalDae& dae;
  std::unique_ptr<DaeWorkspace> ws;
  Matrix mass, dq, dv, dma, reaction, phi_q, kkt;
  Eigen::PartialPivLU<Matrix> lu;
  Vector forces, phi, rhs, delta, q_pred, v_pred;
  bool derivatives_reusable = false;  // `derivatives=reuse`: the last step contracted well
};

class NewmarkIndex3 final : public FixedStepMethod {
 public:
  explicit NewmarkIndex3(const ParameterSet& p)
      : params_(NewmarkParameters::FromParameters(p, true)) {}

 protected:
  std::unique_ptr<FixedStepWorkspace> Begin(const Problem& problem, double, FixedStepState& s,
                                            WorkCounters& counters,
                                            std::string& error) const override {
    auto w = std::make_unique<Index3Workspace>(problem, problem.n(), problem.m());
    if (!StartFromIndex1Solution(w->dae, *w->ws, s, counters, error)) return nullptr;
    return w;
  }

  StepStatus Step(FixedStepWorkspace& workspace, double h, FixedStepState& s,
                  WorkCounters& counters) const override {
    auto& w = MBB_DOWNCAST(Index3Workspace, workspace);
    const int n = static_cast<int>(s.q.size()), m = static_cast<int>(s.lambda.size());
    const double beta = params_.beta, gamma = params_.gamma, t1 = s.t + h;
    const double bh2 = beta * h * h;
    w.q_pred.noalias() = s.q + h * s.v + (0.5 - beta) * h * h * s.a;
    w.v_pred.noalias() = s.v + (1.0 - gamma) * h * s.a;
    s.q.noalias() = w.q_pred + bh2 * s.a;  // start from a_{n+1} = a_n, lambda_{n+1} = lambda_n
    // Modified Newton (header comment): derivative terms at the first iterate, refreshed
    // only when an iteration contracts slowly.
    bool refresh = !(params_.reuse_derivatives && w.derivatives_reusable);
    w.derivatives_reusable = false;
    double previous_norm = std::numeric_limits<double>::infinity();
    for (int k = 0; k < params_.max_iterations; ++k) {
      s.a = (s.q - w.q_pred) / bh2;
      s.v.noalias() = w.v_pred + gamma * h * s.a;
      w.dae.CalcMassMatrix(*w.ws, s.q, w.mass);
      w.dae.CalcForces(*w.ws, t1, s.q, s.v, w.forces);
      w.dae.CalcPhi(*w.ws, t1, s.q, w.phi);
      w.dae.CalcPhiQ(*w.ws, t1, s.q, w.phi_q);
      if (refresh) {
        w.dae.CalcForceJacobians(*w.ws, t1, s.q, s.v, w.dq, w.dv);
        w.dae.CalcMassTimesAccelerationJacobian(*w.ws, s.q, s.a, w.dma);
        w.dae.CalcReactionStiffness(*w.ws, t1, s.q, s.lambda, w.reaction);
        ++counters.jacobian_evals;
      }
      ++counters.rhs_evals, ++counters.newton_iterations;
      // Residuals (eq. 7 and eq. 10), the first row scaled by beta h^2.
      w.rhs.head(n).noalias() = w.mass * s.a - w.forces;
      w.rhs.head(n).noalias() += w.phi_q.transpose() * s.lambda;
      w.rhs.head(n) *= -bh2;
      w.rhs.tail(m) = -w.phi;
      // Tangent matrix (eqs. 28-29), scaled likewise: beta h^2 K_T and beta h^2 Phi_q^T.
      w.kkt.topLeftCorner(n, n) = w.mass + bh2 * (w.dma + w.reaction - w.dq) - (gamma * h) * w.dv;
      w.kkt.topRightCorner(n, m) = w.phi_q.transpose();
      w.kkt.bottomLeftCorner(m, n) = w.phi_q;
      w.kkt.bottomRightCorner(m, m).setZero();
      w.lu.compute(w.kkt);
      ++counters.factorizations;
      w.delta.noalias() = w.lu.solve(w.rhs);
      if (!w.delta.allFinite())
        return StepStatus::Failed("singular iteration matrix (redundant constraints?)");
      s.q += w.delta.head(n);
      s.lambda += w.delta.tail(m) / bh2;
      // Converged once the change of a is below tol relative, or q changes at round-off.
      const double dq_norm = w.delta.head(n).lpNorm<Eigen::Infinity>();
      refresh = dq_norm > kSlowContraction * previous_norm ||
                dq_norm > kLargeCorrection * (1.0 + s.q.lpNorm<Eigen::Infinity>());
      previous_norm = dq_norm;
      const double eps = std::numeric_limits<double>::epsilon();
      if (dq_norm <= bh2 * params_.tol * (1.0 + s.a.lpNorm<Eigen::Infinity>()) +
                         4.0 * eps * (1.0 + s.q.lpNorm<Eigen::Infinity>())) {
        s.a = (s.q - w.q_pred) / bh2;
        s.v.noalias() = w.v_pred + gamma * h * s.a;
        w.derivatives_reusable = !refresh;
        return StepStatus::Ok();
      }
    }
    return StepStatus::Failed("Newton did not converge in " +
                              std::to_string(params_.max_iterations) + " iterations");
  }

 private:
  // An iteration whose correction shrank by less than this factor takes fresh derivatives
  // for the next one (a frozen iteration matrix contracts linearly, by O(h) per pass).
  static constexpr double kSlowContraction = 0.25;
  // A correction above this fraction of the coordinate scale is far from the point of
  // linearisation (a diverging run, the Fox-Goodwin stiff pendulum): full Newton there, so
  // that the iteration keeps to the root it would have found with fresh derivatives.
  static constexpr double kLargeCorrection = 1e-3;
  NewmarkParameters params_;
};

}  // namespace

std::unique_ptr<Method> MakeNewmarkIndex3(const ParameterSet& p) {
  return std::make_unique<NewmarkIndex3>(p);
}

}  // namespace mbb
