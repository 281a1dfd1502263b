// The analytic references recognise their mechanism from the problem's ModelStructure, not
// from its id (reference/analytic_pendulum.cc, analytic_gyro_top.cc).
#include <catch2/catch.hpp>

#include <cmath>
#include <map>
#include <string>

#include "harness/reference_maker.h"
#include "problems/core/problem.h"
#include "problems/model/model_problem.h"
#include "problems/model/model_structure.h"
#include "reference/reference.h"

namespace mbb {

TEST_CASE("analytic references are found from the mechanism, not the problem id",
          "[reference][structure]") {
  // The physical pendulum's mechanism (the structure of the hand-written entry), built as a
  // model-layer problem under another id, with a start not at rest.
  const Problem hand = BuildProblem("physical_pendulum", ParameterSet());
  REQUIRE(hand.structure);
  ModelDescription m = hand.structure->model;
  m.title = "renamed pendulum";
  m.bodies[0].angular_velocity.z() = 2.0;  // omega0 = 2 rad/s: still a libration (h < 2 w^2)
  m.bodies[0].velocity =
      2.0 * Eigen::Vector3d(-m.bodies[0].position.y(), m.bodies[0].position.x(), 0.0);
  const Problem model = BuildModelProblem(m, "some_other_id");
  const auto ref = FindReference(model);
  REQUIRE(ref);
  REQUIRE(ref->evaluate);
  // The closed form solves this DAE: Phi = 0 to round-off (each coordinate is rho cos/sin
  // of the same angle), and T + V constant with central-difference velocities, whose
  // O(dt^2) error is about 1e-10 J here; a wrong w^2 or start phase changes the energy by
  // O(1) J over a swing.
  auto ws = model.dae->MakeWorkspace();
  Vector q(model.n()), q_plus(model.n()), q_minus(model.n()), v(model.n()), phi(model.m());
  const double dt = 1e-5;
  double energy_min = 1e300, energy_max = -1e300;
  for (double t = 0.0; t <= 10.0; t += 0.0137) {
    ref->evaluate(t, q);
    model.dae->CalcPhi(*ws, t, q, phi);
    CHECK(phi.lpNorm<Eigen::Infinity>() < 1e-13);
    ref->evaluate(t + dt, q_plus);
    ref->evaluate(t - dt, q_minus);
    v = (q_plus - q_minus) / (2.0 * dt);
    const double e = model.dae->CalcEnergy(*ws, t, q, v);
    energy_min = std::min(energy_min, e);
    energy_max = std::max(energy_max, e);
  }
  CHECK(energy_max - energy_min < 1e-8);
  // The start is the problem's: the energy is that of (q0, v0).
  CHECK(std::abs(energy_min - model.dae->CalcEnergy(*ws, 0.0, model.q0, model.v0)) < 1e-8);

  // The same mechanism with one more force is another mechanism: no reference.
  ForceDescription push;
  push.name = "push";
  push.kind = ForceKind::kTorque;
  push.body_a = m.bodies[0].name;
  push.vector = Eigen::Vector3d(0, 0, 0.1);
  m.forces.push_back(push);
  CHECK_FALSE(FindReference(BuildModelProblem(m, "physical_pendulum")));
}

TEST_CASE("a run in another formulation gets the stored reference mapped through the bodies",
          "[reference][structure]") {
  // four_bar's stored reference is in its default planar coordinates (x, y, theta per
  // body). In directors (x, y, d1, d2 per body) the mapped samples must lie on the directors'
  // constraint manifold (joint rows and |d_I| = 1, d1 . d2 = 0) to the reference's own
  // accuracy (it satisfies the planar constraints to about 1e-12; the map is exact up to
  // rounding), and the named outputs computed from them must be the planar ones.
  ParameterSet directors;
  directors.Set("formulation", "directors");
  const Problem problem = BuildProblem("four_bar", directors);
  const Problem planar = BuildProblem("four_bar", ParameterSet());
  const auto ref = FindAnyReference(problem);
  const auto planar_ref = FindAnyReference(planar);
  REQUIRE(ref);
  REQUIRE(planar_ref);
  REQUIRE(ref->positions.size() == planar_ref->positions.size());
  REQUIRE(ref->outputs.size() == planar_ref->outputs.size());
  CHECK(ref->id.find("mapped through the body motions") != std::string::npos);
  auto ws = problem.dae->MakeWorkspace();
  Vector phi(problem.m());
  for (size_t k = 0; k < ref->positions.size(); ++k) {
    REQUIRE(ref->positions[k].size() == problem.n());
    problem.dae->CalcPhi(*ws, ref->times[k], ref->positions[k], phi);
    CHECK(phi.lpNorm<Eigen::Infinity>() < 1e-10);
    for (Eigen::Index i = 0; i < ref->outputs[k].size(); ++i) {
      if (!std::isfinite(planar_ref->outputs[k][i])) continue;
      // Angles (the outputs with a period) are equal up to whole turns: the directors give
      // them from atan2, the planar coordinates carry them continuously.
      double d = ref->outputs[k][i] - planar_ref->outputs[k][i];
      const double period = problem.output_periods.empty() ? 0.0 : problem.output_periods[i];
      if (period > 0.0) d -= period * std::round(d / period);
      CHECK(std::abs(d) < 1e-12);
    }
  }
}

// The start check of an analytic reference maps the closed form's start into the problem's
// coordinates with CoordinatesFromBodies, whose input q is a continuity hint (a joint-tree
// angle is unwrapped next to it). It must be the problem's start: with an uninitialised
// vector the angle came back 2 pi k away whenever the freed memory malloc handed out held
// a large number, and the run had no error block (gyro_top under recursive, once under
// ctest -j2). Here the chunk of the size the check allocates is freed full of 1e3 just
// before, so glibc hands it back to an uninitialised vector; any finite hint but the start
// gives an angle off by 2 pi k (k = 159) and no reference.
TEST_CASE("an analytic reference's start check does not depend on recycled memory",
          "[reference][structure]") {
  ModelDescription pendulum = BuildProblem("physical_pendulum", ParameterSet()).structure->model;
  pendulum.formulation = "joint-tree";
  pendulum.bodies[0].angular_velocity.z() = 2.0;  // a libration, started off rest
  pendulum.bodies[0].velocity =
      2.0 * Eigen::Vector3d(-pendulum.bodies[0].position.y(), pendulum.bodies[0].position.x(), 0.0);
  const Problem problems[] = {
      BuildProblem("gyro_top",
                   ParameterSet(std::map<std::string, std::string>{{"formulation", "joint-tree"}})),
      BuildModelProblem(pendulum, "pendulum_tree")};
  for (const Problem& problem : problems) {
    CAPTURE(problem.id);
    for (int trial = 0; trial < 3; ++trial) {
      {
        Vector poison = Vector::Constant(problem.n(), 1e3);
        Vector poison_v = Vector::Constant(problem.n(), 1e3);
        REQUIRE(poison.sum() + poison_v.sum() > 0.0);  // written, then freed
      }
      const auto ref = FindReference(problem);
      REQUIRE(ref);
      CHECK(ref->id == problem.id + "/analytic");
    }
  }
}

}  // namespace mbb
