// Step-count validation and divergence detection (docs/divergence.md): each case is a defect
// that reproduced before the change (an ok run with 0 or a negative number of steps, a run
// stepping past t_end, a diverged run reported ok or failed with a solver-internal reason).
// The stiff pendulum runs are those of paper 001, section 3 (eqs. 11, 18, 26): Fox-Goodwin
// is stable to h = 0.78 on its tangent form and the trapezoidal rule at h = 6.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "harness/cli.h"
#include "harness/json_io.h"
#include "harness/runner.h"
#include "problems/core/parameters.h"
#include "tests/run_spec.h"

namespace mbb {
namespace {

// Every run here is on the stiff pendulum.
RunSpec Spec(const std::string& method, std::map<std::string, std::string> problem_params,
             std::map<std::string, std::string> settings, double t_end) {
  return ::mbb::Spec("stiff_pendulum", method, std::move(problem_params), std::move(settings),
                     t_end);
}

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST_CASE("fixed step counts out of range are bad input", "[divergence]") {
  const std::map<std::string, std::string> minimal{{"form", "minimal"}};
  // h = 1e300: the count was 0 (ok, 0 steps, final time 0).
  CHECK_THROWS_AS(ResolveRun(Spec("odeint-rk4", minimal, {{"h", "1e300"}}, 0.0)), InputError);
  CHECK_THROWS_AS(ResolveRun(Spec("newmark-minimal", minimal, {{"h", "1e300"}}, 0.0)), InputError);
  // h = 1e-300 and t_end = 1e300: the cast to long was undefined and negative.
  CHECK_THROWS_AS(ResolveRun(Spec("odeint-rk4", minimal, {{"h", "1e-300"}}, 0.0)), InputError);
  CHECK_THROWS_AS(ResolveRun(Spec("odeint-rk4", minimal, {{"h", "0.01"}}, 1e300)), InputError);
  try {
    ResolveRun(Spec("odeint-rk4", minimal, {{"h", "1e-300"}}, 0.0));
  } catch (const InputError& e) {
    CHECK(Contains(e.what(), "h = 1e-300"));
    CHECK(Contains(e.what(), "max_steps"));
  }
}

TEST_CASE("h larger than the horizon lands exactly on t_end", "[divergence]") {
  // One step of t_end - t0 = 0.1: the final state is at 0.1, not at t0 + h = 1.
  for (const char* method : {"odeint-rk4", "newmark-minimal", "arkode-erk"}) {
    const RunRecord r = Execute(Spec(method, {{"form", "minimal"}}, {{"h", "1"}}, 0.1));
    INFO(method << ": " << r.message);
    CHECK(r.status == RunStatus::kOk);
    CHECK(r.final_t == 0.1);
  }
}

TEST_CASE("diverged runs are unstable and say when and what grew", "[divergence]") {
  // Explicit RK4 on the minimal stiff pendulum far beyond its stability limit (h = 3).
  const RunRecord rk4 = Execute(Spec("odeint-rk4", {{"form", "minimal"}}, {{"h", "3"}}, 30.0));
  INFO(rk4.message);
  CHECK(rk4.status == RunStatus::kUnstable);
  CHECK(Contains(rk4.message, "diverged at t = "));
  CHECK(Contains(rk4.message, "energy balance"));
  // Classical Fox-Goodwin on the index-3 form at h = 0.6 must fail (paper 001, eq. 26).
  const RunRecord fg =
      Execute(Spec("newmark-index3", {}, {{"scheme", "fox-goodwin"}, {"h", "0.6"}}, 0.0));
  INFO(fg.message);
  CHECK(fg.status == RunStatus::kUnstable);
  CHECK(Contains(fg.message, "diverged at t = "));
}

TEST_CASE("a run released at rest from its potential's zero still stops when energy runs away",
          "[divergence]") {
  // planar_pendulum starts horizontal at rest: E0 = T0 = 0, so the initial-scale criterion
  // cannot hold it, and its q cannot leave the circle. Classical index-3 Newmark (paper 001
  // s2: unstable in the velocities and multipliers) at h = 1e-3 gained kinetic energy
  // without bound (6.7e9 J by t = 10 s from a 1 kg, 1 m pendulum whose potential spans
  // m g L = 9.81 J) and was reported ok. The accurate tangent run of the same problem stays
  // ok: its balance is a tiny fraction of the 9.81 J exchanged.
  const RunRecord index3 = Execute(::mbb::Spec("planar_pendulum", "newmark-index3", {}, {}, 0.0));
  INFO(index3.message);
  CHECK(index3.status == RunStatus::kUnstable);
  CHECK(Contains(index3.message, "the energy the potential and the applied forces exchanged"));
  const RunRecord tangent = Execute(::mbb::Spec("planar_pendulum", "tangent-newmark", {}, {}, 0.0));
  INFO(tangent.message);
  CHECK(tangent.status == RunStatus::kOk);
}

TEST_CASE("the stable runs of the paper-001 stability table stay ok", "[divergence]") {
  const RunRecord fg =
      Execute(Spec("tangent-newmark", {}, {{"scheme", "fox-goodwin"}, {"h", "0.78"}}, 0.0));
  INFO(fg.message);
  CHECK(fg.status == RunStatus::kOk);
  CHECK_FALSE(fg.drift_warning);
  const RunRecord tr = Execute(Spec("tangent-newmark", {}, {{"h", "6"}}, 0.0));
  INFO(tr.message);
  CHECK(tr.status == RunStatus::kOk);
  CHECK_FALSE(tr.drift_warning);
}

TEST_CASE("a finished run drifting beyond 10 % carries a warning", "[divergence]") {
  // RK4 at h = 1.2 on the minimal stiff pendulum: energy drift 1.2 of the energy scale over
  // 10 s, below the stop criterion (10 x) but far above the warning threshold (0.1).
  const RunRecord r = Execute(Spec("odeint-rk4", {{"form", "minimal"}}, {{"h", "1.2"}}, 10.0));
  REQUIRE(r.status == RunStatus::kOk);
  CHECK(r.drift_warning);
  REQUIRE_FALSE(r.warnings.empty());
  bool drift_said = false;
  for (const std::string& w : r.warnings) drift_said = drift_said || Contains(w, "energy drift");
  CHECK(drift_said);
  // So far off, it also left the reference (docs/divergence.md: outputs_meaningful false).
  CHECK(r.left_reference_at);
  // The accurate run has none.
  const RunRecord fine = Execute(Spec("odeint-rk4", {{"form", "minimal"}}, {{"h", "0.01"}}, 10.0));
  CHECK_FALSE(fine.drift_warning);
}

}  // namespace
TEST_CASE("a run reaching --time-limit ends failed with the time and its result on disk",
          "[divergence]") {
  // A limit of 1 microsecond is over long before the first clock read (after 16 steps), and
  // each run below takes thousands of steps to its horizon, so each must stop at that read;
  // without the limit both end ok. arkode-dirk steps through RunLoop (the library
  // path), newmark-minimal through the fixed-step loop.
  const std::string dir =
      (std::filesystem::temp_directory_path() / "mbbench_test_time_limit").string();
  std::filesystem::remove_all(dir);
  for (const std::string method : {"arkode-dirk", "newmark-minimal"}) {
    INFO(method);
    CHECK(RunCli({"run", "-p", "stiff_pendulum", "--param", "form=minimal", "-m", method,
                  "--repeats", "0", "--time-limit", "1e-6", "--out", dir}) == 1);
    const std::string path = dir + "/stiff_pendulum_" + method + ".json";
    REQUIRE(std::filesystem::exists(path));
    CHECK(ReadResultStatus(path) == "failed");
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    CHECK(Contains(text.str(), "time limit of 1e-6 s reached at t = "));
  }
  // Bad input: a limit must be a positive number.
  CHECK(RunCli({"run", "-p", "stiff_pendulum", "-m", "newmark-minimal", "--time-limit", "0",
                "--out", dir}) == 2);
  std::filesystem::remove_all(dir);
}

}  // namespace mbb
