// What reports, indexes and `mbbench export` read of result and stability documents.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace mbb {

struct IndexEntry;
struct ResultDocument;

/// What a report shows of one result document.
struct ResultSummary {
  std::string file, problem, method, status, message;
  /// failure_class.h: "time_limit", "step_limit", "numerical", "" (ok, not_applicable).
  std::string failure_class;
  std::map<std::string, std::string> problem_parameters, method_parameters;
  std::optional<double> h, rtol, wall_median, time_per_step, error_rel, scd, energy_rel_drift,
      position_residual;
  long steps = 0;
  std::string cpu, compiler, git_commit, date;
  int cores = 0;
  // For reports and `export` (docs/reports.md).
  std::optional<double> atol, load_average_1min;
  double t_end = 0.0;
  bool git_dirty = false;
  std::string flags, build_type, eigen, sundials, boost, simbody, host, series_file;
  std::map<std::string, double> outputs;  // the named outputs (only of an ok run)
  /// Every number under `metrics`, flattened with dots (error.scd, energy.max_rel_drift).
  std::map<std::string, double> metrics;
  // For the report's verdicts and `mbbench compare` (docs/reports.md).
  std::optional<double> wall_min, wall_max, output_error_rel;
  std::vector<double> wall_times;     // metrics.wall_time_s.times (each repeat), if recorded
  std::vector<std::string> warnings;  // problem.warnings
  bool outputs_meaningful = true;     // false when the document says so
  /// Set by the report (LabelConfigurations): the configuration label when it shows more
  /// than the non-default parameters; "" otherwise.
  std::string configuration_label;
};
/// One `mbbench stability` result (mbbench.stability/1) under a results directory.
struct StabilitySummary {
  std::string file, problem, method, criterion, message;
  std::map<std::string, std::string> problem_parameters, method_parameters;
  std::optional<double> h_max_stable, h_min_unstable;
  double t_end = 0.0;
  int trials = 0;
  /// Its context (commit, compiler, flags, libraries, CPU, host, date) in the fields of a
  /// result's summary, the rest left empty: the report's environment table counts it.
  ResultSummary environment;
};
/// A .json file under a results directory that could not be read as a result (or was
/// skipped as another kind of document), with the reason naming the key at fault.
struct UnreadableResult {
  std::string file, reason;
};
/// Reads every *.stability.json under `dir` (recursively) whose schema is
/// mbbench.stability/1. A document of that schema with a key missing or of the wrong type is
/// appended to `unreadable` with the reason (without `unreadable`, InputError naming it);
/// files of other schemas, or that are not JSON, are left to ReadResultSummaries to name.
std::vector<StabilitySummary> ReadStabilitySummaries(
    const std::string& dir, std::vector<UnreadableResult>* unreadable = nullptr);
/// One stability document's summary from its text; InputError naming `where` and the key.
StabilitySummary ParseStabilitySummaryText(const std::string& text, const std::string& where);
/// One result document's summary from its text; InputError naming `where` and the key.
ResultSummary ParseResultSummaryText(const std::string& text, const std::string& where);
/// The summary of a document in memory (`run` judges its runs as the report will).
ResultSummary SummaryOfDocument(const ResultDocument& document, const std::string& where);
/// The summary of one result file; empty if it is not a readable mbbench.result/1 document.
std::optional<ResultSummary> ReadResultSummaryFile(const std::string& path);
/// Fills the result fields of `entry` from the result file it names inside `dir`.
void AddResultToIndexEntry(const std::string& dir, IndexEntry& entry);
/// Reads every mbbench.result/1 document under `dir` (recursively, shards included).
/// InputError if `dir` is not a readable directory (missing, a file, a symbolic link loop).
/// A .json file that cannot be opened or parsed (e.g. truncated), that cannot be read at all
/// (a link loop), or a result document with a key missing or of the wrong type, is appended
/// to `unreadable` with the reason; without `unreadable` the first one throws InputError
/// naming it. A JSON file that is not a result document is appended to `skipped` (when
/// given) with what it is (an array, a value, no schema, another schema), except the suite's
/// own documents that live beside results (mbbench.index/1, mbbench.stability/1,
/// mbbench.claims/1, mbbench.fastest/1, mbbench.shard/1) and the export table
/// DIR/results.json. A run found both as OUT/NAME and OUT/shard-K/NAME with the same
/// configuration hash (a sharded sweep partly merged) is read once, the OUT copy; the other
/// is appended to `skipped` as such.
std::vector<ResultSummary> ReadResultSummaries(const std::string& dir,
                                               std::vector<UnreadableResult>* unreadable = nullptr,
                                               std::vector<UnreadableResult>* skipped = nullptr);

}  // namespace mbb
