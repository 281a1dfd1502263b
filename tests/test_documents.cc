// The document layer (harness/result_document.h): one writer and one reader per document.
// A document built from a real run survives writing and reading unchanged, and every
// committed baseline reads back with every key it holds (the reader loses nothing an earlier
// writer wrote).
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "harness/configuration.h"
#include "harness/json_io.h"
#include "harness/result_document.h"
#include "harness/result_summary.h"
#include "harness/stability.h"
#include "harness/stability_document.h"
#include "run_spec.h"

using namespace mbb;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::string Text(const fs::path& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The document of a run as a sweep writes it (configuration key, a series file name).
ResultDocument DocumentOfRun(const RunSpec& spec) {
  const ResolvedRun resolved = ResolveRun(spec);
  RunRecord record = Execute(resolved, spec);
  record.configuration = ConfigurationKey(DescribeRun(resolved), spec);
  return ResultDocumentOf(record, "run.series.csv");
}

}  // namespace

TEST_CASE("a result document from a real run reads back equal", "[results][documents]") {
  // An adaptive run with error metrics against the analytic pendulum, a fixed-step
  // energy-momentum run whose method adds its own metrics and the momentum block, a run
  // refused as not applicable (metrics null), and one timed run (wall times).
  std::vector<RunSpec> specs = {
      Spec("planar_pendulum", "ida", {}, {{"rtol", "1e-8"}, {"atol", "1e-10"}}, 1.0),
      Spec("six_body_linkage", "null-space-em", {}, {{"h", "0.01"}}, 0.1),
      Spec("planar_pendulum", "recursive-zero-mass", {}, {}, 0.1),
      Spec("planar_pendulum", "odeint-rk4", {}, {{"h", "0.01"}}, 0.5)};
  specs.back().repeats = 1;
  for (const RunSpec& spec : specs) {
    INFO(spec.problem << " " << spec.method);
    const ResultDocument document = DocumentOfRun(spec);
    const std::string text = ToJson(document);
    const ResultDocument back = ResultDocumentFromJson(text, "run.json");
    CHECK(back == document);
    CHECK(ToJson(back) == text);
  }
  // The equality sees a change: the round trip is not compared with itself.
  ResultDocument changed = DocumentOfRun(specs[0]);
  const ResultDocument original = changed;
  changed.metrics.extra["solver.iterations"] = 3.0;
  CHECK_FALSE(changed == original);
}

TEST_CASE("a stability document from a real search reads back equal", "[results][documents]") {
  RunSpec spec = Spec("stiff_pendulum", "odeint-rk4", {{"form", "minimal"}}, {}, 0.0);
  StabilityOptions options;
  options.h_min = 0.3;
  options.h_max = 3.0;
  options.relative_precision = 5e-2;
  const StabilityDocument document = StabilityDocumentOf(SearchStabilityLimit(spec, options));
  REQUIRE(document.trials.size() > 2);
  const std::string text = ToJson(document);
  const StabilityDocument back = StabilityDocumentFromJson(text, "s.stability.json");
  CHECK(back == document);
  CHECK(ToJson(back) == text);
}

TEST_CASE("every committed baseline reads back without losing a key", "[results][documents]") {
  // Baselines written by earlier versions lack keys added since (the writer now writes them,
  // null or defaulted); every key a baseline has must come back with its value, and a
  // rewritten document must read back into the same bytes.
  int documents = 0;
  for (const auto& entry : fs::recursive_directory_iterator(MBBENCH_BASELINES_DIR)) {
    const fs::path path = entry.path();
    const std::string name = path.filename().string();
    if (path.extension() != ".json" || name == "index.json" || name == "paper_claims.json")
      continue;
    INFO(path.string());
    const std::string text = Text(path);
    const bool stability = name.size() > 15 && name.substr(name.size() - 15) == ".stability.json";
    const auto rewrite = [&](const std::string& t) {
      return stability ? ToJson(StabilityDocumentFromJson(t, path.string()))
                       : ToJson(ResultDocumentFromJson(t, path.string()));
    };
    const std::string rewritten = rewrite(text);
    CHECK(rewrite(rewritten) == rewritten);
    const json before = json::parse(text).flatten(), after = json::parse(rewritten).flatten();
    for (const auto& [key, value] : before.items()) {
      INFO(key);
      CHECK((after.contains(key) && after[key] == value));
    }
    ++documents;
  }
  CHECK(documents > 50);
}

// A result written before `outputs_meaningful` existed (andrews_squeezer_ida.json, an ok run)
// reads as meaningful: the report's "ok (inaccurate)" marker needs evidence, and an absent key
// is none. The same document with the key false reads as false.
TEST_CASE("an ok result without outputs_meaningful counts as meaningful", "[results][documents]") {
  const fs::path path = fs::path(MBBENCH_BASELINES_DIR) / "andrews_squeezer_ida.json";
  json j = json::parse(Text(path));
  REQUIRE(j.at("status") == "ok");
  REQUIRE_FALSE(j.contains("outputs_meaningful"));
  CHECK(ParseResultSummaryText(j.dump(), path.string()).outputs_meaningful);
  j["outputs_meaningful"] = false;
  CHECK_FALSE(ParseResultSummaryText(j.dump(), path.string()).outputs_meaningful);
}
