// flyball_governor (IFToMM A05, problems/catalogue/flyball_governor.cc): the statement's
// own consistency check (springs start at their rest length), parameter validation, and
// physics a run must respect whatever the method: the dampers dissipate (E falls, the
// balance E - E0 - W_damper closes) and the angular momentum about the shaft axis is
// conserved (gravity and the ground revolute exert no torque about z; springs and dampers
// are internal).
#include <catch2/catch.hpp>

#include <cmath>

#include "harness/runner.h"
#include "problems/core/problem.h"

namespace mbb {
namespace {

Problem Flyball(const std::map<std::string, std::string>& values) {
  ParameterSet p;
  for (const auto& [key, value] : values) p.Set(key, value);
  return BuildProblem("flyball_governor", p);
}

// Angular momentum about the global z axis, L_z = p . dq/dtheta with p = M v the
// generalised momentum and dq/dtheta the coordinates' rate under a rigid rotation of the
// whole system about z: r -> z x r for every centre of mass, e -> (1/2) (0, z) * e (the
// quaternion product) for every body's Euler parameters. Bodies are the four rigid bodies
// of the model (7 coordinates each).
double AngularMomentumZ(const Problem& problem, const Vector& q, const Vector& v) {
  auto ws = problem.dae->MakeWorkspace();
  Matrix mass(problem.n(), problem.n());
  problem.dae->CalcMassMatrix(*ws, q, mass);
  Vector generator = Vector::Zero(problem.n());
  for (int o = 0; o < problem.n(); o += 7) {
    generator[o] = -q[o + 1];  // z x r
    generator[o + 1] = q[o];
    const Eigen::Quaterniond e(q[o + 3], q[o + 4], q[o + 5], q[o + 6]);
    const Eigen::Quaterniond rate = Eigen::Quaterniond(0.0, 0.0, 0.0, 0.5) * e;
    generator.segment(o + 3, 4) << rate.w(), rate.x(), rate.y(), rate.z();
  }
  return (mass * v).dot(generator);
}

}  // namespace

TEST_CASE("flyball_governor: the springs start exactly at their rest length", "[flyball]") {
  // Statement geometry: slider point (0.05, 0, s = 0.5), rod midpoint half a rod (0.5 m) from
  // the hinge (0.05, 0, 1) at 30 degrees below horizontal.
  const double dx = 0.5 * std::cos(M_PI / 6.0), dz = (1.0 - 0.5 * std::sin(M_PI / 6.0)) - 0.5;
  // l0 = 0.5 m; 4 eps: two roundings in cos/sin and the square root.
  CHECK(std::abs(std::hypot(dx, dz) - 0.5) < 4e-16);

  // The built model: the spring energy is E(k) - E(0) at the same state, 2 * k/2 (l - l0)^2.
  // With k = 1e12 a length error of 1e-12 m would give 1 J; we allow 1e-9 J (roundoff of
  // E ~ 1e2 J at 1e-15 relative, with margin), i.e. |l - l0| < 3e-11 m.
  const Problem stiff = Flyball({{"k", "1e12"}}), free = Flyball({{"k", "0"}});
  REQUIRE(stiff.q0.size() == 28);  // 4 rigid bodies: shaft, slider, two lumped rods
  CHECK((stiff.q0 - free.q0).lpNorm<Eigen::Infinity>() == 0.0);  // the state does not depend on k
  auto ws = stiff.dae->MakeWorkspace();
  const double spring_energy = stiff.dae->CalcEnergy(*ws, 0.0, stiff.q0, stiff.v0) -
                               free.dae->CalcEnergy(*ws, 0.0, free.q0, free.v0);
  CHECK(std::abs(spring_energy) < 1e-9);
  // The stated state was consistent: the assembly kept s = 0.5 and raised no warning.
  Vector out(1);
  stiff.calc_outputs(0.0, stiff.q0, stiff.v0, out);
  CHECK(std::abs(out[0] - 0.5) < 1e-14);  // a few eps of 0.5
  CHECK(stiff.warnings.empty());
  // Everything spins at omega0 = 2 pi: L_z = omega0 * (the total inertia about z), which
  // for the two 5 kg point masses alone at radius 0.05 + cos 30 is 2 * 5 * 0.916^2 = 8.39;
  // the rest (rods, shaft, slider) adds well under 10 % (a rough bound, not a reference).
  const double radius = 0.05 + std::cos(M_PI / 6.0);
  const double point_masses = 2.0 * 5.0 * radius * radius;
  const double lz = AngularMomentumZ(stiff, stiff.q0, stiff.v0) / (2.0 * M_PI);
  CHECK(lz > point_masses);
  CHECK(lz < 1.1 * point_masses);
}

TEST_CASE("flyball_governor: bad parameters are refused naming the key", "[flyball]") {
  CHECK_THROWS_WITH(Flyball({{"k", "-1"}}), Catch::Contains("'k'"));
  CHECK_THROWS_WITH(Flyball({{"c", "-4e4"}}), Catch::Contains("'c'"));
  CHECK_THROWS_WITH(Flyball({{"c", "nan"}}), Catch::Contains("c"));
  CHECK_THROWS_WITH(Flyball({{"omega0", "inf"}}), Catch::Contains("omega0"));
  CHECK_THROWS_AS(Flyball({{"g", "-9.81"}}), InputError);
}

TEST_CASE("flyball_governor: dampers dissipate, the balance closes, L_z is conserved",
          "[flyball]") {
  RunSpec spec;
  spec.problem = "flyball_governor";
  spec.method = "ida";
  spec.t_end = 1.0;
  spec.repeats = 0;
  const RunRecord r = Execute(spec);
  REQUIRE(r.status == RunStatus::kOk);
  // The dampers are the only non-conservative force: their work is negative and the
  // mechanical energy falls by it.
  CHECK(r.metrics.external_work < 0.0);
  CHECK(r.metrics.energy_final < r.metrics.energy_initial);
  const double dissipated = -r.metrics.external_work;
  // The springs are so stiff that they act almost as rigid links: only ~2.5e-3 J of the
  // ~239 J is dissipated in 1 s (odeint-dopri5 and arkode-erk agree on 3.12e-3 J over
  // 10 s). The balance E - E0 - W must resolve it: a missing or doubled damper term gives a
  // balance error equal to the dissipated energy; ida at rtol 1e-10 measured 1.2e-3 of it.
  CHECK(r.metrics.energy_max_abs_drift < 1e-2 * dissipated);

  const Problem problem = Flyball({});
  REQUIRE(r.final_state_valid);
  const Vector q = Eigen::Map<const Vector>(r.final_q.data(), r.final_q.size());
  const Vector v = Eigen::Map<const Vector>(r.final_v.data(), r.final_v.size());
  const double lz0 = AngularMomentumZ(problem, problem.q0, problem.v0);
  // No torque about z: L_z conserved to the integration tolerance (rtol 1e-10 on states of
  // order 1 over ~1e3 steps gives ~1e-7 relative; 1e-6 catches any real torque).
  CHECK(std::abs(AngularMomentumZ(problem, q, v) - lz0) < 1e-6 * std::abs(lz0));
  // The harness's own momentum metric says the same over the whole run: the problem
  // declares angular_z conserved, and its drift is held to the same bound.
  REQUIRE(r.metrics.momentum);
  CHECK(r.metrics.momentum->conserved_components == std::vector<std::string>{"angular_z"});
  REQUIRE(r.metrics.momentum->conserved_max_abs_drift);
  CHECK(*r.metrics.momentum->conserved_max_abs_drift < 1e-6 * std::abs(lz0));
}

}  // namespace mbb
