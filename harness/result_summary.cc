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
#include "harness/json_io.h"
#include "harness/result_document.h"
#include "harness/shard_manifest.h"
#include "harness/stability_document.h"

namespace mbb {

using nlohmann::json;

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
void ContextInto(const DocumentContext& c, ResultSummary& r) {
  r.cpu = c.cpu;
  r.cores = c.cores;
  r.compiler = c.compiler;
  r.git_commit = c.git_commit;
  r.date = c.date;
  r.git_dirty = c.git_dirty;
  r.flags = c.flags;
  r.build_type = c.build_type;
  r.eigen = c.eigen;
  r.sundials = c.sundials;
  r.boost = c.boost;
  r.host = c.host;
  r.simbody = c.simbody;
}

}  // namespace

StabilitySummary ParseStabilitySummaryText(const std::string& text, const std::string& where) {
  const StabilityDocument d = StabilityDocumentFromJson(text, where);
  StabilitySummary s;
  s.file = where;
  s.problem = d.run.problem;
  s.method = d.run.method;
  s.method_parameters = d.run.method_parameters;
  s.problem_parameters = d.run.problem_parameters;
  s.h_max_stable = d.h_max_stable;
  s.h_min_unstable = d.h_min_unstable;
  s.criterion = d.criterion;
  s.t_end = d.t_end;
  s.trials = static_cast<int>(d.trials.size());
  s.message = d.message;
  ContextInto(d.context, s.environment);
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
  return SummaryOfDocument(ResultDocumentFromJson(text, where), where);
}

ResultSummary SummaryOfDocument(const ResultDocument& d, const std::string& where) {
  ResultSummary r;
  r.file = where;
  RunInto(d, r);
  r.message = d.message;
  r.failure_class = d.failure_class;
  if (d.metrics.wall_time) {
    r.wall_median = d.metrics.wall_time->median;
    r.wall_min = d.metrics.wall_time->min;
    r.wall_max = d.metrics.wall_time->max;
    r.wall_times = d.metrics.wall_time->times;
  }
  r.time_per_step = d.metrics.time_per_step;
  if (d.metrics.error) {
    r.error_rel = d.metrics.error->position_max_rel;
    r.scd = d.metrics.error->scd;
    r.output_error_rel = d.metrics.error->output_max_rel;
  }
  r.outputs_meaningful = d.outputs_meaningful;
  r.warnings = d.run.warnings;
  r.energy_rel_drift = d.metrics.energy_max_rel_drift;
  r.position_residual = d.metrics.position_max;
  ContextInto(d.context, r);
  if (d.load_average) r.load_average_1min = (*d.load_average)[0];
  r.series_file = d.series;
  if (r.status == "ok")
    for (const auto& [name, value] : d.outputs)
      if (value) r.outputs[name] = *value;
  r.metrics = FlattenedMetrics(d.metrics);
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
