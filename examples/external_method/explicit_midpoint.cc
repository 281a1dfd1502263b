// The explicit midpoint rule (Runge 1895; Hairer, Norsett, Wanner, "Solving Ordinary
// Differential Equations I", 2nd ed. 1993, s II.1, eq. (1.3)) on the first-order form of an
// unconstrained problem (m = 0, a minimal-coordinate form), q' = v, M(q) v' = Q(t, q, v):
//   a_n = a(t_n, q_n, v_n),  q_m = q_n + h/2 v_n,  v_m = v_n + h/2 a_n,
//   q_{n+1} = q_n + h v_m,   v_{n+1} = v_n + h a(t_n + h/2, q_m, v_m),
// with a(t, q, v) = M(q)^-1 Q(t, q, v). Second order (HNW93 s II.1, Table 1.1: a two-stage
// explicit Runge-Kutta method of order 2); not symplectic, so no bounded-energy promise.
// The acceleration at the step's end is the next step's a_n, so each step costs two.
#include "explicit_midpoint.h"

#include <Eigen/Cholesky>

#include "methods/fixed_step_method.h"
#include "problems/core/invariant.h"

#ifndef DECLARED_ORDER
#define DECLARED_ORDER 2
#endif

namespace {

using mbb::FixedStepState;
using mbb::Matrix;
using mbb::Problem;
using mbb::StepStatus;
using mbb::Vector;
using mbb::WorkCounters;

// Everything a step needs, allocated once in Begin (steps allocate nothing).
struct Workspace final : mbb::FixedStepWorkspace {
  explicit Workspace(const Problem& p)
      : dae(*p.dae),
        dae_ws(dae.MakeWorkspace()),
        mass(p.n(), p.n()),
        llt(p.n()),
        forces(p.n()),
        q_mid(p.n()),
        v_mid(p.n()),
        a_mid(p.n()) {}

  // a = M(q)^-1 Q(t, q, v); false if M(q) is not positive definite.
  bool Acceleration(double t, const Vector& q, const Vector& v, Vector& a) {
    dae.CalcMassMatrix(*dae_ws, q, mass);
    dae.CalcForces(*dae_ws, t, q, v, forces);
    llt.compute(mass);
    if (llt.info() != Eigen::Success) return false;
    a = llt.solve(forces);
    return true;
  }

  const mbb::MechanicalDae& dae;
  std::unique_ptr<mbb::DaeWorkspace> dae_ws;
  Matrix mass;
  Eigen::LLT<Matrix> llt;
  Vector forces, q_mid, v_mid, a_mid;
};

class ExplicitMidpoint final : public mbb::FixedStepMethod {
 public:
  std::string CheckApplicable(const Problem& p) const override {
    return p.m() == 0 ? "" : "needs an unconstrained (minimal-coordinate) form, m = 0";
  }

 protected:
  std::unique_ptr<mbb::FixedStepWorkspace> Begin(const Problem& p, double /*h*/,
                                                 FixedStepState& state, WorkCounters& counters,
                                                 std::string& error) const override {
    auto ws = std::make_unique<Workspace>(p);
    state.a.resize(p.n());
    ++counters.rhs_evals;
    if (!ws->Acceleration(state.t, state.q, state.v, state.a)) {
      error = "mass matrix not positive definite at t0";
      return nullptr;
    }
    state.has_acceleration = true;
    return ws;
  }

  StepStatus Step(mbb::FixedStepWorkspace& workspace, double h, FixedStepState& s,
                  WorkCounters& counters) const override {
    auto& ws = MBB_DOWNCAST(Workspace, workspace);
    ws.q_mid = s.q + 0.5 * h * s.v;
    ws.v_mid = s.v + 0.5 * h * s.a;
    counters.rhs_evals += 2;
    if (!ws.Acceleration(s.t + 0.5 * h, ws.q_mid, ws.v_mid, ws.a_mid))
      return StepStatus::Failed("mass matrix not positive definite");
    s.q += h * ws.v_mid;
    s.v += h * ws.a_mid;
    s.t += h;
    if (!ws.Acceleration(s.t, s.q, s.v, s.a))
      return StepStatus::Failed("mass matrix not positive definite");
    return StepStatus::Ok();
  }
};

}  // namespace

mbb::MethodEntry ExplicitMidpointEntry() {
  // The fields up to the step control, in order (C++17 has no designated initialisers; a
  // C++20 consumer writes .name = ..., .step = ...). A step control must be given: a fixed
  // step, so the method reads RunSettings::h and no tolerances.
  mbb::MethodEntry entry{
      "explicit-midpoint",
      "explicit midpoint rule on a minimal-coordinate form (m = 0), an example",
      "Hairer, Norsett, Wanner 1993, s II.1 eq. (1.3)",
      /*parameters=*/{},
      [](const mbb::ParameterSet&) { return std::make_unique<ExplicitMidpoint>(); },
      mbb::StepMode::kFixed};
  // Order 2 (HNW93 s II.1); no constraint promise is needed on an m = 0 form.
  entry.promises = mbb::MethodPromises::Order(DECLARED_ORDER);
  // Runs on stiff_pendulum's minimal form unless the user pins another.
  entry.preferred_problem_parameters = {{"form", "minimal"}};
  return entry;
}
