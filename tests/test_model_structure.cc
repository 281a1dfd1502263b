// The model layer's formulation registry and the ModelStructure it records: coordinate
// blocks, row ownership, the kinematic tree; relative outputs in every formulation; the
// momenta of the DAE contract.
#include <catch2/catch.hpp>

#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>

#include "harness/model_file.h"
#include "problems/catalogue/model_helpers.h"
#include "problems/core/derivative_check.h"
#include "problems/core/problem.h"
#include "problems/model/model_problem.h"

namespace mbb {
namespace {

ParameterSet Formulation(const std::string& name) {
  ParameterSet p;
  p.Set("formulation", name);
  return p;
}

// Every row of Phi owned exactly once, in order, with a name per row; every joint and
// driver owns one block.
void CheckRowOwnership(const Problem& p) {
  const ModelStructure& s = *p.structure;
  int next = 0;
  std::vector<int> joint_blocks(s.model.joints.size(), 0);
  std::vector<int> driver_blocks(s.model.drivers.size(), 0);
  for (const auto& r : s.rows) {
    CHECK(r.first_row == next);
    CHECK(r.num_rows == static_cast<int>(r.row_names.size()));
    next += r.num_rows;
    if (r.owner == ConstraintRows::Owner::kJoint) ++joint_blocks.at(r.index);
    if (r.owner == ConstraintRows::Owner::kDriver) ++driver_blocks.at(r.index);
  }
  CHECK(next == p.m());
  for (int count : joint_blocks) CHECK(count == 1);
  for (int count : driver_blocks) CHECK(count == 1);
}

// Coordinate blocks tile q; the tree's parents come before their children.
void CheckBlocksAndTree(const Problem& p) {
  const ModelStructure& s = *p.structure;
  int next = 0;
  for (const auto& b : s.bodies) {
    CHECK(b.offset == next);
    next += b.size;
  }
  CHECK(next == p.n());
  const KinematicTree& t = s.tree;
  REQUIRE(t.topological_order.size() == s.model.bodies.size());
  std::vector<int> position(s.model.bodies.size(), -1);
  for (size_t k = 0; k < t.topological_order.size(); ++k) position[t.topological_order[k]] = k;
  for (size_t b = 0; b < s.model.bodies.size(); ++b) {
    REQUIRE(position[b] >= 0);
    if (t.parent[b] >= 0) CHECK(position[t.parent[b]] < position[b]);
    if (t.parent_joint[b] >= 0) {
      const JointDescription& j = s.model.joints[t.parent_joint[b]];
      const std::string parent = t.parent[b] < 0 ? "ground" : s.model.bodies[t.parent[b]].name;
      const std::string self = s.model.bodies[b].name;
      CHECK(((j.body_a == parent && j.body_b == self) || (j.body_b == parent && j.body_a == self)));
    }
  }
}

}  // namespace

TEST_CASE("closed-loop models record their rows and a spanning tree with the loop cuts",
          "[model][structure]") {
  // Cut joints = joints - bodies for a mechanism connected to the ground (one per
  // independent loop): four_bar 4 - 3, double_four_bar 7 - 5, bricard 6 - 5.
  const std::vector<std::pair<std::string, size_t>> cases = {
      {"four_bar", 1}, {"double_four_bar", 2}, {"bricard", 1}};
  for (const auto& [id, cuts] : cases) {
    for (const std::string formulation : {"planar", "euler-parameters"}) {
      if (id == "bricard" && formulation == "planar") continue;
      INFO(id << " " << formulation);
      const Problem p = BuildProblem(id, Formulation(formulation));
      REQUIRE(p.structure);
      CHECK(p.formulation == formulation);
      CHECK(p.structure->formulation == formulation);
      CHECK(p.structure->tree.cut_joints.size() == cuts);
      CHECK(p.structure->model.joints.size() - p.structure->model.bodies.size() == cuts);
      CheckRowOwnership(p);
      CheckBlocksAndTree(p);
      // Every body hangs from the ground through joints (no free body in these).
      for (int j : p.structure->tree.parent_joint) CHECK(j >= 0);
    }
  }
}

TEST_CASE("the Euler-parameter normalisation rows belong to their bodies", "[model][structure]") {
  const Problem p = BuildProblem("bricard", ParameterSet());
  int body_rows = 0;
  for (const auto& r : p.structure->rows)
    if (r.owner == ConstraintRows::Owner::kBody) body_rows += r.num_rows;
  CHECK(body_rows == 5);  // one e^T e = 1 per bar
}

TEST_CASE("an unknown formulation is refused listing the choices", "[model][structure]") {
  try {
    BuildProblem("double_four_bar", Formulation("bogus"));
    FAIL("no error");
  } catch (const InputError& e) {
    const std::string what = e.what();
    CHECK(what.find("euler-parameters") != std::string::npos);
    CHECK(what.find("planar") != std::string::npos);
  }
  ModelDescription m;
  m.dimension = 3;
  m.formulation = "planar";  // a spatial model has no planar form
  BodyDescription b;
  b.name = "b";
  b.mass = 1.0;
  b.inertia = Eigen::Matrix3d::Identity();
  m.bodies = {b};
  CHECK_THROWS_AS(BuildModelProblem(m, "x"), InputError);
}

TEST_CASE("relative point outputs are measured in the reference body's frame in every formulation",
          "[model][structure]") {
  // Two free planar bodies; the output is body b's point s_b in body a's frame,
  // R(theta_a)^T (r_b + R(theta_b) s_b - r_a), computed here by hand.
  ModelDescription m;
  m.title = "relative outputs";
  m.dimension = 2;
  BodyDescription a = PlanarBar("a", 1.0, 1.0, 0.3, -0.2, 0.7);
  BodyDescription b = PlanarBar("b", 2.0, 1.0, 1.1, 0.5, -0.4);
  m.bodies = {a, b};
  const Eigen::Vector3d s_b = P(0.25, -0.1);
  OutputDescription ox = RelativeOutput("u_x", OutputKind::kPointX, "b", "a");
  OutputDescription oy = RelativeOutput("u_y", OutputKind::kPointY, "b", "a");
  OutputDescription angle = RelativeOutput("phi", OutputKind::kAngle, "b", "a");
  ox.point = oy.point = s_b;
  m.outputs = {ox, oy, angle};
  const Eigen::Rotation2Dd ra(a.angle), rb(b.angle);
  const Eigen::Vector2d expected =
      ra.inverse() * (b.position.head<2>() + rb * s_b.head<2>() - a.position.head<2>());
  for (const std::string formulation : {"planar", "euler-parameters"}) {
    INFO(formulation);
    m.formulation = formulation;
    const Problem p = BuildModelProblem(m, "relative");
    Vector out(3);
    p.calc_outputs(0.0, p.q0, p.v0, out);
    // Rounding only: a few operations on O(1) numbers.
    CHECK(out[0] == Approx(expected.x()).margin(1e-14));
    CHECK(out[1] == Approx(expected.y()).margin(1e-14));
    CHECK(out[2] == Approx(b.angle - a.angle).margin(1e-14));
  }
}

TEST_CASE("momenta of a spatial body equal r x m v + R J R^T w at a stated state",
          "[model][momentum]") {
  // One free rigid body: the DAE's momenta from (q, v) in Euler parameters against the
  // values computed here from the stated pose and twist with Eigen's rotation matrix.
  ModelDescription m;
  m.title = "one body";
  m.dimension = 3;
  BodyDescription b;
  b.name = "b";
  b.mass = 2.5;
  b.inertia << 0.4, 0.05, -0.02, 0.05, 0.7, 0.03, -0.02, 0.03, 0.9;
  const Eigen::Quaterniond rotation(Eigen::AngleAxisd(0.8, P(0.3, -0.5, 0.8).normalized()));
  b.orientation = Eigen::Vector4d(rotation.w(), rotation.x(), rotation.y(), rotation.z());
  b.position = P(0.4, -1.2, 0.7);
  b.velocity = P(1.5, 0.2, -0.6);
  b.angular_velocity = P(-0.9, 2.0, 0.4);
  m.bodies = {b};
  const Problem p = BuildModelProblem(m, "one_body");
  auto ws = p.dae->MakeWorkspace();
  Eigen::Vector3d linear, angular;
  REQUIRE(p.dae->capabilities().momenta);
  p.dae->CalcMomenta(*ws, p.q0, p.v0, linear, angular);
  const Eigen::Matrix3d r = rotation.toRotationMatrix();
  const Eigen::Vector3d expected_linear = b.mass * b.velocity;
  const Eigen::Vector3d expected_angular =
      b.position.cross(b.mass * b.velocity) + r * b.inertia * r.transpose() * b.angular_velocity;
  // Rounding only (O(1) numbers, a few dozen operations).
  CHECK((linear - expected_linear).norm() <= 1e-13);
  CHECK((angular - expected_angular).norm() <= 1e-13);
}

TEST_CASE("a planar model and its Euler-parameter lift have the same momenta",
          "[model][momentum]") {
  // double_four_bar at its assembled initial state: planar sum (m v, x m vy - y m vx + J w)
  // against the lifted spatial sum; the lift keeps everything in the plane, so the
  // out-of-plane components vanish.
  const Problem planar = BuildProblem("double_four_bar", ParameterSet());
  const Problem lifted = BuildProblem("double_four_bar", Formulation("euler-parameters"));
  Eigen::Vector3d l2, a2, l3, a3;
  auto ws2 = planar.dae->MakeWorkspace();
  auto ws3 = lifted.dae->MakeWorkspace();
  REQUIRE(planar.dae->capabilities().momenta);
  planar.dae->CalcMomenta(*ws2, planar.q0, planar.v0, l2, a2);
  REQUIRE(lifted.dae->capabilities().momenta);
  lifted.dae->CalcMomenta(*ws3, lifted.q0, lifted.v0, l3, a3);
  // Both initial states are assembled to ~1e-12 (kInitialConditionTolerance); momenta are
  // O(5) kg m/s.
  CHECK((l2 - l3).norm() <= 1e-9);
  CHECK((a2 - a3).norm() <= 1e-9);
  CHECK(std::abs(l2.z()) == 0.0);
  // Hand value of the stated state: every crank turns at omega = -1 about its bottom
  // pivot (centre at height 0.5: vx = 0.5, J w = -1/12), couplers translate at vx = 1
  // (height 1); y' = 0. Linear x = 3 * 0.5 + 2 * 1 = 3.5; angular z = -sum y m vx + J w
  // = -(3 * 0.5 * 0.5 + 2 * 1 * 1) - 3 / 12 = -3.
  CHECK(l2.x() == Approx(3.5).margin(1e-9));
  CHECK(a2.z() == Approx(-3.0).margin(1e-9));
}

TEST_CASE("torsional spring-dampers and angle drivers mean the same in the planar lift",
          "[model][structure]") {
  // Two unit bars (1 kg, J = 1/12) hanging from the origin along +x, no gravity:
  // link1 turns at w1 = 1 about the origin, link2 at w2 = 2 about link1's tip (stated
  // velocities consistent by hand). A torsional spring-damper k = 3, c = 0.7, rest 0.2
  // between them: V = k (0 - 0.2)^2 / 2 = 0.06, power -c (w2 - w1)^2 = -0.7;
  // T = (0.5^2 + 2^2) / 2 + (1^2 + 2^2) / 24.
  ModelDescription m;
  m.title = "torsional chain";
  m.dimension = 2;
  BodyDescription l1 = PlanarBar("link1", 1.0, 1.0, 0.5, 0.0, 0.0);
  BodyDescription l2 = PlanarBar("link2", 1.0, 1.0, 1.5, 0.0, 0.0);
  l1.velocity = P(0.0, 0.5);
  l1.angular_velocity.z() = 1.0;
  l2.velocity = P(0.0, 2.0);
  l2.angular_velocity.z() = 2.0;
  m.bodies = {l1, l2};
  m.joints = {Joint("O", JointKind::kRevolute, "ground", P(0, 0), "link1", P(-0.5, 0)),
              Joint("A", JointKind::kRevolute, "link1", P(0.5, 0), "link2", P(-0.5, 0))};
  m.forces = {TorsionalSpring("spring_A", "link1", "link2", 3.0, 0.7, 0.2)};
  const double kinetic = 0.5 * (0.25 + 4.0) + (1.0 + 4.0) / 24.0;
  for (const std::string formulation : {"planar", "euler-parameters"}) {
    INFO(formulation);
    m.formulation = formulation;
    const Problem p = BuildModelProblem(m, "torsional");
    auto ws = p.dae->MakeWorkspace();
    // Rounding only.
    CHECK(p.dae->CalcEnergy(*ws, 0.0, p.q0, p.v0) == Approx(kinetic + 0.06).margin(1e-13));
    CHECK(p.dae->CalcAppliedPower(*ws, 0.0, p.q0, p.v0) == Approx(-0.7).margin(1e-13));
  }

  // One bar about the origin driven by angle = 0.3 + 0.5 t: at t = 0 its angle is 0.3 and
  // its angular momentum about the origin (m |r|^2 + J) w = (1/4 + 1/12) 0.5 = 1/6.
  ModelDescription d;
  d.title = "driven bar";
  d.dimension = 2;
  BodyDescription bar = PlanarBar("bar", 1.0, 1.0, 0.5 * std::cos(0.3), 0.5 * std::sin(0.3), 0.3);
  bar.twist_is_estimate = true;
  d.bodies = {bar};
  d.joints = {Joint("O", JointKind::kRevolute, "ground", P(0, 0), "bar", P(-0.5, 0))};
  DriverDescription driver;
  driver.name = "drive";
  driver.kind = DriverKind::kCoordinate;
  driver.body_a = "bar";
  driver.coordinate = "angle";
  driver.law.offset = 0.3;
  driver.law.rate = 0.5;
  d.drivers = {driver};
  d.outputs = {Output("theta", OutputKind::kAngle, "bar")};
  for (const std::string formulation : {"planar", "euler-parameters"}) {
    INFO(formulation);
    d.formulation = formulation;
    const Problem p = BuildModelProblem(d, "driven");
    auto ws = p.dae->MakeWorkspace();
    Vector out(1);
    p.calc_outputs(0.0, p.q0, p.v0, out);
    CHECK(out[0] == Approx(0.3).margin(1e-12));  // assembly tolerance
    Eigen::Vector3d linear, angular;
    REQUIRE(p.dae->capabilities().momenta);
    p.dae->CalcMomenta(*ws, p.q0, p.v0, linear, angular);
    CHECK(angular.z() == Approx(1.0 / 6.0).margin(1e-12));
  }
}

TEST_CASE("the lifted Andrews squeezer model form passes the derivative check",
          "[model][structure][derivatives]") {
  // The derivative test varies one choice parameter at a time, so form=model with
  // formulation=euler-parameters (the only lifted model with a torque and a spring) is
  // checked here, off the manifold as there.
  ParameterSet params;
  params.Set("form", "model");
  params.Set("formulation", "euler-parameters");
  const Problem p = BuildProblem("andrews_squeezer", params);
  CHECK(p.formulation == "euler-parameters");
  const Vector q = p.q0 + 0.1 * Vector::LinSpaced(p.n(), 0.3, -0.7);
  const Vector v = p.v0 + Vector::LinSpaced(p.n(), 0.5, -1.1);
  const Vector lambda = Vector::LinSpaced(p.m(), 1.3, -0.4);
  const DerivativeReport report = CheckDerivatives(*p.dae, 0.003, q, v, lambda);
  INFO(report.Summary());
  CHECK(report.ok());
}

TEST_CASE("a model file chooses its formulation with the \"formulation\" key",
          "[model][structure]") {
  const std::string text = R"({"dimension": 2, "end_time": 1, "formulation": "FORM",
    "bodies": [{"name": "bar", "mass": 1, "inertia": 0.0833, "position": [0.5, 0]}],
    "joints": [{"name": "O", "type": "revolute", "body_a": "ground", "point_a": [0, 0],
                "body_b": "bar", "point_b": [-0.5, 0]}],
    "forces": [{"type": "gravity", "vector": [0, -9.81]}]})";
  auto with = [&](const std::string& form) {
    std::string t = text;
    t.replace(t.find("FORM"), 4, form);
    return t;
  };
  const Problem p = BuildModelProblem(ParseModelText(with("euler-parameters"), "f.json"), "f");
  CHECK(p.formulation == "euler-parameters");
  CHECK(p.n() == 7);
  try {
    ParseModelText(with("bogus"), "f.json");
    FAIL("no error");
  } catch (const InputError& e) {
    const std::string what = e.what();
    CHECK(what.find("f.json") != std::string::npos);
    // The message lists every formulation that accepts a planar model, from the registry.
    std::string choices;
    for (const auto& name : FormulationsFor(2)) choices += (choices.empty() ? "" : ", ") + name;
    CHECK(what.find("choices: " + choices + ")") != std::string::npos);
    CHECK(choices.find("euler-parameters") != std::string::npos);
    CHECK(choices.find("planar") != std::string::npos);
  }
}

}  // namespace mbb
