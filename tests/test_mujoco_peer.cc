// The MuJoCo peer (methods/mujoco/): its models reproduce the references of the problems it
// translates, what it cannot translate is refused naming the element, and a MuJoCo error is
// an exception, never an exit of the process. Built with MBBENCH_WITH_MUJOCO only.
#include <catch2/catch.hpp>

#include "harness/runner.h"
#include "methods/mujoco/mujoco_model.h"

namespace mbb {
namespace {

RunRecord RunQuiet(const std::string& problem, std::map<std::string, std::string> settings = {}) {
  RunSpec spec;
  spec.problem = problem;
  spec.method = "mujoco";
  spec.SetFromText(ParameterSet(settings));
  spec.repeats = 0;
  return Execute(spec);
}

}  // namespace

TEST_CASE("the MuJoCo peer engine reproduces the references of the problems it models",
          "[mujoco][reference]") {
  // Hinge trees at the default h = 1e-3 with MuJoCo's RK4 (order 4 on hinges): measured
  // errors double_pendulum 1.6e-9, pendulum_chain 1.9e-10, planar_pendulum and
  // simple_pendulum_iftomm 1.6e-11, physical_pendulum 1.3e-11 (relative). 1e-8 leaves a
  // factor 6 over the worst; a wrong joint frame, axis, spring or mapping is off by O(1).
  // Applied loads through MuJoCo's passive-force callback: stiff_pendulum (a torque with a
  // time law; its bob has J = 0) 5.1e-10, flyball_governor (spring-dampers, h = 2e-4)
  // 4.9e-11.
  for (const std::string problem :
       {"planar_pendulum", "simple_pendulum_iftomm", "double_pendulum", "pendulum_chain",
        "physical_pendulum", "stiff_pendulum", "flyball_governor"}) {
    const RunRecord r = RunQuiet(problem);
    INFO(problem << ": " << r.message);
    REQUIRE(r.status == RunStatus::kOk);
    REQUIRE(r.metrics.error);
    CHECK(r.metrics.error->position_max_rel < 1e-8);
  }
  // A ball joint (the spatial pendulum's rod): MuJoCo's RK4 is second order there
  // (docs/methods/mujoco.md): 2.7e-4 at h = 1e-3, 7.6e-5 at 5e-4. The bound 1e-3 separates
  // that from a wrong model (O(1)), and the halving checks the error falls with h.
  const RunRecord coarse = RunQuiet("spatial_pendulum", {{"h", "1e-3"}});
  const RunRecord fine = RunQuiet("spatial_pendulum", {{"h", "5e-4"}});
  REQUIRE(coarse.status == RunStatus::kOk);
  REQUIRE(fine.status == RunStatus::kOk);
  CHECK(coarse.metrics.error->position_max_rel < 1e-3);
  CHECK(fine.metrics.error->position_max_rel < coarse.metrics.error->position_max_rel / 3.0);
  // Cylindrical and planar joints (slides, then a hinge) on a free body: second order as
  // the free joint's quaternion is (above). At the problems' default h: cylindrical_pair
  // 3.0e-9 (h = 1e-4), planar_pair 7.5e-9 (h = 1e-5); simbody at h = 1e-4 2.5e-13, 1.1e-12; 1e-7
  // leaves a factor 33.
  for (const std::string problem : {"cylindrical_pair", "planar_pair"}) {
    const RunRecord r = RunQuiet(problem);
    INFO(problem << ": " << r.message);
    REQUIRE(r.status == RunStatus::kOk);
    CHECK(r.metrics.error->position_max_rel < 1e-7);
  }
  // The other integrators are MuJoCo's own, first order: semi-implicit Euler on the planar
  // pendulum at h = 1e-3 is 2.2e-3 off, far above RK4's 1.6e-11 and far below O(1).
  const RunRecord euler = RunQuiet("planar_pendulum", {{"integrator", "euler"}});
  REQUIRE(euler.status == RunStatus::kOk);
  CHECK(euler.metrics.error->position_max_rel > 1e-5);
  CHECK(euler.metrics.error->position_max_rel < 1e-2);
}

TEST_CASE("the MuJoCo peer refuses what it does not translate, naming it", "[mujoco]") {
  const RunRecord loop = RunQuiet("bricard");
  CHECK(loop.status == RunStatus::kNotApplicable);
  CHECK(loop.message.find("'J4'") != std::string::npos);
  CHECK(loop.message.find("loop") != std::string::npos);
  const RunRecord driven = RunQuiet("small_mass_oscillator");
  CHECK(driven.status == RunStatus::kNotApplicable);
  CHECK(driven.message.find("driver") != std::string::npos);
  const RunRecord bare = RunQuiet("andrews_squeezer");
  CHECK(bare.status == RunStatus::kNotApplicable);
  CHECK(bare.message.find("structure") != std::string::npos);
  const RunRecord universal = RunQuiet("slider_crank_3d", {{"loops", "connect"}});
  CHECK(universal.status == RunStatus::kNotApplicable);
  CHECK(universal.message.find("'C' (universal)") != std::string::npos);
}

TEST_CASE("the MuJoCo peer closes loops softly only when asked, recording the settings",
          "[mujoco][reference]") {
  // loops=connect: MuJoCo's soft connect constraints with solref time constant 2h and solimp
  // 0.9999. Measured on four_bar: error 7.6e-4 and closure drift |Phi| 3.0e-4 at h = 1e-3,
  // 1.6e-4 and 7.5e-5 at 5e-4 (about O(h^2), the soft constraint's, not RK4's order). The
  // bounds: 1e-2 separates that from a wrong anchor (O(1)); the halving must gain 3 times.
  const RunRecord coarse = RunQuiet("four_bar", {{"loops", "connect"}, {"h", "1e-3"}});
  const RunRecord fine = RunQuiet("four_bar", {{"loops", "connect"}, {"h", "5e-4"}});
  INFO(coarse.message << " / " << fine.message);
  REQUIRE(coarse.status == RunStatus::kOk);
  REQUIRE(fine.status == RunStatus::kOk);
  CHECK(coarse.metrics.error->position_max_rel < 1e-2);
  CHECK(fine.metrics.error->position_max_rel < coarse.metrics.error->position_max_rel / 3.0);
  // The default refuses the loop, naming the cut joint and the setting that closes it.
  const RunRecord refused = RunQuiet("four_bar");
  CHECK(refused.status == RunStatus::kNotApplicable);
  CHECK(refused.message.find("loops=connect") != std::string::npos);
}

TEST_CASE("a MuJoCo error throws instead of ending the process", "[mujoco]") {
  // MuJoCo's default mju_error prints and calls exit(1): one bad model or state would end
  // a whole batch. The peer's handler throws MujocoError instead.
  InstallMujocoHandlers();
  CHECK_THROWS_AS(mju_error("deliberate test error"), MujocoError);
  // MuJoCo meets a huge acceleration with a warning and a silent reset to qpos0; the peer
  // ends the run unstable there instead of going on from the reset (g = 1e12 m/s^2: qacc
  // above MuJoCo's 1e10 on the first step).
  RunSpec spec;
  spec.problem = "planar_pendulum";
  spec.method = "mujoco";
  spec.problem_parameters = ParameterSet(std::map<std::string, std::string>{{"g", "1e12"}});
  spec.repeats = 0;
  const RunRecord reset = Execute(spec);
  CHECK(reset.status == RunStatus::kUnstable);
  CHECK(reset.message.find("QACC") != std::string::npos);
  // A stack overflow inside MuJoCo's own C code (mj_stackAlloc): the exception crosses
  // the library's frames and the model stays usable for a run.
  std::string why_not;
  auto model =
      BuildMujocoModel(BuildProblem("planar_pendulum", ParameterSet()), MujocoOptions(), why_not);
  REQUIRE(model);
  CHECK_THROWS_AS(mj_stackAlloc(model->data, 1 << 30), MujocoError);
}

}  // namespace mbb
