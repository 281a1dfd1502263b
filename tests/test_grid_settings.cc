// The --all-methods grid's settings (harness/grid_settings.h): every entry names a registered
// method, a catalogue problem and a key the method reads, so a renamed method or parameter
// cannot silently drop a setting; a user's --set wins; a step budget is a counted limit whose
// verdict is the same on any machine.
#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "harness/cli.h"
#include "harness/grid_settings.h"
#include "harness/runner.h"
#include "methods/method.h"
#include "problems/core/problem.h"

namespace mbb {
namespace {

TEST_CASE("every grid setting names a method, a problem and a key that exist", "[grid]") {
  for (const GridSetting& s : GridSettings()) {
    INFO(s.method << " on " << s.problem << ": " << s.key << " = " << s.value);
    CHECK(!s.why.empty());
    if (!s.problem.empty()) CHECK_NOTHROW(FindProblem(s.problem));
    if (s.method.empty()) {
      CHECK((s.key == "t_end" || s.key == "max_steps"));
      continue;
    }
    const MethodEntry& entry = FindMethod(s.method);
    if (s.key == "t_end" || s.key == "max_steps") continue;
    const bool is_parameter = std::any_of(entry.parameters.begin(), entry.parameters.end(),
                                          [&](const ParameterSpec& p) { return p.name == s.key; });
    CHECK(is_parameter);
  }
}

TEST_CASE("a grid setting the user gives is the user's", "[grid]") {
  RunSpec spec;
  spec.problem = "bricard";
  spec.method = "constrained-em";
  spec.method_parameters.Set("condition", "every-step");
  ApplyGridSettings(spec);
  CHECK(spec.method_parameters.GetString("condition", "") == "every-step");
  RunSpec grid;
  grid.problem = "bricard";
  grid.method = "constrained-em";
  ApplyGridSettings(grid);
  CHECK(grid.method_parameters.GetString("condition", "") == "first-step");
}

TEST_CASE("a step budget ends an adaptive run at the same step, recorded with why", "[grid]") {
  // 40 accepted steps of dopri5 on the planar pendulum (which needs more than 40 at rtol 1e-10
  // over its horizon): the run stops at the 40th step whatever the machine's load.
  RunSpec spec;
  spec.problem = "planar_pendulum";
  spec.method = "odeint-dopri5";
  spec.repeats = 0;
  spec.settings.max_steps = 40;
  spec.notes.push_back("a step budget of 40 for this test");
  const RunRecord r = Execute(spec);
  CHECK(r.status == RunStatus::kFailed);
  CHECK(r.counters.steps == 40);
  CHECK(r.message.find("max_steps (40) reached") != std::string::npos);
  CHECK(std::find(r.warnings.begin(), r.warnings.end(), "a step budget of 40 for this test") !=
        r.warnings.end());
}

TEST_CASE("the all-methods grid records its horizon in the result", "[grid]") {
  // The governor's grid horizon is 1 s (grid_settings.cc); recursive runs it in joint
  // coordinates in a few thousand steps.
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / "mbbench_test_grid_horizon";
  fs::remove_all(dir);
  REQUIRE(RunCli({"run", "--all-methods", "-p", "flyball_governor", "-m", "recursive", "--repeats",
                  "0", "--out", dir.string()}) == 0);
  std::ifstream in(dir / "flyball_governor_recursive.json");
  const nlohmann::json j = nlohmann::json::parse(in);
  CHECK(j["settings"]["t_end"] == 1.0);
  CHECK(j["final_state"]["t"] == 1.0);
  // --t-end given: the user's horizon.
  REQUIRE(RunCli({"run", "--all-methods", "-p", "flyball_governor", "-m", "recursive", "--repeats",
                  "0", "--t-end", "0.5", "--out", dir.string()}) == 0);
  std::ifstream again(dir / "flyball_governor_recursive.json");
  CHECK(nlohmann::json::parse(again)["settings"]["t_end"] == 0.5);
}

}  // namespace
}  // namespace mbb
