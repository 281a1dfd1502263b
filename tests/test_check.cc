// The regression check (`mbbench check`): a perturbed result is a change with its tolerance
// and ratio, a run with other settings is a configuration difference (not a regression
// unless asked), --against compares the files both sides have, and --update followed by a
// check passes. Stability baselines are rerun and compared within the search's precision;
// paper claims are judged on the new documents.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "harness/cli.h"
#include "harness/json_io.h"
#include "harness/paper_claims.h"
#include "harness/regression.h"
#include "problems/core/problem.h"
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
  // The rewritten documents keep their configuration key (a later sweep or check compares it).
  const json updated = Read(baselines / "planar_pendulum_ida.json");
  CHECK(updated.contains("configuration"));
  CHECK(updated.contains("configuration_hash"));
  CHECK(RunCli({"check", "--baseline", baselines.string()}) == 0);
}

TEST_CASE("a baseline that cannot be checked fails alone: the check goes on", "[check]") {
  const fs::path dir = ScratchDirectory("check_unresolved");
  const fs::path baselines = CopyBaselines(dir);
  const fs::path against = dir / "against";
  fs::create_directories(against);
  const fs::path ida = against / "planar_pendulum_ida.json";
  const fs::path dopri5 = against / "planar_pendulum_odeint-dopri5.json";
  fs::copy_file(baselines / "planar_pendulum_odeint-dopri5.json", dopri5);

  // Each way an --against document can fail to resolve: bad input, exit 2 (nothing changed).
  Write(ida, json::array({1, 2}));  // JSON, not a document
  CHECK(RunCli({"check", "--baseline", baselines.string(), "--against", against.string()}) == 2);
  std::ofstream(ida) << R"({"schema": "mbbench.result/1", "problem": {"id)";  // truncated
  CHECK(RunCli({"check", "--baseline", baselines.string(), "--against", against.string()}) == 2);
  json foreign = Read(baselines / "planar_pendulum_ida.json");
  foreign["metrics"]["steps"] = "many";
  Write(ida, foreign);
  CHECK(RunCli({"check", "--baseline", baselines.string(), "--against", against.string()}) == 2);

  // The other baseline is still compared: its change makes the exit code 1.
  json perturbed = Read(dopri5);
  perturbed["final_state"]["q"][0] = perturbed["final_state"]["q"][0].get<double>() + 1e-3;
  Write(dopri5, perturbed);
  CHECK(RunCli({"check", "--baseline", baselines.string(), "--against", against.string()}) == 1);

  // A baseline that parses but names no known problem (or a bad step): its rerun fails, the
  // other is rerun, the exit code is 2.
  json unknown = Read(baselines / "planar_pendulum_ida.json");
  unknown["problem"]["id"] = "no_such_problem";
  Write(baselines / "planar_pendulum_ida.json", unknown);
  CHECK(RunCli({"check", "--baseline", baselines.string()}) == 2);
  json bad_h = Read(baselines / "planar_pendulum_odeint-dopri5.json");
  bad_h["settings"]["h"] = -0.01;
  bad_h["settings"]["rtol"] = nullptr;
  bad_h["settings"]["atol"] = nullptr;
  const std::string dopri5_before = Read(baselines / "planar_pendulum_odeint-dopri5.json").dump();
  Write(baselines / "planar_pendulum_odeint-dopri5.json", bad_h);
  CHECK(RunCli({"check", "--baseline", baselines.string()}) == 2);

  // --update writes nothing (no baseline, no index) when any rerun fails.
  Write(baselines / "planar_pendulum_odeint-dopri5.json", json::parse(dopri5_before));
  const std::string before = Read(baselines / "planar_pendulum_odeint-dopri5.json").dump();
  CHECK(RunCli({"check", "--baseline", baselines.string(), "--update", "--reason", "x"}) == 2);
  CHECK_FALSE(fs::exists(baselines / "index.json"));
  CHECK(Read(baselines / "planar_pendulum_odeint-dopri5.json").dump() == before);
  CHECK(Read(baselines / "planar_pendulum_ida.json").dump() == unknown.dump());
  for (const auto& e : fs::directory_iterator(baselines))  // no temporary file left behind
    CHECK(e.path().filename().string().find(".tmp.") == std::string::npos);
}

TEST_CASE("a stability limit may move by twice the search's precision, no more", "[check]") {
  StabilityBaselineValues b;
  b.file = "s.stability.json";
  b.relative_precision = 1e-3;
  b.h_max_stable = 0.78;
  b.h_min_unstable = 0.781;
  StabilityBaselineValues c = b;
  c.h_max_stable = 0.78 * (1 + 1.9e-3);  // within 2 x 1e-3
  CHECK(CompareStabilityLimits(b, c).empty());
  c.h_max_stable = 0.78 * (1 + 2.1e-3);
  const auto findings = CompareStabilityLimits(b, c);
  REQUIRE(findings.size() == 1);
  CHECK_THAT(findings[0].what, Catch::Contains("h_max_stable") && Catch::Contains("ratio 1.05"));
  c = b;
  c.h_min_unstable.reset();  // became stable over the whole bracket
  REQUIRE(CompareStabilityLimits(b, c).size() == 1);
  c = b;
  c.h_min = 0.2;
  REQUIRE(StabilityConfigurationDifferences(b, c).size() == 1);
}

TEST_CASE("paper claims: each relation holds or fails on the document", "[check]") {
  const std::string doc =
      R"({"status": "failed", "h_max_stable": null, "metrics": {"error": {"x": 2e-7}}})";
  PaperClaim c;
  c.id = "c";
  c.key = "metrics.error.x";
  c.relation = "at_most";
  c.number = 2.28e-6;
  CHECK(JudgeClaim(c, doc).holds);
  c.number = 1e-7;
  CHECK_FALSE(JudgeClaim(c, doc).holds);
  c.relation = "within";
  c.relative_tolerance = 0.01;
  c.number = 2.01e-7;  // 0.5 % away
  CHECK(JudgeClaim(c, doc).holds);
  c.number = 2.1e-7;  // 4.8 % away
  CHECK_FALSE(JudgeClaim(c, doc).holds);
  c.relation = "at_least";
  CHECK_FALSE(JudgeClaim(c, doc).holds);
  c.key = "metrics.error.missing";
  CHECK_THAT(JudgeClaim(c, doc).line, Catch::Contains("missing"));
  CHECK_FALSE(JudgeClaim(c, doc).holds);
  PaperClaim status;
  status.key = "status";
  status.relation = "equals";
  status.text = "failed";
  CHECK(JudgeClaim(status, doc).holds);
  status.text = "ok";
  CHECK_FALSE(JudgeClaim(status, doc).holds);
  PaperClaim none;
  none.key = "h_max_stable";
  none.relation = "equals";
  none.null_value = true;
  CHECK(JudgeClaim(none, doc).holds);
  // The value is labelled by its source: a number of an independent check is not "paper".
  c.key = "metrics.error.x";
  c.relation = "at_most";
  c.number = 1e-6;
  CHECK_THAT(JudgeClaim(c, doc).line, Catch::Contains(": paper 1e-06, ours 2e-07"));
  c.source = "independent check";
  CHECK_THAT(JudgeClaim(c, doc).line, Catch::Contains(": independent check 1e-06, ours 2e-07"));
}

TEST_CASE("check reruns stability baselines and judges the tier's paper claims", "[check]") {
  const fs::path dir = ScratchDirectory("check_claims");
  const fs::path baselines = dir / "baselines";
  fs::create_directories(baselines);
  // The fastest stability search of the nightly tier (central differences on the stiff
  // pendulum's minimal form, well under a second) and its paper claim.
  const char* name = "stiff_pendulum_minimal_central-difference.stability.json";
  fs::copy_file(fs::path(MBBENCH_BASELINES_DIR) / "nightly" / name, baselines / name);
  const json nightly_claims = Read(fs::path(MBBENCH_BASELINES_DIR) / "nightly" / kClaimsFileName);
  json claims = {{"schema", kClaimsSchema}, {"claims", json::array()}};
  for (const auto& claim : nightly_claims.at("claims"))
    if (claim.at("baseline") == name) claims["claims"].push_back(claim);
  REQUIRE(claims["claims"].size() == 1);
  Write(baselines / kClaimsFileName, claims);
  CHECK(RunCli({"check", "--baseline", baselines.string()}) == 0);

  // A baseline limit moved by 1 %: the rerun differs from it beyond 2 x 1e-3.
  json moved = Read(baselines / name);
  moved["h_max_stable"] = moved["h_max_stable"].get<double>() * 1.01;
  const fs::path against = dir / "against";
  fs::create_directories(against);
  Write(against / name, moved);
  CHECK(RunCli({"check", "--baseline", baselines.string(), "--against", against.string()}) == 1);

  // A claim that does not hold (the paper's limit read as 0.70 s) fails the check.
  json wrong = claims;
  wrong["claims"][0]["value"] = 0.70;
  Write(baselines / kClaimsFileName, wrong);
  CHECK(RunCli({"check", "--baseline", baselines.string()}) == 1);

  // A baseline whose rerun is refused (here a parameter four_bar's angles form rejects) fails
  // on its own, not the whole check: the other baseline's claim is still judged. The only
  // trouble being bad input, the check exits 2; --update then writes nothing.
  const char* refused = "four_bar_angles_partitioning-projective_alpha1_pi2.json";
  json odd = Read(fs::path(MBBENCH_BASELINES_DIR) / "nightly" / refused);
  odd["problem"]["parameters"]["formulation"] = "joint-tree";  // what the rerun reads
  odd["configuration"]["problem"]["parameters"]["formulation"] = "joint-tree";
  Write(baselines / refused, odd);
  Write(baselines / kClaimsFileName, claims);
  CHECK(RunCli({"check", "--baseline", baselines.string(), "--jobs", "2"}) == 2);
  CHECK(RunCli({"check", "--baseline", baselines.string(), "--update", "--reason", "t"}) == 2);
  fs::remove(baselines / refused);

  // Bad claims files are bad input: an unknown relation, a baseline that is not there.
  wrong = claims;
  wrong["claims"][0]["relation"] = "roughly";
  Write(baselines / kClaimsFileName, wrong);
  CHECK(RunCli({"check", "--baseline", baselines.string()}) == 2);
  wrong = claims;
  wrong["claims"][0]["source"] = "folklore";  // source: paper | paper statement | independent check
  Write(baselines / kClaimsFileName, wrong);
  CHECK(RunCli({"check", "--baseline", baselines.string()}) == 2);
  wrong["claims"][0]["source"] = "paper statement";
  Write(baselines / kClaimsFileName, wrong);
  CHECK(RunCli({"check", "--baseline", baselines.string()}) == 0);
  wrong = claims;
  wrong["claims"][0]["baseline"] = "absent.json";
  Write(baselines / kClaimsFileName, wrong);
  CHECK(RunCli({"check", "--baseline", baselines.string()}) == 2);
}

// The fast tier is the default catalogue's results (README, docs/regression.md): every run
// `mbbench run` makes with no -p has its baseline, under the name that run writes.
TEST_CASE("every default catalogue run has a fast-tier baseline", "[check]") {
  for (const auto& entry : ProblemCatalogue()) {
    const Problem p = BuildProblem(entry.id, ParameterSet());
    for (const auto& method : p.default_methods) {
      const fs::path file = fs::path(MBBENCH_BASELINES_DIR) / (entry.id + "_" + method + ".json");
      CAPTURE(file.string());
      CHECK(fs::is_regular_file(file));
    }
  }
}

}  // namespace mbb
