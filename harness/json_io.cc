#include "harness/json_io.h"

#include <unistd.h>
#include <algorithm>
#include <cmath>
#include <cstdio>

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <tuple>

#include "harness/context.h"
#include "harness/json_file.h"
#include "harness/reference_store.h"
#include "harness/regression.h"
#include "methods/method.h"

namespace mbb {

using nlohmann::json;

namespace {

// JSON has no NaN or infinity: write them as null (a diverged run's drift, say).
json Number(double x) { return std::isfinite(x) ? json(x) : json(nullptr); }
template <class T>
json Optional(const std::optional<T>& x) {
  return x ? Number(*x) : json(nullptr);
}
json Array(const std::vector<double>& v) {
  json a = json::array();
  for (double x : v) a.push_back(Number(x));
  return a;
}

json ContextJson() {
  const RunContext& c = CurrentContext();
  return {{"suite_version", c.suite_version},
          {"git_commit", c.git_commit},
          {"git_dirty", c.git_dirty},
          {"compiler", c.compiler},
          {"flags", c.flags},
          {"build_type", c.build_type},
          {"eigen", c.eigen},
          {"sundials", c.sundials},
          {"boost", c.boost},
          {"cpu", c.cpu},
          {"cores", c.cores},
          {"date", c.date},
          {"simbody", c.simbody.empty() ? json(nullptr) : json(c.simbody)},
          {"host", c.host},
          {"reference_data_hash", ReferenceDataHash()},
          {"reference_dir", ReferenceDirectory()}};
}

json ProblemJson(const RunRecord& r) {
  return {
      {"id", r.problem_id},
      {"parameters", r.problem_parameters},
      {"formulation", r.problem_formulation.empty() ? json(nullptr) : json(r.problem_formulation)},
      {"n", r.n},
      {"m", r.m},
      {"dof", r.dof},
      {"constraint_rank", r.constraint_rank},
      {"warnings", r.warnings},
      {"initial_residuals",
       {{"position_stated", r.initial_residuals.position_stated},
        {"position", r.initial_residuals.position},
        {"velocity_stated", r.initial_residuals.velocity_stated},
        {"velocity", r.initial_residuals.velocity}}}};
}

json MethodJson(const RunRecord& r) {
  return {{"id", r.method_id}, {"parameters", r.method_parameters}};
}

json SettingsJson(const RunRecord& r) {
  return {{"h", Optional(r.h)},
          {"t_end", r.t_end},
          {"rtol", Optional(r.rtol)},
          {"atol", Optional(r.atol)},
          {"samples", r.samples}};
}

json MetricsJson(const RunRecord& r) {
  const RunMetrics& m = r.metrics;
  json j = {{"steps", r.counters.steps},
            {"rejected_steps", r.counters.rejected_steps},
            {"rhs_evals", r.counters.rhs_evals},
            {"jacobian_evals", r.counters.jacobian_evals},
            {"newton_iterations", r.counters.newton_iterations},
            {"factorizations", r.counters.factorizations},
            {"samples", m.samples}};
  if (r.wall_time) {
    j["wall_time_s"] = {{"min", r.wall_time->min},
                        {"median", r.wall_time->median},
                        {"max", r.wall_time->max},
                        {"repeats", r.wall_time->repeats}};
    j["time_per_step_s"] =
        r.counters.steps > 0 ? json(r.wall_time->median / r.counters.steps) : json(nullptr);
  } else {
    j["wall_time_s"] = nullptr;
    j["time_per_step_s"] = nullptr;
  }
  // A run that never reached its first sample (not_applicable, or refused at t0) measured
  // no residual and no energy: null, not 0 (a 0 would read as perfect conservation).
  auto measured = [&m](double x) { return m.samples > 0 ? Number(x) : json(nullptr); };
  j["constraint_residual"] = {{"position_max", measured(m.position_residual_max)},
                              {"velocity_max", measured(m.velocity_residual_max)},
                              {"acceleration_max", Optional(m.acceleration_residual_max)}};
  j["energy"] = {{"initial", measured(m.energy_initial)},
                 {"final", measured(m.energy_final)},
                 {"max_abs_drift", measured(m.energy_max_abs_drift)},
                 {"max_rel_drift", measured(m.energy_max_rel_drift)},
                 {"external_work", measured(m.external_work)}};
  if (m.error) {
    j["error"] = {{"reference", m.error->reference},
                  {"position_max_abs", Number(m.error->position_max_abs)},
                  {"position_max_rel", Number(m.error->position_max_rel)},
                  {"scd", Number(m.error->scd)},
                  {"compared_samples", m.error->compared_samples},
                  {"output_max_abs", Optional(m.error->output_max_abs)},
                  {"output_max_rel", Optional(m.error->output_max_rel)},
                  {"output_scd", Optional(m.error->output_scd)},
                  {"outputs_compared", m.error->outputs_compared}};
  }
  if (m.momentum) {
    auto triple = [](const std::array<double, 3>& x) {
      return json::array({Number(x[0]), Number(x[1]), Number(x[2])});
    };
    const MomentumMetrics& p = *m.momentum;
    j["momentum"] = {{"linear_initial", triple(p.linear_initial)},
                     {"linear_max_abs_drift", triple(p.linear_max_abs_drift)},
                     {"angular_initial", triple(p.angular_initial)},
                     {"angular_max_abs_drift", triple(p.angular_max_abs_drift)},
                     {"conserved_components", p.conserved_components},
                     {"conserved_max_abs_drift", Optional(p.conserved_max_abs_drift)}};
  }
  j["multiplier_max"] = Optional(m.multiplier_max);
  if (m.revolution_period) j["revolution_period_s"] = Number(*m.revolution_period);
  // A key "group.name" becomes {"group": {"name": ...}} (iteration_matrix_condition).
  for (const auto& [k, v] : r.extra_metrics) {
    const auto dot = k.find('.');
    if (dot == std::string::npos)
      j[k] = Number(v);
    else
      j[k.substr(0, dot)][k.substr(dot + 1)] = Number(v);
  }
  return j;
}

}  // namespace

std::string RunRecordToJson(const RunRecord& r, const std::string& series_file) {
  json j;
  j["schema"] = kResultSchema;
  j["context"] = ContextJson();
  j["context"]["load_average"] =
      r.load_average ? json(*r.load_average) : json(nullptr);  // at the start of the run
  j["problem"] = ProblemJson(r);
  j["method"] = MethodJson(r);
  j["settings"] = SettingsJson(r);
  j["status"] = ToString(r.status);
  j["message"] = r.message;
  // A failed or unstable run's metrics, outputs and final state describe where it stopped,
  // not the solution at t_end (docs/result-schema.md).
  // An ok run that left the reference (took the other branch at a singular position, or
  // drifted off at a coarse step) is no approximation of the solution either.
  j["outputs_meaningful"] = r.status == RunStatus::kOk && !r.left_reference_at;
  j["metrics"] = MetricsJson(r);
  json outputs = json::object();
  for (size_t i = 0; i < r.output_names.size() && i < r.outputs.size(); ++i)
    outputs[r.output_names[i]] = Number(r.outputs[i]);
  j["outputs"] = outputs;
  if (r.final_state_valid) {
    j["final_state"] = {{"t", r.final_t},
                        {"q", Array(r.final_q)},
                        {"v", Array(r.final_v)},
                        {"interpolated", r.final_state_interpolated}};
  } else {
    j["final_state"] = nullptr;
  }
  j["series"] = series_file.empty() ? json(nullptr) : json(series_file);
  if (!r.configuration.empty()) {
    j["configuration"] = json::parse(r.configuration);
    j["configuration_hash"] = ConfigurationHash(r.configuration);
  }
  return j.dump(2) + "\n";
}

std::string StabilityRecordToJson(const StabilityRecord& s) {
  json j;
  j["schema"] = kStabilitySchema;
  j["context"] = ContextJson();
  j["problem"] = ProblemJson(s.base);
  j["method"] = MethodJson(s.base);
  j["settings"] = {{"t_end", s.base.t_end},
                   {"relative_precision", s.relative_precision},
                   {"h_min", s.h_min},
                   {"h_max", s.h_max}};
  j["h_max_stable"] = Optional(s.h_max_stable);
  j["h_min_unstable"] = Optional(s.h_min_unstable);
  j["criterion"] = {{"name", s.criterion},
                    {"parameters", s.criterion_parameters},
                    {"description", s.criterion_description}};
  json trials = json::array();
  for (const auto& t : s.trials)
    trials.push_back({{"h", t.h},
                      {"status", ToString(t.status)},
                      {"stable", t.status == RunStatus::kOk},
                      {"message", t.message},
                      {"max_band_ratio", Number(t.max_growth)}});
  j["trials"] = trials;
  j["message"] = s.message;
  j["notes"] = s.notes;
  return j.dump(2) + "\n";
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
  json j = {{"schema", kIndexSchema}, {"name", name}, {"context", ContextJson()}, {"runs", runs}};
  return j.dump(2) + "\n";
}

namespace {

std::string HashHex(const std::string& bytes) {
  std::uint64_t h = 14695981039346656037ull;  // FNV-1a, 64 bit
  for (unsigned char c : bytes) h = (h ^ c) * 1099511628211ull;
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  return hex;
}

}  // namespace

std::string ConfigurationHash(const std::string& key) { return HashHex(key); }

StoredResult StoredResultOfText(const std::string& text, const std::string& where) {
  StoredResult r;
  try {
    const JsonDocument d(ParseJsonText(text, where), where);
    d.RequireSchema(kResultSchema);
    r.status = d.String("status");
    const json* configuration = d.Find("configuration");
    if (configuration != nullptr && !configuration->is_object())
      d.Fail("configuration",
             "expected an object, found " + JsonDocument::TypeName(*configuration));
    if (configuration != nullptr) r.configuration = configuration->dump();
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

namespace {

BaselineValues ParseBaselineValues(const JsonDocument& d) {
  d.RequireSchema(kResultSchema);
  BaselineValues b;
  ParseRunIdentity(d, b);
  b.h = d.NumberOrNull("settings.h");
  b.rtol = d.NumberOrNull("settings.rtol");
  b.atol = d.NumberOrNull("settings.atol");
  b.t_end = d.Number("settings.t_end");
  b.status = d.String("status");
  b.steps = d.Whole("metrics.steps");
  const json& final_state = d.At("final_state");
  if (final_state.is_object()) {
    for (const auto& x : d.Array("final_state.q")) {
      if (!x.is_number() && !x.is_null())
        d.Fail("final_state.q", "expected numbers (or null), found " + JsonDocument::TypeName(x));
      b.final_q.push_back(x.is_number() ? x.get<double>() : std::nan(""));
    }
  } else if (!final_state.is_null()) {
    d.Fail("final_state",
           "expected an object or null, found " + JsonDocument::TypeName(final_state));
  }
  for (const auto& [k, v] : d.Object("outputs").items()) {
    if (v.is_number())
      b.outputs[k] = v.get<double>();
    else if (!v.is_null())
      d.Fail("outputs." + k, "expected a number or null, found " + JsonDocument::TypeName(v));
  }
  if (const json* error = d.Find("metrics.error"); error != nullptr && !error->is_null())
    b.error_rel = d.NumberOrNull("metrics.error.position_max_rel");
  b.energy_abs_drift = d.NumberOrNull("metrics.energy.max_abs_drift");
  b.position_residual = d.NumberOrNull("metrics.constraint_residual.position_max");
  b.velocity_residual = d.NumberOrNull("metrics.constraint_residual.velocity_max");
  return b;
}

StabilityBaselineValues ParseStabilityBaselineValues(const JsonDocument& d) {
  d.RequireSchema(kStabilitySchema);
  StabilityBaselineValues b;
  ParseRunIdentity(d, b);
  b.t_end = d.Number("settings.t_end");
  b.relative_precision = d.Number("settings.relative_precision");
  // Documents written before the bracket was recorded: the first trial is h_min and the
  // default h_max was 1000 h_min.
  const json& trials = d.Array("trials");
  if (d.Find("settings.h_min") != nullptr) {
    b.h_min = d.Number("settings.h_min");
  } else {
    if (trials.empty() || !trials[0].is_object() || !trials[0].contains("h") ||
        !trials[0]["h"].is_number())
      d.Fail("settings.h_min", "missing, and trials[0].h does not give it");
    b.h_min = trials[0]["h"].get<double>();
  }
  b.h_max = d.Find("settings.h_max") != nullptr ? d.Number("settings.h_max") : 1000.0 * b.h_min;
  b.criterion = d.String("criterion.name");
  d.Object("criterion.parameters");
  b.factor = d.OptionalNumberAt("criterion.parameters.factor").value_or(0.0);
  b.bound = d.OptionalNumberAt("criterion.parameters.bound").value_or(0.0);
  b.h_max_stable = d.NumberOrNull("h_max_stable");
  b.h_min_unstable = d.NumberOrNull("h_min_unstable");
  return b;
}

std::string FileNameOf(const std::string& path) { return path.substr(path.find_last_of('/') + 1); }

}  // namespace

std::string ReadDocumentSchema(const std::string& path) {
  const json j = ReadJsonFile(path);
  return j.is_object() && j.contains("schema") && j["schema"].is_string()
             ? j["schema"].get<std::string>()
             : "";
}

StabilityBaselineValues ParseStabilityBaselineText(const std::string& text,
                                                   const std::string& where) {
  StabilityBaselineValues b =
      ParseStabilityBaselineValues(JsonDocument(ParseJsonText(text, where), where));
  b.file = FileNameOf(where);
  return b;
}

StabilityBaselineValues ReadStabilityBaselineValues(const std::string& path) {
  StabilityBaselineValues b = ParseStabilityBaselineValues(JsonDocument(ReadJsonFile(path), path));
  b.file = FileNameOf(path);
  return b;
}

StabilityBaselineValues StabilityBaselineValuesOf(const StabilityRecord& record) {
  return ParseStabilityBaselineValues(
      JsonDocument(json::parse(StabilityRecordToJson(record)), record.base.problem_id));
}

BaselineValues ParseBaselineText(const std::string& text, const std::string& where) {
  BaselineValues b = ParseBaselineValues(JsonDocument(ParseJsonText(text, where), where));
  b.file = FileNameOf(where);
  return b;
}

BaselineValues ReadBaselineValues(const std::string& path) {
  BaselineValues b = ParseBaselineValues(JsonDocument(ReadJsonFile(path), path));
  b.file = FileNameOf(path);
  return b;
}

BaselineValues BaselineValuesOf(const RunRecord& record) {
  return ParseBaselineValues(JsonDocument(json::parse(RunRecordToJson(record)), record.problem_id));
}

}  // namespace mbb
