// Newmark and central differences in minimal coordinates: the baselines of paper 001,
// section 3 (the stiff pendulum in theta, eq. 13).
//
// newmark-minimal: the Newmark family (newmark_common.h) on M(q) a = Q(t, q, v) with no
// constraints. Each step solves the residual r(a_{n+1}) = M(q_{n+1}) a_{n+1} - Q(t_{n+1},
// q_{n+1}, v_{n+1}) = 0 by Newton in a_{n+1}, with q_{n+1}, v_{n+1} from the Newmark
// formulas; the iteration matrix is the linearisation of eq. (14)-(15):
//   J = M + beta h^2 (d(M a)/dq - dQ/dq) - gamma h dQ/dv.
// Linear stability limit eq. (26) (Fox-Goodwin: eq. (11)); trapezoidal is unconditionally
// stable. Second order for gamma = 1/2.
//
// central-difference-minimal: eqs. (21)-(22),
//   q_{n+1} = 2 q_n - q_{n-1} + h^2 M^-1 Q(t_n, q_n),   q_1 = q_0 + h v_0 + h^2/2 a_0,
// written in the equivalent one-step form (Newmark gamma = 1/2, beta = 0):
//   q_{n+1} = q_n + h v_n + h^2/2 a_n,  a_{n+1} = M^-1 Q(t_{n+1}, q_{n+1}, .),
//   v_{n+1} = v_n + h/2 (a_n + a_{n+1}),
// whose positions satisfy eq. (21) exactly (q_{n+1} - q_n = h v_{n+1/2}). Velocity-dependent
// forces are evaluated with the predictor v_n + h a_n (the paper's problem has none). Stable
// for h <= 2/omega_max, eq. (18).
//
// Both apply only to a problem without constraints (m = 0), e.g.
// `stiff_pendulum --param form=minimal`; otherwise CheckApplicable says why.
#include <cmath>
#include <string>

#include "methods/fixed_step_method.h"
#include "methods/newmark/newmark_common.h"
#include "methods/newmark/newmark_methods.h"
#include "problems/core/invariant.h"

namespace mbb {
namespace {

std::string RequireMinimal(const Problem& problem) {
  if (problem.m() == 0) return {};
  return "needs a problem in minimal coordinates (m = 0); this form has m = " +
         std::to_string(problem.m()) + " constraints (try --param form=minimal)";
}

struct MinimalWorkspace final : FixedStepWorkspace {
  MinimalWorkspace(const Problem& p, int n)
      : dae(*p.dae),
        ws(dae.MakeWorkspace()),
        mass(n, n),
        jacobian(n, n),
        dq(n, n),
        dv(n, n),
        dma(n, n),
        stiffness(n, n),
        lu(n),
        forces(n),
        residual(n),
        delta(n),
        q_pred(n),
        v_pred(n),
        a_new(n),
        frequency(n) {}
  const MechanicalDae& dae;
  std::unique_ptr<DaeWorkspace> ws;
  Matrix mass, jacobian, dq, dv, dma, stiffness;
  Eigen::PartialPivLU<Matrix> lu;
  Vector forces, residual, delta, q_pred, v_pred, a_new;
  FrequencyEstimator frequency;
  double omega_max = 0.0;

  // omega_max of the linearisation at (t, q, v, a): M x'' + (d(Ma)/dq - dQ/dq) x, eq. (16).
  void TrackFrequency(double t, const Vector& q, const Vector& v, const Vector& a) {
    dae.CalcMassMatrix(*ws, q, mass);
    dae.CalcForceJacobians(*ws, t, q, v, dq, dv);
    dae.CalcMassTimesAccelerationJacobian(*ws, q, a, dma);
    stiffness = dma - dq;
    const double omega = frequency.Compute(mass, stiffness);
    if (std::isfinite(omega)) omega_max = std::max(omega_max, omega);
  }

  // a = M^-1 Q(t, q, v); false if M is singular.
  bool SolveAcceleration(double t, const Vector& q, const Vector& v, Vector& a) {
    dae.CalcMassMatrix(*ws, q, mass);
    dae.CalcForces(*ws, t, q, v, forces);
    lu.compute(mass);
    a.noalias() = lu.solve(forces);
    return a.allFinite();
  }
};

// The start shared by both minimal-coordinate methods: workspace, a0 = M^-1 Q(t0).
std::unique_ptr<FixedStepWorkspace> BeginMinimal(const Problem& problem, FixedStepState& s,
                                                 WorkCounters& counters, std::string& error) {
  auto w = std::make_unique<MinimalWorkspace>(problem, problem.n());
  if (!w->SolveAcceleration(s.t, s.q, s.v, s.a)) {
    error = "singular mass matrix at t0";
    return nullptr;
  }
  ++counters.rhs_evals;
  s.has_acceleration = true;
  w->TrackFrequency(s.t, s.q, s.v, s.a);
  return w;
}

class NewmarkMinimal final : public FixedStepMethod {
 public:
  explicit NewmarkMinimal(const ParameterSet& p)
      : params_(NewmarkParameters::FromParameters(p, false)) {}
  std::string CheckApplicable(const Problem& problem) const override {
    return RequireMinimal(problem);
  }

 protected:
  std::unique_ptr<FixedStepWorkspace> Begin(const Problem& problem, double, FixedStepState& s,
                                            WorkCounters& counters,
                                            std::string& error) const override {
    return BeginMinimal(problem, s, counters, error);
  }

  StepStatus Step(FixedStepWorkspace& workspace, double h, FixedStepState& s,
                  WorkCounters& counters) const override {
    auto& w = MBB_DOWNCAST(MinimalWorkspace, workspace);
    const double beta = params_.beta, gamma = params_.gamma, t1 = s.t + h;
    // Newmark predictors (the a_n parts of the update formulas).
    w.q_pred.noalias() = s.q + h * s.v + (0.5 - beta) * h * h * s.a;
    w.v_pred.noalias() = s.v + (1.0 - gamma) * h * s.a;
    w.a_new = s.a;
    for (int k = 0; k < params_.max_iterations; ++k) {
      s.q.noalias() = w.q_pred + beta * h * h * w.a_new;
      s.v.noalias() = w.v_pred + gamma * h * w.a_new;
      w.dae.CalcMassMatrix(*w.ws, s.q, w.mass);
      w.dae.CalcForces(*w.ws, t1, s.q, s.v, w.forces);
      w.dae.CalcForceJacobians(*w.ws, t1, s.q, s.v, w.dq, w.dv);
      w.dae.CalcMassTimesAccelerationJacobian(*w.ws, s.q, w.a_new, w.dma);
      ++counters.rhs_evals, ++counters.jacobian_evals, ++counters.newton_iterations;
      w.residual.noalias() = w.mass * w.a_new - w.forces;  // M a = Q, eq. (13)
      // Linearisation, eqs. (14)-(15): M + beta h^2 K_L + gamma h C_L.
      w.jacobian = w.mass + (beta * h * h) * (w.dma - w.dq) - (gamma * h) * w.dv;
      w.lu.compute(w.jacobian);
      ++counters.factorizations;
      w.delta.noalias() = w.lu.solve(w.residual);
      if (!w.delta.allFinite()) return StepStatus::Failed("singular Newmark iteration matrix");
      w.a_new -= w.delta;
      if (w.delta.lpNorm<Eigen::Infinity>() <=
          params_.tol * (1.0 + w.a_new.lpNorm<Eigen::Infinity>())) {
        s.a = w.a_new;
        s.q.noalias() = w.q_pred + beta * h * h * s.a;
        s.v.noalias() = w.v_pred + gamma * h * s.a;
        w.TrackFrequency(t1, s.q, s.v, s.a);
        return StepStatus::Ok();
      }
    }
    return StepStatus::Failed("Newton did not converge in " +
                              std::to_string(params_.max_iterations) + " iterations");
  }

  void Finish(FixedStepWorkspace& workspace, std::map<std::string, double>& m) const override {
    auto& w = MBB_DOWNCAST(MinimalWorkspace, workspace);
    ReportStabilityMetrics(w.omega_max, params_.gamma, params_.beta, m);
  }

 private:
  NewmarkParameters params_;
};

class CentralDifferenceMinimal final : public FixedStepMethod {
 public:
  std::string CheckApplicable(const Problem& problem) const override {
    return RequireMinimal(problem);
  }

 protected:
  std::unique_ptr<FixedStepWorkspace> Begin(const Problem& problem, double, FixedStepState& s,
                                            WorkCounters& counters,
                                            std::string& error) const override {
    return BeginMinimal(problem, s, counters, error);
  }

  StepStatus Step(FixedStepWorkspace& workspace, double h, FixedStepState& s,
                  WorkCounters& counters) const override {
    auto& w = MBB_DOWNCAST(MinimalWorkspace, workspace);
    s.q.noalias() += h * s.v + (0.5 * h * h) * s.a;  // eqs. (21)-(22)
    w.v_pred.noalias() = s.v + h * s.a;              // only for velocity-dependent forces
    if (!w.SolveAcceleration(s.t + h, s.q, w.v_pred, w.a_new))
      return StepStatus::Failed("singular mass matrix");
    ++counters.rhs_evals;
    s.v.noalias() += (0.5 * h) * (s.a + w.a_new);
    s.a = w.a_new;
    w.TrackFrequency(s.t + h, s.q, s.v, s.a);
    return StepStatus::Ok();
  }

  void Finish(FixedStepWorkspace& workspace, std::map<std::string, double>& m) const override {
    auto& w = MBB_DOWNCAST(MinimalWorkspace, workspace);
    ReportStabilityMetrics(w.omega_max, 0.5, 0.0, m);  // eq. (18): 2 / omega_max
  }
};

}  // namespace

std::unique_ptr<Method> MakeNewmarkMinimal(const ParameterSet& p) {
  return std::make_unique<NewmarkMinimal>(p);
}
std::unique_ptr<Method> MakeCentralDifferenceMinimal(const ParameterSet&) {
  return std::make_unique<CentralDifferenceMinimal>();
}

}  // namespace mbb
