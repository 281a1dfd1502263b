// Reading result and stability documents back for reports, indexes and `export`
// (schemas mbbench.result/1 and mbbench.stability/1, docs/result-schema.md).
#include "harness/result_summary.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <sstream>
#include <system_error>
#include <tuple>

#include "harness/file_names.h"
#include "harness/json_file.h"
#include "harness/json_io.h"
#include "harness/shard_manifest.h"

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

namespace {

namespace fs = std::filesystem;

// The documents of the suite that live beside results and are read by other readers (the
// report's stability table) or describe the directory (indexes, claims, fastest searches):
// skipped without a word. Anything else that is not a result document is named.
bool IsOtherSuiteDocument(const std::string& schema) {
  return schema == kIndexSchema || schema == kStabilitySchema || schema == "mbbench.claims/1" ||
         schema == "mbbench.fastest/1" || schema == kShardSchema;
}

// One run of one sweep, wherever a sharded sweep left it: OUT/NAME and OUT/shard-K/NAME with
// the same configuration hash are the same run (a merge interrupted, a shard rerun into a
// merged directory), counted once. Empty (never collapsed) for a result without the hash.
std::string SweepRunKey(const fs::path& relative, const json& result) {
  const auto hash = result.find("configuration_hash");
  if (hash == result.end() || !hash->is_string()) return "";
  fs::path parent = relative.parent_path();
  if (ShardOfDirectoryName(parent.filename().string()) >= 0) parent = parent.parent_path();
  return (parent / relative.filename()).string() + "#" + hash->get<std::string>();
}

// Whether `relative` lies in a shard directory (OUT/shard-K/NAME).
bool InShardDirectory(const std::string& relative) {
  return ShardOfDirectoryName(fs::path(relative).parent_path().filename().string()) >= 0;
}

bool EndsWith(const std::string& text, const std::string& tail) {
  return text.size() >= tail.size() &&
         text.compare(text.size() - tail.size(), tail.size(), tail) == 0;
}

// Every *.json file under `dir` (recursively, links to files followed, links to directories
// not), sorted. An entry whose type cannot be read (a symbolic link loop, no permission) is
// passed to `refuse` with the reason; so is a subdirectory that cannot be listed.
std::vector<fs::path> JsonFilesUnder(
    const std::string& dir,
    const std::function<void(const fs::path&, const std::string&)>& refuse) {
  std::vector<fs::path> files;
  std::error_code error;
  fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, error);
  if (error) throw InputError(dir + ": cannot be read (" + error.message() + ")");
  for (const fs::recursive_directory_iterator end; it != end;) {
    const fs::path path = it->path();
    if (path.extension() == ".json") {
      std::error_code status_error;
      const fs::file_status status = fs::status(path, status_error);
      if (status_error)
        refuse(path, "cannot be read (" + status_error.message() + ")");
      else if (fs::is_regular_file(status))
        files.push_back(path);
      else if (!fs::is_directory(status))
        refuse(path, "not a regular file");
    }
    it.increment(error);
    if (error) {
      refuse(path, "cannot be listed (" + error.message() + ")");
      break;
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::string ReadText(const fs::path& path, bool* ok) {
  std::ifstream in(path, std::ios::binary);
  *ok = static_cast<bool>(in);
  std::ostringstream text;
  if (*ok) text << in.rdbuf();
  return text.str();
}

// The machine and build of a document (its `context`), for the report's environment table.
void ReadContext(const JsonDocument& d, ResultSummary& r) {
  r.cpu = d.OptionalString("context.cpu");
  r.cores =
      static_cast<int>(std::clamp(d.OptionalNumberAt("context.cores").value_or(0.0), 0.0, 1e9));
  r.compiler = d.OptionalString("context.compiler");
  r.git_commit = d.OptionalString("context.git_commit");
  r.date = d.OptionalString("context.date");
  r.git_dirty = d.Boolean("context.git_dirty", false);
  for (auto [key, field] : {std::pair{"flags", &r.flags},
                            {"build_type", &r.build_type},
                            {"eigen", &r.eigen},
                            {"sundials", &r.sundials},
                            {"boost", &r.boost},
                            {"host", &r.host},
                            {"simbody", &r.simbody}})
    *field = d.OptionalString(std::string("context.") + key);
  if (const nlohmann::json* load = d.Find("context.load_average");
      load != nullptr && load->is_array() && !load->empty() && (*load)[0].is_number())
    r.load_average_1min = (*load)[0].get<double>();
}

}  // namespace

StabilitySummary ParseStabilitySummaryText(const std::string& text, const std::string& where) {
  const JsonDocument d(ParseJsonText(text, where), where);
  d.RequireSchema(kStabilitySchema);
  StabilitySummary s;
  s.file = where;
  s.problem = d.String("problem.id");
  s.method = d.String("method.id");
  if (d.Find("method.parameters") != nullptr) s.method_parameters = d.Strings("method.parameters");
  if (d.Find("problem.parameters") != nullptr)
    s.problem_parameters = d.Strings("problem.parameters");
  s.h_max_stable = d.NumberOrNull("h_max_stable");
  s.h_min_unstable = d.NumberOrNull("h_min_unstable");
  s.criterion = d.OptionalString("criterion.name");
  s.t_end = d.OptionalNumberAt("settings.t_end").value_or(0.0);
  if (d.Find("trials") != nullptr) s.trials = static_cast<int>(d.Array("trials").size());
  s.message = d.OptionalString("message");
  if (const nlohmann::json* context = d.Find("context"); context != nullptr && context->is_object())
    ReadContext(d, s.environment);
  return s;
}

std::vector<StabilitySummary> ReadStabilitySummaries(const std::string& dir,
                                                     std::vector<UnreadableResult>* unreadable) {
  std::vector<StabilitySummary> out;
  std::error_code error;
  if (!fs::is_directory(dir, error)) return out;
  auto refuse = [&](const fs::path& path, const std::string& reason) {
    if (unreadable == nullptr) throw InputError(path.string() + ": " + reason);
    unreadable->push_back({path.string(), reason});
  };
  // Problems with the files themselves (unreadable, not JSON) are the result reader's to
  // report: here only documents that say they are stability results and are malformed.
  for (const auto& path : JsonFilesUnder(dir, [](const fs::path&, const std::string&) {})) {
    if (!EndsWith(path.filename().string(), ".stability.json")) continue;
    bool ok = false;
    const std::string text = ReadText(path, &ok);
    if (!ok) continue;
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception&) {
      continue;
    }
    if (!j.is_object() || !j.contains("schema") || j["schema"] != kStabilitySchema) continue;
    try {
      StabilitySummary s = ParseStabilitySummaryText(text, path.string());
      s.file = fs::relative(path, dir).string();
      out.push_back(std::move(s));
    } catch (const InputError& e) {
      refuse(path, std::string("malformed stability document: ") + e.what());
    }
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
    return std::tie(a.problem, a.method, a.file) < std::tie(b.problem, b.method, b.file);
  });
  return out;
}

ResultSummary ParseResultSummaryText(const std::string& text, const std::string& where) {
  const JsonDocument d(ParseJsonText(text, where), where);
  d.RequireSchema(kResultSchema);
  ResultSummary r;
  r.file = where;
  ParseRunIdentity(d, r);
  r.status = d.String("status");
  r.message = d.OptionalString("message");
  r.h = d.NumberOrNull("settings.h");
  r.rtol = d.NumberOrNull("settings.rtol");
  const nlohmann::json& m = d.Object("metrics");
  r.steps = d.Whole("metrics.steps");
  const nlohmann::json& wall = d.At("metrics.wall_time_s");
  if (wall.is_object()) {
    r.wall_median = d.NumberOrNull("metrics.wall_time_s.median");
    r.wall_min = d.OptionalNumberAt("metrics.wall_time_s.min");
    r.wall_max = d.OptionalNumberAt("metrics.wall_time_s.max");
    if (d.Find("metrics.wall_time_s.times") != nullptr)  // results since compare (additive key)
      for (const auto& t : d.Array("metrics.wall_time_s.times")) {
        if (!t.is_number())
          d.Fail("metrics.wall_time_s.times",
                 "expected numbers, found " + JsonDocument::TypeName(t));
        r.wall_times.push_back(t.get<double>());
      }
  } else if (!wall.is_null())
    d.Fail("metrics.wall_time_s",
           "expected an object or null, found " + JsonDocument::TypeName(wall));
  r.time_per_step = d.NumberOrNull("metrics.time_per_step_s");
  if (const nlohmann::json* error = d.Find("metrics.error");
      error != nullptr && !error->is_null()) {
    r.error_rel = d.NumberOrNull("metrics.error.position_max_rel");
    r.scd = d.NumberOrNull("metrics.error.scd");
    r.output_error_rel = d.OptionalNumberAt("metrics.error.output_max_rel");
  }
  r.outputs_meaningful = d.Boolean("outputs_meaningful", true);
  if (const nlohmann::json* warnings = d.Find("problem.warnings");
      warnings != nullptr && !warnings->is_null())
    for (const auto& w : d.Array("problem.warnings"))
      if (w.is_string()) r.warnings.push_back(w.get<std::string>());
  r.energy_rel_drift = d.NumberOrNull("metrics.energy.max_rel_drift");
  r.position_residual = d.NumberOrNull("metrics.constraint_residual.position_max");
  d.Object("context");
  ReadContext(d, r);
  r.atol = d.OptionalNumberAt("settings.atol");
  r.t_end = d.OptionalNumberAt("settings.t_end").value_or(0.0);
  r.series_file = d.OptionalString("series");
  // The report reads the series beside the result: a name, never a path elsewhere.
  if (!r.series_file.empty() && !IsSafeFileName(r.series_file))
    d.Fail("series", "'" + r.series_file.substr(0, 120) + "' is not a file name");
  if (r.status == "ok" && d.Find("outputs") != nullptr)
    for (const auto& [name, value] : d.Object("outputs").items())
      if (value.is_number()) r.outputs[name] = value.get<double>();
  FlattenNumbers(m, "", r.metrics);
  return r;
}

std::optional<ResultSummary> ReadResultSummaryFile(const std::string& path) {
  bool ok = false;
  const std::string text = ReadText(path, &ok);
  if (!ok) return std::nullopt;
  try {
    ResultSummary r = ParseResultSummaryText(text, path);
    r.file = fs::path(path).filename().string();
    return r;
  } catch (const InputError&) {
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
                                               std::vector<UnreadableResult>* unreadable,
                                               std::vector<UnreadableResult>* skipped) {
  std::vector<ResultSummary> out;
  RequireDirectory(dir, "results directory");
  auto refuse = [&](const fs::path& path, const std::string& reason) {
    if (unreadable == nullptr) throw InputError(path.string() + ": " + reason);
    unreadable->push_back({path.string(), reason});
  };
  auto skip = [&](const fs::path& path, const std::string& what) {
    if (skipped != nullptr)
      skipped->push_back({path.string(), "not a " + std::string(kResultSchema) + " document (" +
                                             what + "): skipped"});
  };
  std::map<std::string, size_t> seen;  // SweepRunKey -> its row in `out`
  for (const auto& path : JsonFilesUnder(dir, refuse)) {
    bool ok = false;
    const std::string text = ReadText(path, &ok);
    if (!ok) {
      refuse(path, "cannot be read");
      continue;
    }
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception& e) {
      // A truncated or corrupted result must not vanish from a report without a word.
      refuse(path, std::string("not valid JSON: ") + e.what());
      continue;
    }
    if (!j.is_object()) {
      // `mbbench export --json` writes DIR/results.json, an array of rows: not named.
      const bool export_table = j.is_array() && path == fs::path(dir) / "results.json";
      if (!export_table) skip(path, "a JSON " + std::string(j.is_array() ? "array" : "value"));
      continue;
    }
    const auto schema = j.find("schema");
    if (schema == j.end() || !schema->is_string()) {
      skip(path, "no schema");
      continue;
    }
    if (*schema != kResultSchema) {
      if (!IsOtherSuiteDocument(schema->get<std::string>()))
        skip(path, "schema '" + schema->get<std::string>() + "'");
      continue;
    }
    try {
      ResultSummary summary = ParseResultSummaryText(text, path.string());
      summary.file = fs::relative(path, dir).string();
      const std::string key = SweepRunKey(summary.file, j);
      const auto [it, first] = seen.emplace(key, out.size());
      if (key.empty() || first) {
        out.push_back(std::move(summary));
        continue;
      }
      // The same run twice: the merged copy (not in a shard directory) is the one counted.
      ResultSummary& kept = out[it->second];
      if (InShardDirectory(kept.file) && !InShardDirectory(summary.file)) std::swap(kept, summary);
      if (skipped != nullptr)
        skipped->push_back(
            {(fs::path(dir) / summary.file).string(),
             "the same run as " + kept.file + " (same configuration): counted once"});
    } catch (const InputError& e) {
      refuse(path, std::string("malformed result document: ") + e.what());
    }
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
    return std::tie(a.problem, a.method, a.file) < std::tie(b.problem, b.method, b.file);
  });
  return out;
}

}  // namespace mbb
