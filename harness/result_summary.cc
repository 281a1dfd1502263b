// Reading result and stability documents back for reports, indexes and `export`
// (schemas mbbench.result/1 and mbbench.stability/1, docs/result-schema.md).
#include "harness/result_summary.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <tuple>

#include "harness/json_file.h"
#include "harness/json_io.h"

namespace mbb {

using nlohmann::json;

namespace {
// Every number under `j`, keyed by its path joined with dots (arrays by index).
void FlattenNumbers(const json& j, const std::string& prefix, std::map<std::string, double>& out) {
  if (j.is_number()) {
    out[prefix] = j.get<double>();
  } else if (j.is_object()) {
    for (const auto& [key, value] : j.items())
      FlattenNumbers(value, prefix.empty() ? key : prefix + "." + key, out);
  } else if (j.is_array()) {
    for (size_t i = 0; i < j.size(); ++i)
      FlattenNumbers(j[i], prefix + "." + std::to_string(i), out);
  }
}
}  // namespace

std::vector<StabilitySummary> ReadStabilitySummaries(const std::string& dir) {
  namespace fs = std::filesystem;
  std::vector<StabilitySummary> out;
  if (!fs::is_directory(dir)) return out;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (entry.is_directory() || name.size() < 15 ||
        name.compare(name.size() - 15, 15, ".stability.json") != 0)
      continue;
    try {
      std::ifstream in(entry.path());
      const json j = json::parse(in);
      if (j.value("schema", "") != kStabilitySchema) continue;
      StabilitySummary s;
      s.file = fs::relative(entry.path(), dir).string();
      s.problem = j.at("problem").at("id").get<std::string>();
      s.method = j.at("method").at("id").get<std::string>();
      s.method_parameters = j["method"].value("parameters", std::map<std::string, std::string>{});
      s.h_max_stable = OptionalNumber(j.at("h_max_stable"));
      s.h_min_unstable = OptionalNumber(j.at("h_min_unstable"));
      s.criterion = j.at("criterion").value("name", "");
      s.t_end = j.at("settings").value("t_end", 0.0);
      s.trials = static_cast<int>(j.value("trials", json::array()).size());
      s.message = j.value("message", "");
      out.push_back(std::move(s));
    } catch (const json::exception&) {
      continue;  // not a stability result this reader understands
    }
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
    return std::tie(a.problem, a.method, a.file) < std::tie(b.problem, b.method, b.file);
  });
  return out;
}

namespace {
// The summary of one result document; throws json::exception on a missing key or wrong type.
ResultSummary SummaryOf(json j, const std::string& file) {  // a copy: j["key"] may insert null
  ResultSummary r;
  r.file = file;
  r.problem = j.at("problem").at("id").get<std::string>();
  r.problem_parameters = j["problem"].at("parameters").get<std::map<std::string, std::string>>();
  r.method = j.at("method").at("id").get<std::string>();
  r.method_parameters = j["method"].at("parameters").get<std::map<std::string, std::string>>();
  r.status = j.at("status").get<std::string>();
  r.message = j.value("message", "");
  r.h = OptionalNumber(j.at("settings").at("h"));
  r.rtol = OptionalNumber(j["settings"].at("rtol"));
  const json& m = j.at("metrics");
  r.steps = m.at("steps").get<long>();
  if (m.at("wall_time_s").is_object())
    r.wall_median = OptionalNumber(m["wall_time_s"].at("median"));
  r.time_per_step = OptionalNumber(m.at("time_per_step_s"));
  if (m.contains("error")) {
    r.error_rel = OptionalNumber(m["error"].at("position_max_rel"));
    r.scd = OptionalNumber(m["error"].at("scd"));
  }
  r.energy_rel_drift = OptionalNumber(m.at("energy").at("max_rel_drift"));
  r.position_residual = OptionalNumber(m.at("constraint_residual").at("position_max"));
  const json& c = j.at("context");
  r.cpu = c.value("cpu", "");
  r.cores = c.value("cores", 0);
  r.compiler = c.value("compiler", "");
  r.git_commit = c.value("git_commit", "");
  r.date = c.value("date", "");
  r.git_dirty = c.value("git_dirty", false);
  for (auto [key, field] : {std::pair{"flags", &r.flags},
                            {"build_type", &r.build_type},
                            {"eigen", &r.eigen},
                            {"sundials", &r.sundials},
                            {"boost", &r.boost},
                            {"host", &r.host}})
    if (c.contains(key) && c[key].is_string()) *field = c[key].get<std::string>();
  if (c.contains("simbody") && c["simbody"].is_string()) r.simbody = c["simbody"];
  if (c.contains("load_average") && c["load_average"].is_array() && !c["load_average"].empty() &&
      c["load_average"][0].is_number())
    r.load_average_1min = c["load_average"][0].get<double>();
  r.atol = OptionalNumber(j["settings"].value("atol", json(nullptr)));
  if (j["settings"].contains("t_end") && j["settings"]["t_end"].is_number())
    r.t_end = j["settings"]["t_end"].get<double>();
  if (j.contains("series") && j["series"].is_string()) r.series_file = j["series"];
  if (r.status == "ok" && j.contains("outputs") && j["outputs"].is_object())
    for (const auto& [name, value] : j["outputs"].items())
      if (value.is_number()) r.outputs[name] = value.get<double>();
  FlattenNumbers(m, "", r.metrics);
  return r;
}
}  // namespace

std::optional<ResultSummary> ReadResultSummaryFile(const std::string& path) {
  try {
    std::ifstream in(path);
    if (!in) return std::nullopt;
    const json j = json::parse(in);
    if (!j.is_object() || j.value("schema", "") != kResultSchema) return std::nullopt;
    return SummaryOf(j, std::filesystem::path(path).filename().string());
  } catch (const json::exception&) {
    return std::nullopt;
  }
}

void AddResultToIndexEntry(const std::string& dir, IndexEntry& entry) {
  const auto r = ReadResultSummaryFile(dir + "/" + entry.file);
  if (!r) return;
  entry.has_result = true;
  entry.problem_parameters = r->problem_parameters;
  entry.method_parameters = r->method_parameters;
  entry.h = r->h;
  entry.rtol = r->rtol;
  entry.atol = r->atol;
  entry.metrics = r->metrics;
}

std::vector<ResultSummary> ReadResultSummaries(const std::string& dir,
                                               std::vector<UnreadableResult>* unreadable) {
  namespace fs = std::filesystem;
  std::vector<ResultSummary> out;
  if (!fs::is_directory(dir)) throw InputError(dir + ": not a directory");
  auto refuse = [&](const fs::path& path, const std::string& reason) {
    if (unreadable == nullptr) throw InputError(path.string() + ": " + reason);
    unreadable->push_back({path.string(), reason});
  };
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    if (entry.path().extension() != ".json" || entry.is_directory()) continue;
    std::ifstream in(entry.path());
    if (!in) {
      refuse(entry.path(), "cannot be read");
      continue;
    }
    json j;
    try {
      j = json::parse(in);
    } catch (const json::exception& e) {
      // A truncated or corrupted result must not vanish from a report without a word.
      refuse(entry.path(), std::string("not valid JSON: ") + e.what());
      continue;
    }
    if (!j.is_object() || j.value("schema", "") != kResultSchema) continue;
    try {
      out.push_back(SummaryOf(j, fs::relative(entry.path(), dir).string()));
    } catch (const json::exception& e) {
      refuse(entry.path(), std::string("malformed result document: ") + e.what());
    }
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
    return std::tie(a.problem, a.method, a.file) < std::tie(b.problem, b.method, b.file);
  });
  return out;
}

}  // namespace mbb
