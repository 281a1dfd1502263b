// The regression check (`mbbench check`): a perturbed result is a change with its tolerance
// and ratio, a run with other settings is a configuration difference (not a regression
// unless asked), --against compares the files both sides have, and --update followed by a
// check passes.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "harness/cli.h"
#include "harness/json_io.h"
#include "harness/regression.h"
#include "tests/scratch_directory.h"

namespace mbb {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

json Read(const fs::path& path) { return json::parse(std::ifstream(path)); }
void Write(const fs::path& path, const json& j) { std::ofstream(path) << j.dump(1); }

// Two small committed baselines (planar pendulum, seconds to rerun) copied to `dir`.
fs::path CopyBaselines(const fs::path& dir) {
  const fs::path baselines = dir / "baselines";
  fs::create_directories(baselines);
  for (const char* name : {"planar_pendulum_ida.json", "planar_pendulum_odeint-dopri5.json"})
    fs::copy_file(fs::path(MBBENCH_BASELINES_DIR) / name, baselines / name);
  return baselines;
}

}  // namespace

TEST_CASE("a change names the key, both values, the tolerance and the ratio", "[check]") {
  BaselineValues b;
  b.file = "x.json";
  b.status = "ok";
  b.final_q = {1.0};
  b.steps = 100;
  BaselineValues c = b;
  c.final_q = {1.0 + 1e-3};  // tolerance 1e-9 + 1e-6 * 1: ratio ~ 1e3
  const auto findings = CompareWithBaseline(b, c);
  REQUIRE(findings.size() == 1);
  CHECK_THAT(findings[0].what, Catch::Contains("final_state.q[0]") &&
                                   Catch::Contains("tolerance 1e-06") &&
                                   Catch::Contains("ratio 999"));
  c = b;
  c.rtol = 1e-6;
  b.rtol = 1e-10;
  c.problem_parameters["formulation"] = "planar";  // a key added since: not a difference
  const auto differences = ConfigurationDifferences(b, c);
  REQUIRE(differences.size() == 1);
  CHECK_THAT(differences[0], Catch::Contains("settings.rtol") && Catch::Contains("1e-10"));
}

TEST_CASE("check --against: the intersection, changes exit 1, other settings are reported",
          "[check]") {
  const fs::path dir = ScratchDirectory("check_against");
  const fs::path baselines = CopyBaselines(dir);
  const fs::path against = dir / "against";
  fs::create_directories(against);
  // Only one of the two baselines is present: the other is listed as missing, not an error.
  fs::copy_file(baselines / "planar_pendulum_ida.json", against / "planar_pendulum_ida.json");
  CHECK(RunCli({"check", "--baseline", baselines.string(), "--against", against.string()}) == 0);

  json perturbed = Read(against / "planar_pendulum_ida.json");
  perturbed["final_state"]["q"][0] = perturbed["final_state"]["q"][0].get<double>() + 1e-3;
  Write(against / "planar_pendulum_ida.json", perturbed);
  CHECK(RunCli({"check", "--baseline", baselines.string(), "--against", against.string()}) == 1);

  json other_settings = Read(baselines / "planar_pendulum_ida.json");
  other_settings["settings"]["rtol"] = 1e-6;
  Write(against / "planar_pendulum_ida.json", other_settings);
  CHECK(RunCli({"check", "--baseline", baselines.string(), "--against", against.string()}) == 0);
  CHECK(RunCli({"check", "--baseline", baselines.string(), "--against", against.string(),
                "--strict-configuration"}) == 1);
}

TEST_CASE("check --update rewrites the baselines with a reason; a check then passes", "[check]") {
  const fs::path dir = ScratchDirectory("check_update");
  const fs::path baselines = CopyBaselines(dir);
  CHECK(RunCli({"check", "--baseline", baselines.string(), "--update"}) == 2);  // no reason
  REQUIRE(RunCli({"check", "--baseline", baselines.string(), "--update", "--reason",
                  "test of the update", "--jobs", "2"}) == 0);
  const json index = Read(baselines / "index.json");
  REQUIRE(index.at("runs").size() == 2);
  CHECK(index.at("runs")[0].at("message") == "test of the update");
  CHECK(RunCli({"check", "--baseline", baselines.string()}) == 0);
}

}  // namespace mbb
