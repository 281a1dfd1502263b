// The one place that reads and writes JSON (nlohmann/json stays in json_io.cc): result
// documents (schema mbbench.result/1, docs/result-schema.md), stability documents
// (mbbench.stability/1), sweep indexes, and the sweep experiment files.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "harness/run_record.h"
#include "harness/runner.h"
#include "reference/reference.h"

namespace mbb {

inline constexpr const char* kResultSchema = "mbbench.result/1";
inline constexpr const char* kStabilitySchema = "mbbench.stability/1";
inline constexpr const char* kIndexSchema = "mbbench.index/1";

std::string RunRecordToJson(const RunRecord& record, const std::string& series_file = "");
std::string StabilityRecordToJson(const StabilityRecord& record);
/// CSV with t, q_i, v_i, outputs, residuals and the energy balance per accepted step.
std::string SeriesToCsv(const RunRecord& record, const std::vector<std::string>& output_names);

/// Index entry of a sweep or catalogue run.
struct IndexEntry {
  std::string file, problem, method;
  std::string configuration_hash;
  std::string status;
  std::string message;
  // Filled from the written result when there is one (docs/result-schema.md, index.json):
  // the parameters typed (numbers as numbers), the settings and the flattened metrics.
  std::map<std::string, std::string> problem_parameters, method_parameters;
  std::optional<double> h, rtol, atol;
  std::map<std::string, double> metrics;
  bool has_result = false;
};
std::string IndexToJson(const std::string& name, const std::vector<IndexEntry>& entries);

/// Writes to `path` through a temporary file and rename, so a reader (or an interrupted
/// sweep) never sees a partial file. Throws std::runtime_error naming the path on failure.
void WriteFileAtomically(const std::string& path, const std::string& text);

/// Status of an existing result file ("" if missing or unreadable): used to resume sweeps.
std::string ReadResultStatus(const std::string& path);

/// The configuration of a run as canonical JSON text (sorted keys): problem id, resolved
/// problem parameters, the model file's content hash, method id, resolved method parameters,
/// the settings the method used (h, rtol, atol), the horizon, whether a series was asked and
/// the number of timed repeats. `described` is DescribeRun's record of the resolved spec.
/// Two runs with equal keys compute the same thing: what a sweep may reuse.
std::string ConfigurationKey(const RunRecord& described, const RunSpec& spec);
/// 16 hex digits (64-bit FNV-1a) of a configuration key, for indexes and file listings.
std::string ConfigurationHash(const std::string& key);

/// A stored result as a sweep's resume sees it: its status and configuration key ("" for
/// a result written before configurations were stored, or unreadable).
struct StoredResult {
  std::string status;
  std::string configuration;
};
StoredResult ReadStoredResult(const std::string& path);
/// The keys whose values differ between two configuration keys ("settings.h: 0.004 -> 0.001"),
/// for the message that says why a stored result is not reused.
std::string DescribeConfigurationChange(const std::string& stored, const std::string& wanted);

/// The stored reference in `path` whose parameters equal the problem's, if any (none for a
/// missing file). Throws InputError naming the file when it is malformed.
std::optional<Reference> ReadReferenceFile(const std::string& path, const Problem& problem);
/// Adds (or replaces, for equal parameters) one entry of a reference file.
struct TabulatedReference;
void WriteReferenceEntry(const std::string& path, const TabulatedReference& entry);

/// The values a regression check compares, read from a result document (InputError naming
/// the file if it is not one).
struct BaselineValues;
BaselineValues ReadBaselineValues(const std::string& path);
BaselineValues BaselineValuesOf(const RunRecord& record);
struct StabilityBaselineValues;
StabilityBaselineValues ReadStabilityBaselineValues(const std::string& path);
StabilityBaselineValues StabilityBaselineValuesOf(const StabilityRecord& record);
/// The "schema" of a JSON document (empty if it has none); InputError naming the file if it
/// cannot be read or parsed.
std::string ReadDocumentSchema(const std::string& path);

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
/// A parameter value as JSON-ready text typing: true when `text` is a whole number or decimal.
bool LooksNumeric(const std::string& text);
/// Fills the result fields of `entry` from the result file it names inside `dir`.
void AddResultToIndexEntry(const std::string& dir, IndexEntry& entry);
std::vector<ResultSummary> ReadResultSummaries(const std::string& dir,
                                               std::vector<UnreadableResult>* unreadable = nullptr);

/// One run of a sweep, as the experiment file states it.
struct SweepItem {
  RunSpec spec;
  std::string label;  // file stem
};
struct SweepFile {
  std::string name;
  std::vector<SweepItem> items;
};
/// Default limit on the runs of one experiment (`sweep --max-runs` raises it).
inline constexpr size_t kDefaultMaxRuns = 10000;
/// Parses an experiment file (format: docs/experiments.md); throws InputError naming the
/// file and the key on bad input, and before expanding anything when it would have more than
/// `max_runs` runs.
SweepFile ReadSweepFile(const std::string& path, size_t max_runs = kDefaultMaxRuns);
/// The same for the text of an experiment file; `path` names it in messages and anchors
/// relative model paths (the fuzzer's entry point).
SweepFile ParseSweepText(const std::string& text, const std::string& path,
                         size_t max_runs = kDefaultMaxRuns);

}  // namespace mbb
