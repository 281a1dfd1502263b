// The result document (mbbench.result/1, docs/result-schema.md) as a typed value, with one
// writer and one reader:
//   ToJson(ResultDocumentOf(record, series))  is what `run`, `sweep` and `check` write;
//   ResultDocumentFromJson(text, where)        is what check, resume, index, report and
//                                              export read back (json_io.h and
//                                              result_summary.h derive their views from it).
// A document holds what the file holds: numbers that were not measured or not finite are
// empty (null in the file), so ResultDocumentFromJson(ToJson(doc)) == doc. The reader refuses
// a key of the wrong type, or a missing key that every version of the writer wrote, with an
// InputError naming the file and the key; keys added since (settings.samples, configuration,
// outputs_meaningful, ...) may be absent. This layer knows records (run_record.h) and the
// run's context, nothing of how runs are made.
#pragma once

#include <array>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "harness/document_blocks.h"

namespace mbb {

inline constexpr const char* kResultSchema = "mbbench.result/1";

struct DocumentWallTime {
  Measured min, median, max;
  long repeats = 0;
  std::vector<double> times;  // each repeat's time in run order (absent before `compare`: empty)
};
struct DocumentError {
  std::string reference;
  Measured position_max_abs, position_max_rel, scd;
  long compared_samples = 0;
  Measured output_max_abs, output_max_rel, output_scd;
  std::vector<std::string> outputs_compared;
};
struct DocumentMomentum {
  std::array<Measured, 3> linear_initial, linear_max_abs_drift, angular_initial,
      angular_max_abs_drift;
  std::vector<std::string> conserved_components;
  Measured conserved_max_abs_drift;
};
/// The metrics block.
struct DocumentMetrics {
  long steps = 0, rejected_steps = 0, rhs_evals = 0, jacobian_evals = 0, newton_iterations = 0,
       factorizations = 0, samples = 0;
  std::optional<DocumentWallTime> wall_time;
  Measured time_per_step;
  Measured position_max, velocity_max, acceleration_max;  // constraint_residual
  Measured energy_initial, energy_final, energy_max_abs_drift, energy_max_rel_drift, external_work;
  std::optional<DocumentError> error;
  std::optional<DocumentMomentum> momentum;
  Measured multiplier_max;
  std::optional<Measured> revolution_period;  // the key is there only when measured
  std::optional<Measured> cpu_time;  // cpu_time_s; absent in results written before the key
  /// Method-specific metrics: "name" at the top of the block, "group.name" one level down.
  std::map<std::string, Measured> extra;
};
struct DocumentFinalState {
  double t = 0.0;
  std::vector<Measured> q, v;
  bool interpolated = false;
};

/// A result document (mbbench.result/1).
struct ResultDocument {
  DocumentContext context;
  std::optional<std::array<double, 3>> load_average;  // context.load_average
  DocumentRun run;
  Measured h, rtol, atol;
  double t_end = 0.0;
  std::string samples = "land";
  std::string status, message;
  /// "time_limit" | "step_limit" | "numerical" for a failed or unstable run, "" (null)
  /// otherwise (failure_class.h); derived from status and message when the file has no key.
  std::string failure_class;
  bool outputs_meaningful = false;
  DocumentMetrics metrics;
  std::map<std::string, Measured> outputs;
  std::optional<DocumentFinalState> final_state;
  std::string series;         // the series file beside the result ("" written as null)
  std::string configuration;  // ConfigurationKey text ("" not written)
};

/// Every number of a metrics block, keyed by its path joined with dots (error.scd,
/// momentum.linear_initial.0): what reports, indexes and `export` tabulate.
std::map<std::string, double> FlattenedMetrics(const DocumentMetrics& metrics);

/// The run's identity, settings, status and step count, into any view of a result with the
/// fields of IdentityInto and h, rtol, atol, t_end, status, steps (baseline values, summaries).
template <typename Values>
void RunInto(const ResultDocument& d, Values& b) {
  IdentityInto(d.run, b);
  b.h = d.h;
  b.rtol = d.rtol;
  b.atol = d.atol;
  b.t_end = d.t_end;
  b.status = d.status;
  b.steps = d.metrics.steps;
}

/// The document of a run record, with the context of this process.
ResultDocument ResultDocumentOf(const RunRecord& record, const std::string& series_file = "");
/// The document's JSON text (2-space indent, sorted keys, a final newline).
std::string ToJson(const ResultDocument& document);
/// Reads a result document; InputError naming `where` and the key on a malformed one.
ResultDocument ResultDocumentFromJson(const std::string& text, const std::string& where);

bool operator==(const DocumentMetrics& a, const DocumentMetrics& b);
bool operator==(const ResultDocument& a, const ResultDocument& b);

}  // namespace mbb
