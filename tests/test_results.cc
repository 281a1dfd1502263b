// The result contract (docs/result-schema.md): every key checks read is present, writing
// is atomic, failures are results, sweeps run in parallel, shard and resume.
#include <algorithm>
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "harness/cli.h"
#include "harness/json_io.h"
#include "harness/reference_maker.h"
#include "harness/regression.h"
#include "harness/result_summary.h"
#include "harness/runner.h"
#include "harness/sweep_file.h"

namespace mbb {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

json ReadJson(const fs::path& path) {
  std::ifstream in(path);
  return json::parse(in);
}

fs::path ScratchDir(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("mbbench_test_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

void RequirePath(const json& j, const std::string& dotted) {
  const json* node = &j;
  std::string rest = dotted;
  while (!rest.empty()) {
    const auto dot = rest.find('.');
    const std::string key = rest.substr(0, dot);
    INFO("key " << dotted);
    REQUIRE(node->is_object());
    REQUIRE(node->contains(key));
    node = &(*node)[key];
    rest = dot == std::string::npos ? "" : rest.substr(dot + 1);
  }
}

}  // namespace

TEST_CASE("a result document carries every contract key", "[results]") {
  RunSpec spec;
  spec.problem = "planar_pendulum";
  spec.method = "odeint-rk4";
  spec.t_end = 1.0;
  spec.repeats = 2;
  const json j = json::parse(RunRecordToJson(Execute(spec)));
  CHECK(j["schema"] == "mbbench.result/1");
  for (const char* key : {"context.suite_version",
                          "context.git_commit",
                          "context.git_dirty",
                          "context.compiler",
                          "context.flags",
                          "context.build_type",
                          "context.eigen",
                          "context.sundials",
                          "context.boost",
                          "context.cpu",
                          "context.cores",
                          "context.date",
                          "problem.id",
                          "problem.parameters",
                          "problem.n",
                          "problem.m",
                          "problem.dof",
                          "method.id",
                          "method.parameters",
                          "settings.h",
                          "settings.t_end",
                          "settings.rtol",
                          "settings.atol",
                          "status",
                          "message",
                          "metrics.steps",
                          "metrics.rhs_evals",
                          "metrics.jacobian_evals",
                          "metrics.newton_iterations",
                          "metrics.factorizations",
                          "metrics.wall_time_s.min",
                          "metrics.wall_time_s.median",
                          "metrics.wall_time_s.max",
                          "metrics.wall_time_s.repeats",
                          "metrics.wall_time_s.times",
                          "metrics.time_per_step_s",
                          "metrics.constraint_residual.position_max",
                          "metrics.constraint_residual.velocity_max",
                          "metrics.constraint_residual.acceleration_max",
                          "metrics.energy.initial",
                          "metrics.energy.final",
                          "metrics.energy.max_abs_drift",
                          "metrics.energy.max_rel_drift",
                          "metrics.error.reference",
                          "metrics.error.position_max_abs",
                          "metrics.error.position_max_rel",
                          "metrics.error.scd",
                          "metrics.error.output_max_abs",
                          "metrics.error.output_max_rel",
                          "metrics.error.output_scd",
                          "outputs.x",
                          "outputs.z",
                          "final_state.t",
                          "final_state.q",
                          "final_state.v"})
    RequirePath(j, key);
  CHECK(j["status"] == "ok");
  CHECK(j["problem"]["dof"] == 1);
  CHECK(j["settings"]["h"] == 1e-3);
  CHECK(j["settings"]["rtol"].is_null());  // a fixed-step method uses no tolerance
  CHECK(j["metrics"]["wall_time_s"]["repeats"] == 2);
  // Each repeat's time, for `mbbench compare`'s test: as many as repeats, min and max among them.
  const auto& times = j["metrics"]["wall_time_s"]["times"];
  REQUIRE(times.size() == 2);
  CHECK(std::min(times[0].get<double>(), times[1].get<double>()) ==
        j["metrics"]["wall_time_s"]["min"].get<double>());
  CHECK(std::max(times[0].get<double>(), times[1].get<double>()) ==
        j["metrics"]["wall_time_s"]["max"].get<double>());
  // The instrumented run's CPU time (what --time-limit measures): 1000 RK4 steps with their
  // metrics cost more than the thread clock's nanosecond resolution.
  CHECK(j["metrics"]["cpu_time_s"].get<double>() > 0.0);
  CHECK(j["final_state"]["t"] == 1.0);
}

TEST_CASE("a failed run is a result on disk and the exit code is 1", "[results]") {
  const fs::path dir = ScratchDir("failed");
  // IDA on the plain index-3 form fails at the first step (docs/toolchain.md trap 4).
  const int code = RunCli({"run", "-p", "planar_pendulum", "-m", "ida", "--set",
                           "formulation=index3", "--out", dir.string(), "--repeats", "0"});
  CHECK(code == 1);
  const json j = ReadJson(dir / "planar_pendulum_ida.json");
  CHECK(j["status"] == "failed");
  CHECK_THAT(j["message"].get<std::string>(), Catch::Contains("IDASolve"));
  CHECK(ReadJson(dir / "index.json")["runs"][0]["status"] == "failed");
}

TEST_CASE("atomic writes leave no temporary file", "[results]") {
  const fs::path dir = ScratchDir("atomic");
  const std::string path = (dir / "a.json").string();
  WriteFileAtomically(path, "{}\n");
  WriteFileAtomically(path, "{\"x\": 1}\n");
  CHECK(ReadJson(path)["x"] == 1);
  CHECK_FALSE(fs::exists(path + ".tmp"));
}

TEST_CASE("a sweep runs on two jobs, shards deterministically and resumes", "[results][sweep]") {
  const fs::path dir = ScratchDir("sweep");
  const fs::path file = dir / "experiment.json";
  std::ofstream(file) << R"({"name": "demo", "t_end": 0.5, "repeats": 0,
    "matrix": {"problems": ["planar_pendulum", "physical_pendulum"],
               "methods": ["odeint-rk4", "odeint-dopri5"]},
    "runs": [{"problem": "stiff_pendulum", "method": "odeint-rk4",
              "param": {"form": "minimal"}, "set": {"h": 0.1}}]})";
  const fs::path out = dir / "out";
  REQUIRE(RunCli({"sweep", file.string(), "--jobs", "2", "--out", out.string()}) == 0);
  const json index = ReadJson(out / "index.json");
  REQUIRE(index["runs"].size() == 5);
  for (const auto& run : index["runs"]) {
    CHECK(run["status"] == "ok");
    CHECK(fs::exists(out / run["file"].get<std::string>()));
  }
  // A rerun keeps the finished results.
  REQUIRE(RunCli({"sweep", file.string(), "--out", out.string()}) == 0);
  // (The index is held in a variable: a range-for over a member of a temporary would read
  // freed memory.)
  const json rerun_index = ReadJson(out / "index.json");
  REQUIRE(rerun_index["runs"].size() == 5);
  for (const auto& run : rerun_index["runs"])
    CHECK(run["message"] == "kept from an earlier run (same configuration)");
  // A stored result that is not a readable document is rerun and overwritten, and the index
  // says why, naming the file and the key.
  const std::string first = rerun_index["runs"][0]["file"].get<std::string>();
  json broken = ReadJson(out / first);
  broken["status"] = 3;
  std::ofstream(out / first) << broken.dump();
  REQUIRE(RunCli({"sweep", file.string(), "--out", out.string()}) == 0);
  const json repaired_index = ReadJson(out / "index.json");
  CHECK_THAT(repaired_index["runs"][0]["message"].get<std::string>(),
             Catch::Contains("rerun: the stored result is unreadable") && Catch::Contains(first) &&
                 Catch::Contains("key 'status'"));
  CHECK(ReadJson(out / first)["status"] == "ok");

  // The report merges the results into one Markdown and one HTML page.
  REQUIRE(RunCli({"report", out.string()}) == 0);
  std::ifstream md(out / "report.md");
  const std::string text((std::istreambuf_iterator<char>(md)), std::istreambuf_iterator<char>());
  CHECK_THAT(text, Catch::Contains("## planar_pendulum") && Catch::Contains("## stiff_pendulum") &&
                       Catch::Contains("odeint-dopri5"));
  CHECK(fs::exists(out / "report.html"));

  // Shards 0/2 and 1/2 partition the runs.
  REQUIRE(RunCli({"sweep", file.string(), "--shard", "0/2", "--out", (dir / "s").string()}) == 0);
  REQUIRE(RunCli({"sweep", file.string(), "--shard", "1/2", "--out", (dir / "s").string()}) == 0);
  CHECK(ReadJson(dir / "s" / "shard-0" / "index.json")["runs"].size() == 3);
  CHECK(ReadJson(dir / "s" / "shard-1" / "index.json")["runs"].size() == 2);
}

TEST_CASE("the result readers name the file and the key of a malformed document",
          "[results][readers]") {
  const std::string good =
      ReadJson(fs::path(MBBENCH_BASELINES_DIR) / "planar_pendulum_ida.json").dump();
  REQUIRE_NOTHROW(ParseBaselineText(good, "r.json"));
  REQUIRE_NOTHROW(ParseResultSummaryText(good, "r.json"));
  // One edit per row: the key the message must name and the reason.
  struct Edit {
    std::string pointer;
    json value;
    std::string fragment;
  };
  const std::vector<Edit> edits = {
      {"/metrics/steps", "many", "r.json: key 'metrics.steps': expected a whole number"},
      // A huge count does not fit a long (converting it was undefined behaviour).
      {"/metrics/steps", 1e300, "key 'metrics.steps': expected a whole number"},
      {"/settings/t_end", "1", "key 'settings.t_end': expected a number"},
      {"/problem/parameters", json::array(), "key 'problem.parameters': expected an object"},
      {"/method/parameters/max_order", 5, "key 'method.parameters.max_order': expected a string"},
      {"/metrics/energy", 1.0, "key 'metrics.energy': expected an object"},
      {"/schema", 7, "key 'schema': expected a string"},
      {"/schema", "mbbench.result/9", "schema 'mbbench.result/9'"},
  };
  for (const auto& e : edits) {
    json doc = json::parse(good);
    doc[json::json_pointer(e.pointer)] = e.value;
    INFO(e.pointer << " = " << e.value.dump());
    CHECK_THROWS_WITH(ParseBaselineText(doc.dump(), "r.json"), Catch::Contains(e.fragment));
    CHECK_THROWS_WITH(ParseResultSummaryText(doc.dump(), "r.json"), Catch::Contains(e.fragment));
  }
  json no_status = json::parse(good);
  no_status.erase("status");
  CHECK_THROWS_WITH(ParseBaselineText(no_status.dump(), "r.json"),
                    Catch::Contains("key 'status': missing"));
  // The report reads the series beside the result, so "series" must be a file name.
  json series = json::parse(good);
  series["series"] = "../../etc/passwd";
  CHECK_THROWS_WITH(ParseResultSummaryText(series.dump(), "r.json"),
                    Catch::Contains("key 'series'"));
  CHECK_THROWS_WITH(ParseBaselineText("[1, 2]", "r.json"),
                    Catch::Contains("r.json: expected a JSON object, found an array"));
  CHECK_THROWS_WITH(ParseBaselineText("{\"schema\": ", "r.json"),
                    Catch::Contains("r.json: malformed JSON"));
  // A sweep's resume: an unreadable stored result is named, never an exception.
  const StoredResult stored = StoredResultOfText(no_status.dump(), "r.json");
  CHECK(stored.status.empty());
  CHECK_THAT(stored.unreadable, Catch::Contains("key 'status': missing"));
}

TEST_CASE("a stability reader names the key; a document without the bracket still reads",
          "[results][readers]") {
  const std::string good = ReadJson(fs::path(MBBENCH_BASELINES_DIR) / "nightly" /
                                    "stiff_pendulum_newmark-index3_fox-goodwin.stability.json")
                               .dump();
  const StabilityBaselineValues b = ParseStabilityBaselineText(good, "s.stability.json");
  json legacy = json::parse(good);
  legacy["settings"].erase("h_min");
  legacy["settings"].erase("h_max");
  // Before the bracket was recorded: h_min is the first trial, h_max 1000 h_min.
  const StabilityBaselineValues old = ParseStabilityBaselineText(legacy.dump(), "s.json");
  CHECK(old.h_min == legacy["trials"][0]["h"].get<double>());
  CHECK(old.h_max == 1000.0 * old.h_min);
  legacy["trials"] = json::array();
  CHECK_THROWS_WITH(ParseStabilityBaselineText(legacy.dump(), "s.json"),
                    Catch::Contains("key 'settings.h_min'"));
  json bad = json::parse(good);
  bad["criterion"]["parameters"]["factor"] = "ten";
  CHECK_THROWS_WITH(ParseStabilityBaselineText(bad.dump(), "s.json"),
                    Catch::Contains("key 'criterion.parameters.factor'"));
  bad = json::parse(good);
  bad["h_max_stable"] = "0.5";
  CHECK_THROWS_WITH(ParseStabilityBaselineText(bad.dump(), "s.json"),
                    Catch::Contains("key 'h_max_stable'"));
  CHECK_THROWS_WITH(ParseStabilitySummaryText(bad.dump(), "s.json"),
                    Catch::Contains("key 'h_max_stable'"));
  CHECK(b.h_max_stable == ParseStabilitySummaryText(good, "s.json").h_max_stable);
}

TEST_CASE("a malformed experiment file exits 2", "[results][sweep]") {
  const fs::path dir = ScratchDir("bad_sweep");
  std::ofstream(dir / "typo.json") << R"({"name": "x", "runz": []})";
  std::ofstream(dir / "broken.json") << R"({"name": )";
  std::ofstream(dir / "unknown.json") << R"({"runs": [{"problem": "nope", "method": "ida"}]})";
  CHECK(RunCli({"sweep", (dir / "typo.json").string()}) == 2);
  CHECK(RunCli({"sweep", (dir / "broken.json").string()}) == 2);
  CHECK(RunCli({"sweep", (dir / "unknown.json").string()}) == 2);
  CHECK_THROWS_WITH(ReadSweepFile((dir / "typo.json").string()),
                    Catch::Contains("typo.json") && Catch::Contains("runz"));
}

}  // namespace mbb

namespace mbb {

TEST_CASE("stored references lie on the constraint manifold and refuse other parameters",
          "[reference]") {
  for (const std::string id : {"spatial_pendulum", "stiff_pendulum"}) {
    const Problem p = BuildProblem(id, ParameterSet());
    const auto ref = FindAnyReference(p);
    REQUIRE(ref);
    REQUIRE(ref->times.size() == ref->positions.size());
    CHECK(ref->digits >= 6);
    auto ws = p.dae->MakeWorkspace();
    Vector phi(p.m());
    for (const auto& q : ref->positions) {
      p.dae->CalcPhi(*ws, 0.0, q, phi);
      // IDA's GGL form holds Phi = 0 to its Newton tolerance at rtol 1e-12.
      CHECK(phi.lpNorm<Eigen::Infinity>() < 1e-10);
    }
  }
  ParameterSet other;
  other.Set("v0", "0.5");
  CHECK_FALSE(FindAnyReference(BuildProblem("spatial_pendulum", other)));
}

}  // namespace mbb

namespace mbb {

TEST_CASE("the regression check flags changes beyond its tolerances", "[regression]") {
  BaselineValues base;
  base.file = "x.json";
  base.status = "ok";
  base.steps = 1000;
  base.final_q = {0.5, -0.25};
  base.outputs = {{"x", 0.5}};
  base.error_rel = 1e-8;
  base.energy_abs_drift = 1e-9;
  CHECK(CompareWithBaseline(base, base).empty());

  BaselineValues moved = base;
  moved.final_q[1] += 1e-5;  // 40 ppm: above the 1 ppm tolerance
  CHECK(CompareWithBaseline(base, moved).size() == 1);

  BaselineValues slower = base;
  slower.steps = 1100;  // 10 % more steps: above 5 %
  CHECK(CompareWithBaseline(base, slower).size() == 1);

  BaselineValues worse = base;
  worse.error_rel = 1e-6;  // 100x the baseline error
  CHECK(CompareWithBaseline(base, worse).size() == 1);

  BaselineValues failed = base;
  failed.status = "failed";
  CHECK_FALSE(CompareWithBaseline(base, failed).empty());

  BaselineValues jitter = base;
  jitter.final_q[0] *= 1.0 + 1e-9;  // round-off level: unchanged
  jitter.steps = 1020;
  CHECK(CompareWithBaseline(base, jitter).empty());
}

}  // namespace mbb
