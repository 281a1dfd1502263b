// The joint-tree formulation of spatial models (problems/model/joint_tree_spatial.h):
// the blocks H_i, J_i, k_i^(II) of paper 004 eq (9) against finite differences of the
// forward recursion (8), the O(N) energy and momenta against the Euler-parameter
// formulation of the same bodies, the inverse map (7)^-1 on a tumbling state, and the
// refusals (a chart driven into its singular set, an unsupported spatial joint).
#include <catch2/catch.hpp>
#include <fstream>

#include "harness/runner.h"
#include "problems/core/problem.h"
#include "problems/model/joint_tree.h"
#include "problems/model/model_problem.h"
#include "tests/run_spec.h"
#include "tests/scratch_directory.h"

namespace mbb {
namespace {

const JointTreeDae& Tree(const Problem& p) {
  const auto* dae = dynamic_cast<const JointTreeDae*>(p.dae.get());
  REQUIRE(dae != nullptr);
  return *dae;
}

// Body velocities (v, w) of every body, velocity-level layout, at (q, v).
Vector Twists(const JointTreeDae& dae, DaeWorkspace& ws, const Vector& q, const Vector& v) {
  TreeState s = dae.MakeState();
  dae.CalcTreeState(ws, 0.0, q, v, s);
  Vector out(dae.num_absolute_velocities());
  for (int i = 0; i < dae.num_bodies(); ++i) {
    const TreeBody& b = dae.bodies()[i];
    out.segment<3>(b.w_offset) = s.frames[i].v;
    if (b.rigid) out.segment<3>(b.w_offset + 3) = s.frames[i].w;
  }
  return out;
}

// Problems whose joint-tree form has every spatial joint kind: a point mass on a distance
// joint, a rigid body on a spherical joint, a rigid body on a distance joint, free rigid
// bodies carrying a cylindrical and a planar joint, and a revolute-prismatic-revolute tree
// (the flyball governor: shaft, slider, rods).
std::vector<Problem> SpatialTrees() {
  using Params = std::map<std::string, std::string>;
  std::vector<Problem> out;
  ModelDescription pendulum = BuildProblem("spatial_pendulum", ParameterSet()).structure->model;
  pendulum.formulation = "joint-tree";  // the hand-written entry's mechanism
  out.push_back(BuildModelProblem(pendulum, "spatial_pendulum"));
  out.push_back(BuildProblem("gyro_top", ParameterSet(Params{{"formulation", "joint-tree"}})));
  out.push_back(BuildProblem(
      "spin_top", ParameterSet(Params{{"form", "model"}, {"formulation", "joint-tree"}})));
  for (const char* id : {"cylindrical_pair", "planar_pair", "flyball_governor"})
    out.push_back(BuildProblem(id, ParameterSet(Params{{"formulation", "joint-tree"}})));
  return out;
}

}  // namespace

TEST_CASE("spatial joint tree: (9)'s H, J, k equal finite differences of the recursion (8)",
          "[recursive][spatial]") {
  // Along q(t) = q + t v + t^2/2 a, v(t) = v + t a the absolute accelerations are
  // p'' = -H p_pi'' - J a - k (9); central differences of the twists of (8) with step
  // 1e-5 agree to O(h^2) ~ 1e-10 times the second derivatives (entries O(10) here): 1e-7.
  for (const Problem& p : SpatialTrees()) {
    INFO(p.id);
    const JointTreeDae& dae = Tree(p);
    auto ws = dae.MakeWorkspace();
    const int n = p.n();
    std::srand(11);
    const Vector q = p.q0 + 0.2 * Vector::Random(n), v = Vector::Random(n), a = Vector::Random(n);
    TreeState s = dae.MakeState();
    dae.CalcTreeState(*ws, 0.0, q, v, s);
    Vector predicted(dae.num_absolute_velocities());
    for (int i = 0; i < dae.num_bodies(); ++i) {
      const TreeBody& b = dae.bodies()[i];
      BodyVector acc = -s.J[i] * a.segment(b.q_offset, b.n) - s.k2[i];
      if (b.parent >= 0)
        acc -=
            s.H[i] * predicted.segment(dae.bodies()[b.parent].w_offset, dae.bodies()[b.parent].d);
      predicted.segment(b.w_offset, b.d) = acc;
    }
    const double h = 1e-5;
    const Vector plus = Twists(dae, *ws, q + h * v + 0.5 * h * h * a, v + h * a);
    const Vector minus = Twists(dae, *ws, q - h * v + 0.5 * h * h * a, v - h * a);
    const Vector differences = (plus - minus) / (2.0 * h);
    CHECK((predicted - differences).lpNorm<Eigen::Infinity>() <
          1e-7 * (1.0 + differences.lpNorm<Eigen::Infinity>()));
  }
}

TEST_CASE("spatial joint tree: O(N) energy and momenta equal the Euler-parameter formulation's",
          "[recursive][spatial]") {
  // The same bodies without joints in Euler parameters (FormulateFreeBodies), at the
  // absolute coordinates (x, e), (x', e') the tree maps a joint state to: round-off apart.
  for (const Problem& p : SpatialTrees()) {
    INFO(p.id);
    const JointTreeDae& dae = Tree(p);
    const FormulatedModel free_bodies = FormulateFreeBodies(p.structure->model);
    const MechanicalDae& body_dae = *free_bodies.dae;
    REQUIRE(body_dae.num_coordinates() == dae.num_absolute());
    std::srand(7);
    const Vector q = p.q0 + 0.3 * Vector::Random(p.n()), v = Vector::Random(p.n());
    Vector abs_p(dae.num_absolute()), abs_pv(dae.num_absolute());
    dae.CalcAbsolute(q, v, abs_p, abs_pv);
    auto tree_ws = dae.MakeWorkspace();
    auto ws = body_dae.MakeWorkspace();
    const double energy = body_dae.CalcEnergy(*ws, 0.0, abs_p, abs_pv);
    CHECK(dae.CalcEnergy(*tree_ws, 0.0, q, v) ==
          Approx(energy).margin(1e-12 * (1.0 + std::abs(energy))));
    Eigen::Vector3d linear, angular, e_linear, e_angular;
    REQUIRE(dae.capabilities().momenta);
    dae.CalcMomenta(*tree_ws, q, v, linear, angular);
    REQUIRE(body_dae.capabilities().momenta);
    body_dae.CalcMomenta(*ws, abs_p, abs_pv, e_linear, e_angular);
    CHECK((linear - e_linear).norm() <= 1e-12 * (1.0 + e_linear.norm()));
    CHECK((angular - e_angular).norm() <= 1e-12 * (1.0 + e_angular.norm()));
  }
}

TEST_CASE("spatial joint tree: body motions map back to the joint coordinates they came from",
          "[recursive][spatial]") {
  // (7)^-1 after (7): the charts' angles come back within pi of the hint, the rates by
  // solving (8); round-off apart at states 0.3 rad from the stated pose.
  for (const Problem& p : SpatialTrees()) {
    INFO(p.id);
    const JointTreeDae& dae = Tree(p);
    std::srand(3);
    const Vector q = p.q0 + 0.3 * Vector::Random(p.n()), v = Vector::Random(p.n());
    Vector abs_p(dae.num_absolute()), abs_pv(dae.num_absolute());
    std::vector<BodyMotion> bodies(p.structure->model.bodies.size());
    dae.CalcBodyMotions(q, v, abs_p, abs_pv, bodies);
    Vector back_q = p.q0, back_v;
    p.structure->coordinates_from_bodies(bodies, back_q, back_v);
    CHECK((back_q - q).lpNorm<Eigen::Infinity>() < 1e-12);
    CHECK((back_v - v).lpNorm<Eigen::Infinity>() < 1e-11);
  }
}

TEST_CASE("spatial joint tree: a run that drives an Euler chart singular fails naming the body",
          "[recursive][spatial][bad-input]") {
  // A free body turning about its x axis at 1 rad/s with no force: its stated pose has
  // nutation 0 about the ground's z axis, so the chart is centred on it (C = Rx(-pi/2),
  // f1 = pi/2 + t) and f1 reaches the singular pi at t = pi/2, which the fixed step
  // h = pi/200 lands on (step 100): the run stops `failed` there instead of returning
  // a silent `ok` from a rank-deficient J_i.
  const std::string path = (ScratchDirectory("joint_tree_chart") / "tumbling.json").string();
  std::ofstream(path) << R"({"dimension": 3, "end_time": 3, "formulation": "joint-tree",
    "bodies": [{"name": "brick", "mass": 1, "inertia": [1, 2, 3],
                "angular_velocity": [1, 0, 0]}]})";
  for (const char* method : {"recursive", "joint-dense"}) {
    INFO(method);
    RunSpec spec =
        Spec("", method, {}, {{"integrator", "rk4"}, {"h", std::to_string(M_PI / 200)}}, 0.0);
    spec.model_file = path;
    const RunRecord r = Execute(spec);
    CHECK(r.status == RunStatus::kFailed);
    CHECK_THAT(r.message, Catch::Contains("body 'brick'") && Catch::Contains("chart is singular"));
  }
}

TEST_CASE("spatial joint tree: joints it does not write are refused with the joint's name",
          "[recursive][spatial][bad-input]") {
  const std::string path = (ScratchDirectory("joint_tree_refused") / "hinge.json").string();
  std::ofstream(path) << R"({"dimension": 3, "end_time": 1, "formulation": "joint-tree",
    "bodies": [{"name": "door", "mass": 1, "inertia": [[1, 0, 0], [0, 1, 0], [0, 0, 1]]}],
    "joints": [{"name": "hinge", "type": "universal", "body_a": "ground", "body_b": "door",
                "axis_a": [1, 0, 0], "axis_b": [0, 1, 0]}]})";
  RunSpec spec = Spec("", "recursive", {}, {}, 0.0);
  spec.model_file = path;
  CHECK_THROWS_WITH(Execute(spec), Catch::Contains("hinge") && Catch::Contains("joint-tree"));
}

}  // namespace mbb
