// Model layer and JSON model files: a user-written model file runs through the library entry
// point the CLI uses (and through the CLI itself); malformed files are refused with
// InputError naming the file and the offending key or joint; the formulations agree with
// independent facts (analytic pendulum, Eigen's quaternion rotation, the test-set Andrews
// reference, Bricard's rank).
#include <catch2/catch.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "harness/cli.h"
#include "harness/model_file.h"
#include "harness/runner.h"
#include "problems/model/model_problem.h"
#include "reference/reference.h"

namespace mbb {
namespace {

namespace fs = std::filesystem;

// A user's triple pendulum of uniform 1 m, 1 kg bars, hanging horizontally at rest.
const char* kTriplePendulum = R"({
  "id": "user_triple_pendulum",
  "dimension": 2,
  "end_time": 1.0,
  "bodies": [
    {"name": "l1", "mass": 1, "inertia": 0.0833333333333333, "position": [0.5, 0]},
    {"name": "l2", "mass": 1, "inertia": 0.0833333333333333, "position": [1.5, 0]},
    {"name": "l3", "mass": 1, "inertia": 0.0833333333333333, "position": [2.5, 0]}
  ],
  "joints": [
    {"name": "O", "type": "revolute", "body_a": "ground", "body_b": "l1", "point_b": [-0.5, 0]},
    {"name": "A", "type": "revolute", "body_a": "l1", "point_a": [0.5, 0], "body_b": "l2", "point_b": [-0.5, 0]},
    {"name": "B", "type": "revolute", "body_a": "l2", "point_a": [0.5, 0], "body_b": "l3", "point_b": [-0.5, 0]}
  ],
  "forces": [{"type": "gravity", "vector": [0, -9.81]}],
  "outputs": [{"name": "tip_y", "type": "y", "body": "l3", "point": [0.5, 0]}]
})";

std::string WriteTemp(const std::string& name, const std::string& text) {
  const fs::path dir = fs::temp_directory_path() / "mbbench_model_tests";
  fs::create_directories(dir);
  const std::string path = (dir / name).string();
  std::ofstream(path) << text;
  return path;
}

struct RecordOutputs {
  std::vector<std::string> names;
  std::vector<double> values;
};

std::string Replace(std::string text, const std::string& from, const std::string& to) {
  const auto pos = text.find(from);
  REQUIRE(pos != std::string::npos);
  return text.replace(pos, from.size(), to);
}

// The InputError message LoadModelProblem throws for `text` ("" if it does not throw).
std::string ErrorFor(const std::string& name, const std::string& text) {
  const std::string path = WriteTemp(name, text);
  try {
    LoadModelProblem(path, ParameterSet());
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("a user-written model file runs through the runner and the CLI", "[model]") {
  const std::string path = WriteTemp("triple.json", kTriplePendulum);
  RunSpec spec;
  spec.model_file = path;
  spec.method = "ida";
  spec.repeats = 0;
  const RunRecord r = Execute(spec);
  REQUIRE(r.status == RunStatus::kOk);
  CHECK(r.problem_id == "user_triple_pendulum");
  CHECK(r.n == 9);
  CHECK(r.dof == 3);
  CHECK(r.output_names == std::vector<std::string>{"tip_y"});
  // Conservative system: ida at rtol 1e-10 keeps |E - E0| near 1e-7 J over 1 s (measured
  // 1.5e-7 over 5 s); 1e-5 J is two orders above that and far below the 30 J of motion.
  CHECK(r.metrics.energy_max_abs_drift < 1e-5);
  // The bars fall: the tip must be below its start (an actual motion, not a frozen state).
  CHECK(r.outputs.at(0) < -1.0);

  const std::string out = (fs::temp_directory_path() / "mbbench_model_tests" / "cli").string();
  CHECK(RunCli({"run", "--model", path, "-m", "ida", "--t-end", "0.1", "--repeats", "0", "--out",
                out}) == 0);
  CHECK(fs::exists(out + "/user_triple_pendulum_ida.json"));
}

TEST_CASE("malformed model files are refused naming the file and the key or joint", "[model]") {
  SECTION("typo in a key") {
    const std::string msg = ErrorFor(
        "typo.json", Replace(kTriplePendulum, R"("name": "l2", "mass")", R"("name": "l2", "mas")"));
    CHECK_THAT(msg, Catch::Contains("typo.json") && Catch::Contains("'mas'") &&
                        Catch::Contains("bodies[1] 'l2'"));
  }
  SECTION("joint referencing a missing body") {
    const std::string msg = ErrorFor(
        "missing.json",
        Replace(kTriplePendulum, R"("body_a": "l2", "point_a")", R"("body_a": "l9", "point_a")"));
    CHECK_THAT(msg, Catch::Contains("missing.json") && Catch::Contains("joint 'B'") &&
                        Catch::Contains("'l9'"));
  }
  SECTION("a value that is not a number") {
    const std::string msg = ErrorFor(
        "nan.json",
        Replace(kTriplePendulum, R"("name": "l3", "mass": 1)", R"("name": "l3", "mass": "NaN")"));
    CHECK_THAT(msg, Catch::Contains("nan.json") && Catch::Contains("'mass'") &&
                        Catch::Contains("must be a number"));
  }
  SECTION("a bare NaN is not JSON") {
    const std::string msg = ErrorFor(
        "bare_nan.json",
        Replace(kTriplePendulum, R"("name": "l3", "mass": 1)", R"("name": "l3", "mass": NaN)"));
    CHECK_THAT(msg, Catch::Contains("bare_nan.json") && Catch::Contains("not valid JSON"));
  }
  SECTION("an unknown joint type") {
    const std::string msg =
        ErrorFor("type.json", Replace(kTriplePendulum, R"("name": "A", "type": "revolute")",
                                      R"("name": "A", "type": "revolut")"));
    CHECK_THAT(msg, Catch::Contains("type.json") && Catch::Contains("joints[1] 'A'") &&
                        Catch::Contains("'revolut'"));
  }
  SECTION("an initial condition that cannot be assembled") {
    // A joint C pins the tip of the 3 m chain to ground 10 m away: it cannot reach.
    const std::string msg =
        ErrorFor("far.json", Replace(kTriplePendulum, R"("body_b": "l3", "point_b": [-0.5, 0]})",
                                     R"("body_b": "l3", "point_b": [-0.5, 0]},
        {"name": "C", "type": "revolute", "body_a": "l3", "point_a": [0.5, 0],
         "body_b": "ground", "point_b": [10, 0]})"));
    CHECK_THAT(msg, Catch::Contains("far.json") && Catch::Contains("cannot be assembled") &&
                        Catch::Contains("joint '"));
  }
  SECTION("the CLI exits 2 on a bad file") {
    const std::string path =
        WriteTemp("cli_typo.json", Replace(kTriplePendulum, R"("end_time")", R"("end_tme")"));
    CHECK(RunCli({"run", "--model", path, "-m", "ida", "--repeats", "0"}) == 2);
  }
}

TEST_CASE("an inconsistent stated pose is projected with a warning", "[model]") {
  // l2 stated 0.01 m too high: assemblable, so projected, and the result says so.
  const std::string path = WriteTemp("off.json", Replace(kTriplePendulum, R"("position": [1.5, 0])",
                                                         R"("position": [1.5, 0.01])"));
  const Problem p = LoadModelProblem(path, ParameterSet());
  REQUIRE(p.warnings.size() == 1);
  CHECK_THAT(p.warnings[0], Catch::Contains("initial positions assembled"));
  // The residuals are recorded: the stated joint gap of 0.01 m, closed by Newton to the
  // assembly tolerance (1e-12 relative, problems/core/consistent_initial_conditions.h).
  REQUIRE(p.initial_residuals.recorded);
  CHECK(std::abs(p.initial_residuals.position_stated - 0.01) < 1e-12);
  CHECK(p.initial_residuals.position < 1e-12);
  CHECK(p.initial_residuals.velocity < 1e-12);
  // Marked as an estimate, the same pose is assembled silently.
  const std::string estimate =
      WriteTemp("estimate.json", Replace(kTriplePendulum, R"("position": [1.5, 0])",
                                         R"("position": [1.5, 0.01], "estimate": ["pose"])"));
  CHECK(LoadModelProblem(estimate, ParameterSet()).warnings.empty());
}

TEST_CASE("Euler-parameter rotation A = Ebar E^T matches Eigen's quaternion rotation", "[model]") {
  // A spatial body with an arbitrary orientation, held by a spherical joint at its stated
  // pose; the output x, y, z of a body point must equal r + R(e) s from Eigen.
  ModelDescription m;
  m.title = "rotation check";
  m.dimension = 3;
  BodyDescription b;
  b.name = "body";
  b.mass = 1.0;
  b.inertia = Eigen::Vector3d(1.0, 2.0, 3.0).asDiagonal();
  b.position = Eigen::Vector3d(0.3, -0.2, 0.5);
  b.orientation = Eigen::Vector4d(0.8, 0.1, -0.4, 0.3).normalized();
  m.bodies.push_back(b);
  const Eigen::Quaterniond e(b.orientation[0], b.orientation[1], b.orientation[2],
                             b.orientation[3]);
  const Eigen::Vector3d s(0.7, -0.1, 0.25);
  JointDescription j;
  j.name = "ball";
  j.kind = JointKind::kSpherical;
  j.body_a = "ground";
  j.point_a = b.position + e * s;
  j.body_b = "body";
  j.point_b = s;
  m.joints.push_back(j);
  for (const char* axis : {"x", "y", "z"}) {
    OutputDescription o;
    o.name = axis;
    o.kind = axis[0] == 'x'   ? OutputKind::kPointX
             : axis[0] == 'y' ? OutputKind::kPointY
                              : OutputKind::kPointZ;
    o.body = "body";
    o.point = Eigen::Vector3d(-0.4, 0.9, 0.2);
    m.outputs.push_back(o);
  }
  const Problem p = BuildModelProblem(m, "rotation_check");
  CHECK(p.warnings.empty());  // the stated pose was consistent: nothing projected
  Vector out(3);
  p.calc_outputs(0.0, p.q0, p.v0, out);
  const Eigen::Vector3d expected = b.position + e * Eigen::Vector3d(-0.4, 0.9, 0.2);
  // Both are a handful of products of O(1) numbers: agreement to 1e-14 is round-off.
  CHECK((out - expected).cwiseAbs().maxCoeff() < 1e-14);
}

TEST_CASE("catalogue entries built on the model layer meet their references", "[model]") {
  SECTION("simple_pendulum_iftomm against the elliptic closed form") {
    RunSpec spec;
    spec.problem = "simple_pendulum_iftomm";
    spec.method = "ida";
    spec.repeats = 0;
    const RunRecord r = Execute(spec);
    REQUIRE(r.status == RunStatus::kOk);
    REQUIRE(r.metrics.error);
    // ida at rtol 1e-10 over 10 s: measured 1.2e-7 relative; 1e-6 leaves a factor 8.
    CHECK(r.metrics.error->position_max_rel < 1e-6);
  }
  SECTION("bricard records rank m - 1") {
    RunSpec spec;
    spec.problem = "bricard";
    spec.method = "ida";
    const RunRecord r = DescribeRun(ResolveRun(spec));
    CHECK(r.m == 35);
    CHECK(r.constraint_rank == r.m - 1);  // Grubler 0 DOF, geometry 1 DOF (docs/problems.md)
    CHECK(r.dof == 1);
  }
  SECTION("andrews_squeezer matches the test-set reference to 8 digits") {
    RunSpec spec;
    spec.problem = "andrews_squeezer";
    spec.method = "ida";  // the default GGL index-2 form (docs/known-failures.md for the others)
    spec.repeats = 0;
    const RunRecord r = Execute(spec);
    REQUIRE(r.status == RunStatus::kOk);
    REQUIRE(r.metrics.error);
    CHECK(r.metrics.error->compared_samples == 1);
    // At least 8 significant digits against the PSIDE value (which itself
    // supports about 9, reference/andrews_squeezer/source.md s2.6).
    CHECK(r.metrics.error->scd >= 8.0);
  }
}

TEST_CASE("the parallelogram-chain closed form is a solution of the four-bar DAEs",
          "[model][reference]") {
  for (const auto& [id, windows] :
       {std::pair<std::string, std::string>{"double_four_bar", "2"}, {"n_four_bar", "5"}}) {
    ParameterSet params;
    if (id == "n_four_bar") params.Set("N", windows);
    const Problem p = BuildProblem(id, params);
    const auto ref = FindReference(p);
    REQUIRE(ref);
    REQUIRE(ref->evaluate);
    auto ws = p.dae->MakeWorkspace();
    Vector q(p.n()), q_plus(p.n()), q_minus(p.n()), v(p.n()), phi(p.m());
    const double dt = 1e-5;
    double energy_min = 1e300, energy_max = -1e300;
    for (double t = 0.0; t <= 10.0; t += 0.0137) {  // not commensurate with the period
      ref->evaluate(t, q);
      p.dae->CalcPhi(*ws, t, q, phi);
      // Each coordinate is a product of O(1) terms: Phi = 0 to round-off.
      CHECK(phi.lpNorm<Eigen::Infinity>() < 1e-13);
      ref->evaluate(t + dt, q_plus);
      ref->evaluate(t - dt, q_minus);
      v = (q_plus - q_minus) / (2.0 * dt);
      const double e = p.dae->CalcEnergy(*ws, t, q, v);
      energy_min = std::min(energy_min, e);
      energy_max = std::max(energy_max, e);
    }
    // T + V of the DAE along the closed form, with central-difference velocities (their
    // O(dt^2) error is about 1e-9 J here); a wrong reduced inertia or gravity moment would
    // make the energy oscillate by O(1) J over a turn.
    INFO(id << ": energy in [" << energy_min << ", " << energy_max << "]");
    CHECK(energy_max - energy_min < 1e-6);
    if (id == "double_four_bar") CHECK(std::abs(energy_min - 35.835) < 1e-6);  // docs/problems.md
  }
  // omega0 = 0 is the unstable equilibrium (k = 1): no reference.
  ParameterSet still;
  still.Set("omega0", "0");
  CHECK_FALSE(FindReference(BuildProblem("double_four_bar", still)));
}

TEST_CASE("tangent-newmark converges to the four-bar closed form through singular positions",
          "[model][reference]") {
  // 2 s pass the first singular positions (t = 0.71, 1.45): a switch to a folded branch would
  // leave an O(1) error; on the right branch the trapezoidal rule is second order.
  std::vector<double> errors;
  for (double h : {2e-3, 1e-3, 5e-4}) {
    RunSpec spec;
    spec.problem = "double_four_bar";
    spec.method = "tangent-newmark";
    spec.settings.h = h;
    spec.t_end = 2.0;
    spec.repeats = 0;
    const RunRecord r = Execute(spec);
    REQUIRE(r.status == RunStatus::kOk);
    REQUIRE(r.metrics.error);
    errors.push_back(r.metrics.error->position_max_abs);
  }
  INFO("errors " << errors[0] << " " << errors[1] << " " << errors[2]);
  // Order 2, with 0.3 for the pre-asymptotic constant near the singular positions.
  CHECK(std::abs(std::log2(errors[0] / errors[1]) - 2.0) < 0.3);
  CHECK(std::abs(std::log2(errors[1] / errors[2]) - 2.0) < 0.3);
}

TEST_CASE("the model-layer Andrews squeezer agrees with the seven-angle form", "[model]") {
  // docs/problems.md: the same mechanism built through the model layer (7 planar bodies, 21
  // coordinates) must give the same seven angles at t = 0.03 as the test-set form.
  RecordOutputs angles, model;
  for (const char* form : {"angles", "model"}) {
    RunSpec spec;
    spec.problem = "andrews_squeezer";
    spec.problem_parameters.Set("form", form);
    spec.method = "odeint-dopri5";
    spec.repeats = 0;
    const RunRecord r = Execute(spec);
    REQUIRE(r.status == RunStatus::kOk);
    (std::string(form) == "angles" ? angles : model) = {r.output_names, r.outputs};
  }
  REQUIRE(angles.names == model.names);
  for (size_t k = 0; k < angles.values.size(); ++k) {
    INFO(angles.names[k] << ": " << angles.values[k] << " vs " << model.values[k]);
    // Both at rtol 1e-10 (measured agreement 1e-11): 1e-9 relative is the reference's own
    // digit limit (reference/andrews_squeezer/source.md s2.6); the two builds must meet it.
    CHECK(std::abs(angles.values[k] - model.values[k]) <= 1e-9 * std::abs(angles.values[k]));
  }
}

TEST_CASE("four_bar starts on the alpha3 = +arccos branch of paper 003 eq (40)", "[model]") {
  const Problem p = BuildProblem("four_bar", ParameterSet());
  Vector out(3);
  p.calc_outputs(0.0, p.q0, p.v0, out);
  const double l0 = 2.0, l1 = 0.5, l2 = 1.75, l3 = 1.25;  // docs/problems.md four_bar data
  const double alpha3 = std::acos((l0 * l0 + l1 * l1 - l2 * l2 - l3 * l3) / (2 * l2 * l3));
  CHECK(out[0] == Approx(0.0).margin(1e-14));  // alpha1 = 0 stated
  // Assembly keeps the closed-form pose: agreement to round-off (1e-12 rad).
  CHECK(out[2] == Approx(alpha3).margin(1e-12));
  CHECK(p.warnings.empty());
}

TEST_CASE("gyro_top meets the analytic steady precession of paper 002 eqs (164)-(171)", "[model]") {
  auto run = [](const char* rtol, const char* atol) {
    RunSpec spec;
    spec.problem = "gyro_top";
    spec.method = "odeint-dopri5";
    spec.repeats = 0;
    if (rtol) spec.SetFromText("rtol", rtol);
    if (atol) spec.SetFromText("atol", atol);
    const RunRecord r = Execute(spec);
    REQUIRE(r.status == RunStatus::kOk);
    REQUIRE(r.metrics.error);
    return r.metrics.error->position_max_rel;
  };
  // Default tolerances over 2 s (3.2 precession periods): measured 5.6e-9 relative; 1e-7
  // leaves a factor 18.
  const double loose = run(nullptr, nullptr);
  CHECK(loose < 1e-7);
  // Convergence: at rtol 1e-12 the error must fall by at least 10x (measured 5.6e-11, i.e.
  // 100x), which a closed form that is not the model's motion could not do.
  const double tight = run("1e-12", "1e-14");
  CHECK(tight < 0.1 * loose);
  // The reference refuses a spin rate that is not the steady-precession value.
  ParameterSet other;
  other.Set("omega_s", "80");
  CHECK_FALSE(FindReference(BuildProblem("gyro_top", other)));
}

}  // namespace mbb
