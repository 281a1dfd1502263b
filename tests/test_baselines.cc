// The SUNDIALS and Odeint baselines: agreement with analytic references, the index-1
// acceleration solve, and the stability search on a case with a known answer. Their observed
// orders are the conformance suite's (tests/test_conformance.cc: every registry method on
// conformance/cases.h, odeint-rk4 on planar_pendulum among them).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "harness/runner.h"
#include "harness/stability.h"
#include "methods/common/acceleration_solver.h"
#include "methods/common/first_order_ode.h"
#include "methods/common/observed_order.h"
#include "problems/core/equations_dae.h"

namespace mbb {
namespace {

RunRecord RunQuiet(const std::string& problem, const std::string& method,
                   std::map<std::string, std::string> settings = {},
                   std::map<std::string, std::string> params = {}, double t_end = 0.0) {
  RunSpec spec;
  spec.problem = problem;
  spec.method = method;
  spec.SetFromText(ParameterSet(settings));
  spec.problem_parameters = ParameterSet(params);
  spec.t_end = t_end;
  spec.repeats = 0;
  return Execute(spec);
}

}  // namespace

TEST_CASE("adaptive baselines match the analytic pendulum references", "[baselines][reference]") {
  // Default tolerances rtol 1e-10, atol 1e-12. Over 10 s (about 5 swings of the planar
  // pendulum, 3 of the physical one) the global error of a tolerance-controlled method is a
  // modest multiple of rtol; 1e-7 relative leaves 3 orders for error growth.
  const double kTolerance = 1e-7;
  for (const std::string problem : {"planar_pendulum", "physical_pendulum"}) {
    for (const std::string method : {"ida", "odeint-dopri5", "arkode-erk", "arkode-dirk"}) {
      const RunRecord r = RunQuiet(problem, method);
      INFO(problem << " " << method << ": " << r.message);
      REQUIRE(r.status == RunStatus::kOk);
      REQUIRE(r.metrics.error);
      CHECK(r.metrics.error->position_max_rel < kTolerance);
      // The projection keeps the ODE baselines on the manifold to round-off (|q| ~ 1:
      // 100 ulps); IDA's GGL form satisfies Phi = 0 to its Newton tolerance.
      CHECK(r.metrics.position_residual_max < (method == "ida" ? 1e-8 : 1e-13));
    }
  }
}

TEST_CASE("spatial pendulum: ida, odeint-dopri5 and arkode-erk agree at t = 10",
          "[baselines][acceptance]") {
  const RunRecord a = RunQuiet("spatial_pendulum", "ida");
  const RunRecord b = RunQuiet("spatial_pendulum", "odeint-dopri5");
  const RunRecord c = RunQuiet("spatial_pendulum", "arkode-erk");
  for (const auto* r : {&a, &b, &c}) REQUIRE(r->status == RunStatus::kOk);
  // Three codes at their default tolerances: final positions agree to 1e-6 (l = 0.08 m).
  for (int i = 0; i < 3; ++i) {
    CHECK(std::abs(a.final_q[i] - b.final_q[i]) < 1e-6);
    CHECK(std::abs(a.final_q[i] - c.final_q[i]) < 1e-6);
  }
}

TEST_CASE("stability search reproduces the linear RK4 limit on the stiff pendulum",
          "[stability][acceptance]") {
  // Linear RK4 limit 2 sqrt(2) / omega_max with omega_max = sqrt(g/L) = 3.1304951 rad/s
  // (paper 001 eq 17): 0.9035 s. Growth criterion (band 10x the static deflection), horizon
  // one torque period (62.83 s). Accepted within 3 % (the bisection itself is to 2e-3).
  RunSpec spec;
  spec.problem = "stiff_pendulum";
  spec.problem_parameters.Set("form", "minimal");
  spec.method = "odeint-rk4";
  StabilityOptions options;
  options.h_min = 0.3;
  options.h_max = 3.0;
  options.relative_precision = 2e-3;
  const StabilityRecord s = SearchStabilityLimit(spec, options);
  REQUIRE(s.h_max_stable);
  REQUIRE(s.h_min_unstable);
  const double linear_limit = 2.0 * std::sqrt(2.0) / std::sqrt(9.8);
  CHECK(std::abs(*s.h_max_stable / linear_limit - 1.0) < 0.03);
  CHECK(s.criterion == "growth");
  CHECK(s.criterion_parameters.at("factor") == 10.0);
}

namespace {

// A pendulum written with its constraint twice: Phi_q has rank 1 of 2 everywhere.
struct RedundantPendulum : EquationDefaults {
  static constexpr bool kConstantMass = true;
  int num_coordinates() const { return 2; }
  int num_constraints() const { return 2; }
  template <class T>
  void Constraints(const T&, const T* q, T* phi) const {
    phi[0] = q[0] * q[0] + q[1] * q[1] - 1.0;
    phi[1] = 2.0 * phi[0];
  }
  template <class T>
  void MassMatrix(const T*, T* m) const {
    m[0] = m[3] = T(1.0);
  }
  template <class T>
  T Potential(const T&, const T* q) const {
    return 9.81 * q[1];
  }
};

}  // namespace

// `order` picks ARKODE's default ERK table of that order (ARKStepSetOrder). Step halving on
// the planar pendulum over 1 s at h = 0.04, 0.02, 0.01 observes 2.91 for order 3 and 4.99
// for order 5, and 4.37 for the default order-4 table: an ignored parameter fails both.
TEST_CASE("arkode-erk's order parameter selects the table of that order", "[baselines]") {
  for (const int order : {3, 5}) {
    std::vector<std::vector<double>> q;
    for (const double h : {0.04, 0.02, 0.01}) {
      const RunRecord r =
          RunQuiet("planar_pendulum", "arkode-erk",
                   {{"order", std::to_string(order)}, {"h", std::to_string(h)}}, {}, 1.0);
      REQUIRE(r.status == RunStatus::kOk);
      q.push_back(r.final_q);
    }
    double d1 = 0.0, d2 = 0.0;
    for (size_t i = 0; i < q[0].size(); ++i) {
      d1 = std::max(d1, std::abs(q[0][i] - q[1][i]));
      d2 = std::max(d2, std::abs(q[1][i] - q[2][i]));
    }
    INFO("order " << order << ": differences " << d1 << ", " << d2);
    CHECK(std::abs(std::log2(d1 / d2) - order) <= kOrderSlack);
  }
}

TEST_CASE("the acceleration solve satisfies both equations, also with redundant constraints",
          "[solver]") {
  auto check = [](const MechanicalDae& dae, const Vector& q, const Vector& v, int rank) {
    auto ws = dae.MakeWorkspace();
    AccelerationSolver solver(dae, *ws);
    Vector a(dae.num_coordinates()), lambda(dae.num_constraints());
    REQUIRE(solver.Solve(0.0, q, v, a, lambda));
    CHECK(solver.last_rank() == rank);
    Matrix mass(q.size(), q.size()), phi_q(lambda.size(), q.size());
    Vector forces(q.size()), gamma(lambda.size());
    dae.CalcMassMatrix(*ws, q, mass);
    dae.CalcForces(*ws, 0.0, q, v, forces);
    dae.CalcPhiQ(*ws, 0.0, q, phi_q);
    dae.CalcGamma(*ws, 0.0, q, v, gamma);
    // Both residuals are round-off: 100 eps relative to the largest term.
    const double scale = forces.norm() + (mass * a).norm() + 1.0;
    CHECK((mass * a + phi_q.transpose() * lambda - forces).norm() < 100 * 2.2e-16 * scale);
    CHECK((phi_q * a - gamma).norm() < 100 * 2.2e-16 * (gamma.norm() + 1.0));
  };
  const auto redundant = MakeDae(RedundantPendulum{});
  Vector q(2), v(2);
  q << std::sqrt(0.5), -std::sqrt(0.5);
  v << 0.7, 0.7;
  check(*redundant, q, v, 1);

  // The stiff pendulum's singular M = diag(m, m, 0) (paper 001 s3).
  const Problem stiff = BuildProblem("stiff_pendulum", ParameterSet());
  Vector vs = stiff.v0;
  vs << 0.3, 0.0, 0.3;  // theta' = 0.3 at theta = 0: x' = L theta'
  check(*stiff.dae, stiff.q0, vs, 2);
}

// The solve keeps M(q), the QR of Phi_q^T and Z^T M Z's factor while t, q and the rank cap
// are the last solve's (the velocity columns of a difference-quotient Jacobian), and
// FirstOrderOde answers a repeated (t, y) from its last call (ARKODE's ERK asks twice at
// each step's start) and takes the projector's factors at the projected state. Each must
// give what a solver that never saw the earlier calls gives, to the bit: a stale factor (of
// other positions, or without the rank cap) or a stale answer (for other velocities) would
// not.
TEST_CASE("solves at repeated positions give a fresh solve's result to the bit", "[solver]") {
  const Problem p = BuildProblem("bricard", ParameterSet());  // M(q) varies, redundant rows
  const int n = p.n(), m = p.m();
  Vector v_other = p.v0;
  for (int i = 0; i < n; ++i) v_other[i] += 1e-3 * (i % 3 - 1);
  Vector q_other = p.q0;
  q_other[0] += 1e-4;
  auto fresh_solve = [&](double t, const Vector& q, const Vector& v, int max_rank, Vector& a) {
    auto ws = p.dae->MakeWorkspace();
    AccelerationSolver solver(*p.dae, *ws);
    solver.set_max_rank(max_rank);
    Vector lambda(m);
    a.resize(n);
    return solver.Solve(t, q, v, a, lambda);
  };
  auto ws = p.dae->MakeWorkspace();
  AccelerationSolver kept(*p.dae, *ws);
  Vector a(n), lambda(m), expected;
  struct Call {
    double t;
    const Vector* q;
    const Vector* v;
    int max_rank;
  };
  const int full = m;  // uncapped; Bricard's 35 rows have rank 34, so a cap of 33 bites
  const Call calls[] = {{0.0, &p.q0, &p.v0, full},       {0.0, &p.q0, &v_other, full},
                        {0.0, &q_other, &v_other, full}, {0.0, &q_other, &p.v0, full},
                        {0.0, &q_other, &p.v0, m - 2},   {0.0, &p.q0, &p.v0, m - 2},
                        {0.0, &p.q0, &v_other, m - 2}};
  int k = 0;
  for (const Call& c : calls) {
    INFO("call " << k++);
    kept.set_max_rank(c.max_rank);
    REQUIRE(kept.Solve(c.t, *c.q, *c.v, a, lambda));
    REQUIRE(fresh_solve(c.t, *c.q, *c.v, c.max_rank, expected));
    CHECK(a == expected);  // bit for bit
  }

  // The ODE form, against f = [v; a] of a fresh solver with the rank the ODE takes from its
  // first call (Bricard's 34 at q0): the same (t, y) twice, a new q, the same q with other v.
  FirstOrderOde ode(p, OdeFormOptions{});
  Vector y(2 * n), f(2 * n), fresh_a;
  auto check_ode = [&](const Vector& q, const Vector& v) {
    y << q, v;
    REQUIRE(ode.Rhs(0.0, y.data(), f.data()));
    REQUIRE(fresh_solve(0.0, q, v, m - 1, fresh_a));
    CHECK(f.head(n) == v);
    CHECK(f.tail(n) == fresh_a);
  };
  check_ode(p.q0, v_other);
  check_ode(p.q0, v_other);
  check_ode(q_other, v_other);
  check_ode(q_other, p.v0);
  CHECK(ode.rhs_evals() == 4);  // every call counts, the repeated one too
  // After a projection the call at the projected state takes the projector's factors of
  // Phi_q there; a call at other positions must not.
  y << q_other, v_other;
  REQUIRE(ode.Project(0.0, y.data()));
  const Vector q_projected = y.head(n), v_projected = y.tail(n);
  check_ode(q_projected, v_projected);
  check_ode(q_other, v_other);
}

}  // namespace mbb

namespace mbb {

TEST_CASE("the Simbody peer engine reproduces the references of the problems it models",
          "[simbody][reference]") {
  // Simbody builds each mechanism from the problem's ModelStructure in joint coordinates
  // (methods/simbody/simbody_model.cc): agreement with the analytic references (pendulums,
  // gyro top) and with the suite's tabulated references (two independent explicit methods
  // at rtol 1e-13, 9-11 digits) checks both the translation of the structure and our
  // redundant-coordinate models. Simbody's RKM at the default accuracy 1e-10 keeps the
  // error between 2e-10 and 5e-8 relative here (measured: stiff_pendulum 4.5e-8, spin_top
  // 4.5e-8, gyro_top 3.1e-8, the others <= 4.4e-9); 1e-7 leaves a factor 2 over the worst
  // for error growth, and a wrong joint frame, axis or mapping is off by O(1).
  for (const std::string problem :
       {"planar_pendulum", "physical_pendulum", "stiff_pendulum", "double_pendulum",
        "spatial_pendulum", "spin_top", "gyro_top", "four_bar", "bricard", "slider_crank_3d"}) {
    const RunRecord r = RunQuiet(problem, "simbody");
    INFO(problem << ": " << r.message);
    REQUIRE(r.status == RunStatus::kOk);
    REQUIRE(r.metrics.error);
    CHECK(r.metrics.error->position_max_rel < 1e-7);
  }
  // What the translation lacks is refused with the reason: prescribed motions (drivers),
  // a problem without a structure (the seven-angle Andrews form).
  const RunRecord driven = RunQuiet("small_mass_oscillator", "simbody");
  CHECK(driven.status == RunStatus::kNotApplicable);
  CHECK(driven.message.find("driver") != std::string::npos);
  const RunRecord bare = RunQuiet("andrews_squeezer", "simbody");
  CHECK(bare.status == RunStatus::kNotApplicable);
  CHECK(bare.message.find("structure") != std::string::npos);
}

}  // namespace mbb
