// Result documents in JSON (schema mbbench.result/1, docs/result-schema.md), stability
// documents (mbbench.stability/1), sweep indexes, stored references and regression values.
// nlohmann/json stays in the harness's .cc files. Reading results back for reports is in
// result_summary.h, experiment files in sweep_file.h (both included here).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "harness/result_summary.h"
#include "harness/run_record.h"
#include "harness/runner.h"
#include "harness/sweep_file.h"
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

/// A parameter value as JSON-ready text typing: true when `text` is a whole number or decimal.
bool LooksNumeric(const std::string& text);

/// Writes to `path` through a temporary file and rename, so a reader (or an interrupted
/// sweep) never sees a partial file. Throws std::runtime_error naming the path on failure.
void WriteFileAtomically(const std::string& path, const std::string& text);
/// Writes several files (path, text) as one: every text into its temporary file first (a
/// failure there removes them all and replaces nothing), then each renamed onto its path.
void WriteFilesAtomically(const std::vector<std::pair<std::string, std::string>>& files);

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
/// a result written before configurations were stored, or unreadable). A file that is there
/// but is not a readable result document has an empty status and, in `unreadable`, the
/// reason naming the file and the key: the sweep reruns it and says why.
struct StoredResult {
  std::string status;
  std::string configuration;
  std::string unreadable;
};
StoredResult ReadStoredResult(const std::string& path);
/// The same from the document's text (`where` names it in the reason); never throws.
StoredResult StoredResultOfText(const std::string& text, const std::string& where);
/// The keys whose values differ between two configuration keys ("settings.h: 0.004 -> 0.001"),
/// for the message that says why a stored result is not reused.
std::string DescribeConfigurationChange(const std::string& stored, const std::string& wanted);

/// The stored reference in `path` whose parameters equal the problem's, if any (none for a
/// missing file). Throws InputError naming the file when it is malformed.
std::optional<Reference> ReadReferenceFile(const std::string& path, const Problem& problem);
/// Whether `path` holds an entry for these (complete) problem parameters, without building
/// the problem (a large model's assembly costs more than reading the file). False for a
/// missing file; InputError naming the file when it is malformed.
bool ReferenceFileLists(const std::string& path, const std::string& problem_id,
                        const std::map<std::string, std::string>& parameters);
/// Adds (or replaces, for equal parameters) one entry of a reference file.
struct TabulatedReference;
void WriteReferenceEntry(const std::string& path, const TabulatedReference& entry);

/// The values a regression check compares, read from a result document (InputError naming
/// the file and the key if it is not one: a key missing or of the wrong type, another schema).
struct BaselineValues;
BaselineValues ReadBaselineValues(const std::string& path);
/// The same from a document's text; `where` names it in messages (the fuzz target's entry).
BaselineValues ParseBaselineText(const std::string& text, const std::string& where);
BaselineValues BaselineValuesOf(const RunRecord& record);
struct StabilityBaselineValues;
StabilityBaselineValues ReadStabilityBaselineValues(const std::string& path);
StabilityBaselineValues ParseStabilityBaselineText(const std::string& text,
                                                   const std::string& where);
StabilityBaselineValues StabilityBaselineValuesOf(const StabilityRecord& record);
/// The "schema" of a JSON document (empty if it has none); InputError naming the file if it
/// cannot be read or parsed.
std::string ReadDocumentSchema(const std::string& path);

}  // namespace mbb
