// The documents of the suite built on result_document.h: the writers of records, the series
// CSV, sweep indexes, and the views of a result or stability document that resume and the
// regression check read (docs/result-schema.md).
#include "harness/json_io.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "harness/json_file.h"
#include "harness/regression.h"
#include "methods/method.h"

namespace mbb {

using nlohmann::json;

namespace {

// JSON has no NaN or infinity: write them as null.
json Optional(const std::optional<double>& x) {
  return x && std::isfinite(*x) ? json(*x) : json(nullptr);
}

}  // namespace

std::string RunRecordToJson(const RunRecord& record, const std::string& series_file) {
  return ToJson(ResultDocumentOf(record, series_file));
}

std::string StabilityRecordToJson(const StabilityRecord& record) {
  return ToJson(StabilityDocumentOf(record));
}

std::string SeriesToCsv(const RunRecord& r, const std::vector<std::string>& output_names) {
  std::ostringstream out;
  out.precision(17);
  out << "t";
  for (int i = 0; i < r.n; ++i) out << ",q" << i;
  for (int i = 0; i < r.n; ++i) out << ",v" << i;
  for (const auto& name : output_names) out << "," << name;
  out << ",position_residual,velocity_residual,energy_balance";
  // Appended columns: the acceleration constraint residual and the multipliers, where the
  // method reports them (empty cells otherwise).
  const bool multipliers = std::any_of(r.series.begin(), r.series.end(),
                                       [](const SeriesRow& row) { return !row.lambda.empty(); });
  out << ",acceleration_residual";
  if (multipliers)
    for (int i = 0; i < r.m; ++i) out << ",lambda" << i;
  for (const auto& name : r.extra_series_names) out << "," << name;
  // Last, where the DAE reports them: the momenta of MomentumMetrics along the run.
  const bool momenta = std::any_of(r.series.begin(), r.series.end(),
                                   [](const SeriesRow& row) { return !row.momentum.empty(); });
  if (momenta)
    out << ",linear_momentum_x,linear_momentum_y,linear_momentum_z,angular_momentum_x,"
           "angular_momentum_y,angular_momentum_z";
  out << "\n";
  for (const auto& row : r.series) {
    out << row.t;
    for (double x : row.q) out << "," << x;
    for (double x : row.v) out << "," << x;
    for (double x : row.outputs) out << "," << x;
    out << "," << row.position_residual << "," << row.velocity_residual << "," << row.energy_balance
        << ",";
    if (!std::isnan(row.acceleration_residual)) out << row.acceleration_residual;
    if (multipliers)
      for (int i = 0; i < r.m; ++i) {
        out << ",";
        if (i < static_cast<int>(row.lambda.size())) out << row.lambda[i];
      }
    for (size_t i = 0; i < r.extra_series_names.size(); ++i)
      out << "," << (i < row.extra.size() ? row.extra[i] : std::nan(""));
    if (momenta)
      for (size_t i = 0; i < 6; ++i) {
        out << ",";
        if (i < row.momentum.size()) out << row.momentum[i];
      }
    out << "\n";
  }
  return out.str();
}

bool LooksNumeric(const std::string& text) {
  if (text.empty()) return false;
  char* end = nullptr;
  const double x = std::strtod(text.c_str(), &end);
  return *end == '\0' && std::isfinite(x) && !std::isspace(static_cast<unsigned char>(text[0]));
}

namespace {
// Parameters with their values typed: numbers as numbers, true/false as booleans.
json TypedParameters(const std::map<std::string, std::string>& parameters) {
  json j = json::object();
  for (const auto& [key, value] : parameters) {
    if (LooksNumeric(value))
      j[key] = std::strtod(value.c_str(), nullptr);
    else if (value == "true" || value == "false")
      j[key] = value == "true";
    else
      j[key] = value;
  }
  return j;
}
}  // namespace

std::string IndexToJson(const std::string& name, const std::vector<IndexEntry>& entries) {
  json runs = json::array();
  for (const auto& e : entries) {
    json run = {{"file", e.file},
                {"problem", e.problem},
                {"method", e.method},
                {"status", e.status},
                {"configuration_hash", e.configuration_hash},
                {"message", e.message}};
    if (e.has_result) {
      run["problem_parameters"] = TypedParameters(e.problem_parameters);
      run["method_parameters"] = TypedParameters(e.method_parameters);
      run["settings"] = {
          {"h", Optional(e.h)}, {"rtol", Optional(e.rtol)}, {"atol", Optional(e.atol)}};
      run["metrics"] = e.metrics;
    }
    runs.push_back(run);
  }
  json j = {{"schema", kIndexSchema},
            {"name", name},
            {"context", ContextJson(CurrentDocumentContext())},
            {"runs", runs}};
  return j.dump(2) + "\n";
}

std::string ReadDocumentText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path + ": cannot open");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

StoredResult StoredResultOfText(const std::string& text, const std::string& where) {
  StoredResult r;
  try {
    const ResultDocument document = ResultDocumentFromJson(text, where);
    r.status = document.status;
    r.configuration = document.configuration;
  } catch (const InputError& e) {
    r = {};
    r.unreadable = e.what();
  }
  return r;
}

StoredResult ReadStoredResult(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return {};
  std::ostringstream text;
  text << in.rdbuf();
  return StoredResultOfText(text.str(), path);
}

std::string ReadResultStatus(const std::string& path) { return ReadStoredResult(path).status; }

std::string ReadDocumentSchema(const std::string& path) {
  const json j = ReadJsonFile(path);
  return j.is_object() && j.contains("schema") && j["schema"].is_string()
             ? j["schema"].get<std::string>()
             : "";
}

namespace {
std::string FileNameOf(const std::string& path) { return path.substr(path.find_last_of('/') + 1); }
}  // namespace

BaselineValues BaselineValuesOf(const ResultDocument& d) {
  BaselineValues b;
  RunInto(d, b);
  if (d.final_state)
    for (const Measured& x : d.final_state->q) b.final_q.push_back(x.value_or(std::nan("")));
  for (const auto& [name, value] : d.outputs)
    if (value) b.outputs[name] = *value;
  if (d.metrics.error) b.error_rel = d.metrics.error->position_max_rel;
  b.energy_abs_drift = d.metrics.energy_max_abs_drift;
  b.position_residual = d.metrics.position_max;
  b.velocity_residual = d.metrics.velocity_max;
  return b;
}

BaselineValues BaselineValuesOf(const RunRecord& record) {
  return BaselineValuesOf(ResultDocumentOf(record));
}

BaselineValues ParseBaselineText(const std::string& text, const std::string& where) {
  BaselineValues b = BaselineValuesOf(ResultDocumentFromJson(text, where));
  b.file = FileNameOf(where);
  b.method_parameters = WithCurrentParameterNames(b.method, b.method_parameters);
  return b;
}

BaselineValues ReadBaselineValues(const std::string& path) {
  return ParseBaselineText(ReadDocumentText(path), path);
}

StabilityBaselineValues StabilityBaselineValuesOf(const StabilityDocument& d) {
  StabilityBaselineValues b;
  IdentityInto(d.run, b);
  b.t_end = d.t_end;
  b.relative_precision = d.relative_precision;
  b.h_min = d.h_min;
  b.h_max = d.h_max;
  b.criterion = d.criterion;
  const auto parameter = [&d](const char* name) {
    const auto it = d.criterion_parameters.find(name);
    return it != d.criterion_parameters.end() ? it->second : 0.0;
  };
  b.factor = parameter("factor");
  b.bound = parameter("bound");
  b.h_max_stable = d.h_max_stable;
  b.h_min_unstable = d.h_min_unstable;
  return b;
}

StabilityBaselineValues StabilityBaselineValuesOf(const StabilityRecord& record) {
  return StabilityBaselineValuesOf(StabilityDocumentOf(record));
}

StabilityBaselineValues ParseStabilityBaselineText(const std::string& text,
                                                   const std::string& where) {
  StabilityBaselineValues b = StabilityBaselineValuesOf(StabilityDocumentFromJson(text, where));
  b.file = FileNameOf(where);
  b.method_parameters = WithCurrentParameterNames(b.method, b.method_parameters);
  return b;
}

StabilityBaselineValues ReadStabilityBaselineValues(const std::string& path) {
  return ParseStabilityBaselineText(ReadDocumentText(path), path);
}

}  // namespace mbb
