// What reports, indexes and `mbbench export` read of result and stability documents.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace mbb {

struct IndexEntry;

/// What a report shows of one result document.
struct ResultSummary {
  std::string file, problem, method, status, message;
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
  /// Set by the report (LabelConfigurations): the configuration label when it shows more
  /// than the non-default parameters; "" otherwise.
  std::string configuration_label;
};
/// One `mbbench stability` result (mbbench.stability/1) under a results directory.
struct StabilitySummary {
  std::string file, problem, method, criterion, message;
  std::map<std::string, std::string> method_parameters;
  std::optional<double> h_max_stable, h_min_unstable;
  double t_end = 0.0;
  int trials = 0;
};
/// Reads every *.stability.json under `dir` (recursively); unreadable ones are skipped.
std::vector<StabilitySummary> ReadStabilitySummaries(const std::string& dir);
/// A .json file under a results directory that could not be read as a result.
struct UnreadableResult {
  std::string file, reason;
};
/// Reads every mbbench.result/1 document under `dir` (recursively, shards included);
/// JSON files of other schemas are skipped. A .json file that cannot be opened or parsed
/// (e.g. truncated), or a result document with a key missing or of the wrong type, is
/// appended to `unreadable` with the reason; without `unreadable` the first one throws
/// InputError naming it.
/// The summary of one result file; empty if it is not a readable mbbench.result/1 document.
std::optional<ResultSummary> ReadResultSummaryFile(const std::string& path);
/// Fills the result fields of `entry` from the result file it names inside `dir`.
void AddResultToIndexEntry(const std::string& dir, IndexEntry& entry);
std::vector<ResultSummary> ReadResultSummaries(const std::string& dir,
                                               std::vector<UnreadableResult>* unreadable = nullptr);

}  // namespace mbb
