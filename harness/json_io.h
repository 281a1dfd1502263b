// Records into documents and documents into what their readers use: the result and
// stability writers of records (through result_document.h and stability_document.h, the one
// writer and one reader of each document), the series CSV, sweep indexes, and the views that
// a sweep's resume (StoredResult) and the regression check (BaselineValues) take of a
// document. Part of the document layer: it knows nothing of how runs are made (no runner, no
// batch, no command). The reports' view is result_summary.h, configuration keys
// configuration.h, reference files reference_store.h, experiment files sweep_file.h.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "harness/atomic_file.h"
#include "harness/result_document.h"
#include "harness/run_record.h"
#include "harness/stability_document.h"

namespace mbb {

inline constexpr const char* kIndexSchema = "mbbench.index/1";

/// ToJson(ResultDocumentOf(record, series_file)) and ToJson(StabilityDocumentOf(record)).
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

/// Status of an existing result file ("" if missing or unreadable): used to resume sweeps.
std::string ReadResultStatus(const std::string& path);

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
/// The values a regression check compares, read from a result document (InputError naming
/// the file and the key if it is not one: a key missing or of the wrong type, another schema).
struct BaselineValues;
BaselineValues ReadBaselineValues(const std::string& path);
/// The same from a document's text; `where` names it in messages (the fuzz target's entry).
BaselineValues ParseBaselineText(const std::string& text, const std::string& where);
BaselineValues BaselineValuesOf(const RunRecord& record);
BaselineValues BaselineValuesOf(const ResultDocument& document);
struct StabilityBaselineValues;
StabilityBaselineValues ReadStabilityBaselineValues(const std::string& path);
StabilityBaselineValues ParseStabilityBaselineText(const std::string& text,
                                                   const std::string& where);
StabilityBaselineValues StabilityBaselineValuesOf(const StabilityRecord& record);
StabilityBaselineValues StabilityBaselineValuesOf(const StabilityDocument& document);
/// The text of a document file; InputError "PATH: cannot open" when it cannot be read.
std::string ReadDocumentText(const std::string& path);
/// The "schema" of a JSON document (empty if it has none); InputError naming the file if it
/// cannot be read or parsed.
std::string ReadDocumentSchema(const std::string& path);

}  // namespace mbb
