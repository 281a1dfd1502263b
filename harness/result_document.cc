// Writer and reader of the result document (docs/result-schema.md).
#include "harness/result_document.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <tuple>

#include "harness/failure_class.h"
#include "harness/file_names.h"
#include "harness/json_file.h"

namespace mbb {

using nlohmann::json;
using namespace document;

namespace {

DocumentMetrics MetricsOf(const RunRecord& r) {
  const RunMetrics& m = r.metrics;
  DocumentMetrics d;
  d.steps = r.counters.steps;
  d.rejected_steps = r.counters.rejected_steps;
  d.rhs_evals = r.counters.rhs_evals;
  d.jacobian_evals = r.counters.jacobian_evals;
  d.newton_iterations = r.counters.newton_iterations;
  d.factorizations = r.counters.factorizations;
  d.samples = m.samples;
  if (r.wall_time) {
    d.wall_time = DocumentWallTime{M(r.wall_time->min), M(r.wall_time->median), M(r.wall_time->max),
                                   r.wall_time->repeats, r.wall_time->times};
    if (r.counters.steps > 0) d.time_per_step = M(r.wall_time->median / r.counters.steps);
  }
  // A run that never reached its first sample (not_applicable, or refused at t0) measured
  // no residual and no energy: null, not 0 (a 0 would read as perfect conservation).
  auto measured = [&m](double x) { return m.samples > 0 ? M(x) : std::nullopt; };
  d.position_max = measured(m.position_residual_max);
  d.velocity_max = measured(m.velocity_residual_max);
  d.acceleration_max = M(m.acceleration_residual_max);
  d.energy_initial = measured(m.energy_initial);
  d.energy_final = measured(m.energy_final);
  d.energy_max_abs_drift = measured(m.energy_max_abs_drift);
  d.energy_max_rel_drift = measured(m.energy_max_rel_drift);
  d.external_work = measured(m.external_work);
  if (m.error)
    d.error = DocumentError{m.error->reference,           M(m.error->position_max_abs),
                            M(m.error->position_max_rel), M(m.error->scd),
                            m.error->compared_samples,    M(m.error->output_max_abs),
                            M(m.error->output_max_rel),   M(m.error->output_scd),
                            m.error->outputs_compared};
  if (m.momentum) {
    const MomentumMetrics& p = *m.momentum;
    d.momentum = DocumentMomentum{M(p.linear_initial),    M(p.linear_max_abs_drift),
                                  M(p.angular_initial),   M(p.angular_max_abs_drift),
                                  p.conserved_components, M(p.conserved_max_abs_drift)};
  }
  d.multiplier_max = M(m.multiplier_max);
  if (m.revolution_period) d.revolution_period = M(*m.revolution_period);
  d.cpu_time = M(r.cpu_time);  // null when no run was made
  for (const auto& [k, v] : r.extra_metrics) d.extra[k] = M(v);
  return d;
}

json MetricsJson(const DocumentMetrics& m) {
  json j = {{"steps", m.steps},
            {"rejected_steps", m.rejected_steps},
            {"rhs_evals", m.rhs_evals},
            {"jacobian_evals", m.jacobian_evals},
            {"newton_iterations", m.newton_iterations},
            {"factorizations", m.factorizations},
            {"samples", m.samples}};
  j["wall_time_s"] = m.wall_time ? json{{"min", J(m.wall_time->min)},
                                        {"median", J(m.wall_time->median)},
                                        {"max", J(m.wall_time->max)},
                                        {"repeats", m.wall_time->repeats},
                                        {"times", m.wall_time->times}}
                                 : json(nullptr);
  j["time_per_step_s"] = J(m.time_per_step);
  if (m.cpu_time) j["cpu_time_s"] = J(*m.cpu_time);
  j["constraint_residual"] = {{"position_max", J(m.position_max)},
                              {"velocity_max", J(m.velocity_max)},
                              {"acceleration_max", J(m.acceleration_max)}};
  j["energy"] = {{"initial", J(m.energy_initial)},
                 {"final", J(m.energy_final)},
                 {"max_abs_drift", J(m.energy_max_abs_drift)},
                 {"max_rel_drift", J(m.energy_max_rel_drift)},
                 {"external_work", J(m.external_work)}};
  if (m.error)
    j["error"] = {{"reference", m.error->reference},
                  {"position_max_abs", J(m.error->position_max_abs)},
                  {"position_max_rel", J(m.error->position_max_rel)},
                  {"scd", J(m.error->scd)},
                  {"compared_samples", m.error->compared_samples},
                  {"output_max_abs", J(m.error->output_max_abs)},
                  {"output_max_rel", J(m.error->output_max_rel)},
                  {"output_scd", J(m.error->output_scd)},
                  {"outputs_compared", m.error->outputs_compared}};
  if (m.momentum)
    j["momentum"] = {{"linear_initial", J(m.momentum->linear_initial)},
                     {"linear_max_abs_drift", J(m.momentum->linear_max_abs_drift)},
                     {"angular_initial", J(m.momentum->angular_initial)},
                     {"angular_max_abs_drift", J(m.momentum->angular_max_abs_drift)},
                     {"conserved_components", m.momentum->conserved_components},
                     {"conserved_max_abs_drift", J(m.momentum->conserved_max_abs_drift)}};
  j["multiplier_max"] = J(m.multiplier_max);
  if (m.revolution_period) j["revolution_period_s"] = J(*m.revolution_period);
  // A key "group.name" becomes {"group": {"name": ...}} (iteration_matrix_condition).
  for (const auto& [k, v] : m.extra) {
    const auto dot = k.find('.');
    if (dot == std::string::npos)
      j[k] = J(v);
    else
      j[k.substr(0, dot)][k.substr(dot + 1)] = J(v);
  }
  return j;
}

std::vector<Measured> MeasuredList(const JsonDocument& d, const std::string& key) {
  std::vector<Measured> out;
  for (const auto& x : d.Array(key)) {
    if (!x.is_number() && !x.is_null())
      d.Fail(key, "expected numbers (or null), found " + JsonDocument::TypeName(x));
    out.push_back(OptionalNumber(x));
  }
  return out;
}

std::array<Measured, 3> Triple(const JsonDocument& d, const std::string& key) {
  std::array<Measured, 3> out;
  const json* j = d.Find(key);
  if (j == nullptr || !j->is_array()) return out;
  for (size_t i = 0; i < 3 && i < j->size(); ++i) out[i] = OptionalNumber((*j)[i]);
  return out;
}

// The keys of the metrics block the reader knows; any other number (or group of numbers) is a
// method's own metric.
bool KnownMetric(const std::string& group, const std::string& key) {
  static const std::map<std::string, std::vector<std::string>> known = {
      {"",
       {"steps", "rejected_steps", "rhs_evals", "jacobian_evals", "newton_iterations",
        "factorizations", "samples", "wall_time_s", "time_per_step_s", "constraint_residual",
        "energy", "error", "momentum", "multiplier_max", "revolution_period_s", "cpu_time_s"}},
      {"wall_time_s", {"min", "median", "max", "repeats", "times"}},
      {"constraint_residual", {"position_max", "velocity_max", "acceleration_max"}},
      {"energy", {"initial", "final", "max_abs_drift", "max_rel_drift", "external_work"}},
      {"error",
       {"reference", "position_max_abs", "position_max_rel", "scd", "compared_samples",
        "output_max_abs", "output_max_rel", "output_scd", "outputs_compared"}},
      {"momentum",
       {"linear_initial", "linear_max_abs_drift", "angular_initial", "angular_max_abs_drift",
        "conserved_components", "conserved_max_abs_drift"}}};
  const auto it = known.find(group);
  return it != known.end() &&
         std::find(it->second.begin(), it->second.end(), key) != it->second.end();
}

void ReadExtraMetrics(const JsonDocument& d, DocumentMetrics& m) {
  for (const auto& [key, value] : d.Object("metrics").items()) {
    if (value.is_number() || value.is_null()) {
      if (!KnownMetric("", key)) m.extra[key] = OptionalNumber(value);
    } else if (value.is_object()) {
      for (const auto& [sub, x] : value.items())
        if ((x.is_number() || x.is_null()) && !KnownMetric(KnownMetric("", key) ? key : "?", sub))
          m.extra[key + "." + sub] = OptionalNumber(x);
    }
  }
}

// metrics.wall_time_s.times: each repeat's time (results since `compare`; older ones lack it).
std::vector<double> RepeatTimes(const JsonDocument& d) {
  std::vector<double> times;
  if (d.Find("metrics.wall_time_s.times") == nullptr) return times;
  for (const auto& t : d.Array("metrics.wall_time_s.times")) {
    if (!t.is_number())
      d.Fail("metrics.wall_time_s.times", "expected numbers, found " + JsonDocument::TypeName(t));
    times.push_back(t.get<double>());
  }
  return times;
}

DocumentMetrics ReadMetrics(const JsonDocument& d) {
  DocumentMetrics m;
  d.Object("metrics");
  m.steps = d.Whole("metrics.steps");
  m.rejected_steps = OptionalWhole(d, "metrics.rejected_steps");
  m.rhs_evals = OptionalWhole(d, "metrics.rhs_evals");
  m.jacobian_evals = OptionalWhole(d, "metrics.jacobian_evals");
  m.newton_iterations = OptionalWhole(d, "metrics.newton_iterations");
  m.factorizations = OptionalWhole(d, "metrics.factorizations");
  m.samples = OptionalWhole(d, "metrics.samples");
  const json& wall = d.At("metrics.wall_time_s");
  if (wall.is_object())
    m.wall_time = DocumentWallTime{d.OptionalNumberAt("metrics.wall_time_s.min"),
                                   d.NumberOrNull("metrics.wall_time_s.median"),
                                   d.OptionalNumberAt("metrics.wall_time_s.max"),
                                   OptionalWhole(d, "metrics.wall_time_s.repeats"), RepeatTimes(d)};
  else if (!wall.is_null())
    d.Fail("metrics.wall_time_s",
           "expected an object or null, found " + JsonDocument::TypeName(wall));
  m.time_per_step = d.NumberOrNull("metrics.time_per_step_s");
  m.position_max = d.NumberOrNull("metrics.constraint_residual.position_max");
  m.velocity_max = d.NumberOrNull("metrics.constraint_residual.velocity_max");
  m.acceleration_max = d.OptionalNumberAt("metrics.constraint_residual.acceleration_max");
  m.energy_initial = d.OptionalNumberAt("metrics.energy.initial");
  m.energy_final = d.OptionalNumberAt("metrics.energy.final");
  m.energy_max_abs_drift = d.NumberOrNull("metrics.energy.max_abs_drift");
  m.energy_max_rel_drift = d.NumberOrNull("metrics.energy.max_rel_drift");
  m.external_work = d.OptionalNumberAt("metrics.energy.external_work");
  if (const json* error = d.Find("metrics.error"); error != nullptr && !error->is_null())
    m.error = DocumentError{d.OptionalString("metrics.error.reference"),
                            d.OptionalNumberAt("metrics.error.position_max_abs"),
                            d.NumberOrNull("metrics.error.position_max_rel"),
                            d.NumberOrNull("metrics.error.scd"),
                            OptionalWhole(d, "metrics.error.compared_samples"),
                            d.OptionalNumberAt("metrics.error.output_max_abs"),
                            d.OptionalNumberAt("metrics.error.output_max_rel"),
                            d.OptionalNumberAt("metrics.error.output_scd"),
                            StringList(d, "metrics.error.outputs_compared")};
  if (const json* p = d.Find("metrics.momentum"); p != nullptr && p->is_object())
    m.momentum = DocumentMomentum{Triple(d, "metrics.momentum.linear_initial"),
                                  Triple(d, "metrics.momentum.linear_max_abs_drift"),
                                  Triple(d, "metrics.momentum.angular_initial"),
                                  Triple(d, "metrics.momentum.angular_max_abs_drift"),
                                  StringList(d, "metrics.momentum.conserved_components"),
                                  d.OptionalNumberAt("metrics.momentum.conserved_max_abs_drift")};
  m.multiplier_max = d.OptionalNumberAt("metrics.multiplier_max");
  if (d.Find("metrics.revolution_period_s") != nullptr)
    m.revolution_period = d.OptionalNumberAt("metrics.revolution_period_s");
  if (d.Find("metrics.cpu_time_s") != nullptr)
    m.cpu_time = d.OptionalNumberAt("metrics.cpu_time_s");
  ReadExtraMetrics(d, m);
  return m;
}

std::optional<DocumentFinalState> ReadFinalState(const JsonDocument& d) {
  const json& final_state = d.At("final_state");
  if (final_state.is_null()) return std::nullopt;
  if (!final_state.is_object())
    d.Fail("final_state",
           "expected an object or null, found " + JsonDocument::TypeName(final_state));
  DocumentFinalState s;
  s.q = MeasuredList(d, "final_state.q");
  s.t = d.OptionalNumberAt("final_state.t").value_or(0.0);
  if (d.Find("final_state.v") != nullptr) s.v = MeasuredList(d, "final_state.v");
  s.interpolated = d.Boolean("final_state.interpolated", false);
  return s;
}

std::optional<std::array<double, 3>> ReadLoadAverage(const JsonDocument& d) {
  const json* load = d.Find("context.load_average");
  if (load == nullptr || !load->is_array() || load->size() != 3) return std::nullopt;
  std::array<double, 3> out{};
  for (size_t i = 0; i < 3; ++i) {
    if (!(*load)[i].is_number()) return std::nullopt;
    out[i] = (*load)[i].get<double>();
  }
  return out;
}

std::string ReadConfiguration(const JsonDocument& d) {
  const json* configuration = d.Find("configuration");
  if (configuration == nullptr) return {};
  if (!configuration->is_object())
    d.Fail("configuration", "expected an object, found " + JsonDocument::TypeName(*configuration));
  return configuration->dump();
}

}  // namespace

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

std::map<std::string, double> FlattenedMetrics(const DocumentMetrics& metrics) {
  std::map<std::string, double> out;
  FlattenNumbers(MetricsJson(metrics), "", out);
  return out;
}

ResultDocument ResultDocumentOf(const RunRecord& r, const std::string& series_file) {
  ResultDocument d;
  d.context = CurrentDocumentContext();
  d.load_average = r.load_average;
  d.run = RunOf(r);
  d.h = M(r.h);
  d.rtol = M(r.rtol);
  d.atol = M(r.atol);
  d.t_end = r.t_end;
  d.samples = r.samples;
  d.status = ToString(r.status);
  d.message = r.message;
  d.failure_class = r.failure_class;
  // A failed or unstable run's metrics, outputs and final state describe where it stopped,
  // not the solution at t_end (docs/result-schema.md).
  // An ok run that left the reference (took the other branch at a singular position, or
  // drifted off at a coarse step) is no approximation of the solution either.
  d.outputs_meaningful = r.status == RunStatus::kOk && !r.left_reference_at;
  d.metrics = MetricsOf(r);
  for (size_t i = 0; i < r.output_names.size() && i < r.outputs.size(); ++i)
    d.outputs[r.output_names[i]] = M(r.outputs[i]);
  if (r.final_state_valid)
    d.final_state =
        DocumentFinalState{r.final_t, M(r.final_q), M(r.final_v), r.final_state_interpolated};
  d.series = series_file;
  d.configuration = r.configuration;
  return d;
}

std::string ToJson(const ResultDocument& d) {
  json j = Header(kResultSchema, d.context, d.run);
  j["context"]["load_average"] =
      d.load_average ? json(*d.load_average) : json(nullptr);  // at the start of the run
  j["settings"] = {{"h", J(d.h)},
                   {"t_end", d.t_end},
                   {"rtol", J(d.rtol)},
                   {"atol", J(d.atol)},
                   {"samples", d.samples}};
  j["status"] = d.status;
  j["message"] = d.message;
  j["failure_class"] = d.failure_class.empty() ? json(nullptr) : json(d.failure_class);
  j["outputs_meaningful"] = d.outputs_meaningful;
  j["metrics"] = MetricsJson(d.metrics);
  json outputs = json::object();
  for (const auto& [name, value] : d.outputs) outputs[name] = J(value);
  j["outputs"] = outputs;
  j["final_state"] = d.final_state ? json{{"t", d.final_state->t},
                                          {"q", J(d.final_state->q)},
                                          {"v", J(d.final_state->v)},
                                          {"interpolated", d.final_state->interpolated}}
                                   : json(nullptr);
  j["series"] = d.series.empty() ? json(nullptr) : json(d.series);
  if (!d.configuration.empty()) {
    j["configuration"] = json::parse(d.configuration);
    j["configuration_hash"] = ConfigurationHash(d.configuration);
  }
  return j.dump(2) + "\n";
}

ResultDocument ResultDocumentFromJson(const std::string& text, const std::string& where) {
  const JsonDocument d(ParseJsonText(text, where), where);
  d.RequireSchema(kResultSchema);
  ResultDocument r;
  ParseRunIdentity(d, r.run);
  ReadRunDetails(d, r.run);
  r.status = d.String("status");
  r.message = d.OptionalString("message");
  // Results written before the key existed: the class their status and message imply.
  r.failure_class = d.Find("failure_class") != nullptr ? d.OptionalString("failure_class")
                                                       : FailureClassOf(r.status, r.message);
  if (!r.failure_class.empty() && r.failure_class != kFailureTimeLimit &&
      r.failure_class != kFailureStepLimit && r.failure_class != kFailureNumerical)
    d.Fail("failure_class", "'" + r.failure_class +
                                "' is none of time_limit, step_limit, "
                                "numerical or null");
  r.h = d.NumberOrNull("settings.h");
  r.rtol = d.NumberOrNull("settings.rtol");
  r.atol = d.NumberOrNull("settings.atol");
  r.t_end = d.Number("settings.t_end");
  r.samples = d.OptionalString("settings.samples", "land");
  r.metrics = ReadMetrics(d);
  r.final_state = ReadFinalState(d);
  for (const auto& [name, value] : d.Object("outputs").items())
    r.outputs[name] = MeasuredValue(d, value, "outputs." + name);
  // Results written before the key existed: an ok run's outputs count as meaningful (the
  // report marks nothing it cannot know), any other run's do not, as the writer decides.
  r.outputs_meaningful = d.Boolean("outputs_meaningful", r.status == "ok");
  r.context = ReadContext(d);
  r.load_average = ReadLoadAverage(d);
  r.series = d.OptionalString("series");
  // The report reads the series beside the result: a name, never a path elsewhere.
  if (!r.series.empty() && !IsSafeFileName(r.series))
    d.Fail("series", "'" + r.series.substr(0, 120) + "' is not a file name");
  r.configuration = ReadConfiguration(d);
  return r;
}

namespace {
auto Tie(const DocumentWallTime& w) { return std::tie(w.min, w.median, w.max, w.repeats, w.times); }
auto Tie(const DocumentError& e) {
  return std::tie(e.reference, e.position_max_abs, e.position_max_rel, e.scd, e.compared_samples,
                  e.output_max_abs, e.output_max_rel, e.output_scd, e.outputs_compared);
}
auto Tie(const DocumentMomentum& p) {
  return std::tie(p.linear_initial, p.linear_max_abs_drift, p.angular_initial,
                  p.angular_max_abs_drift, p.conserved_components, p.conserved_max_abs_drift);
}
auto Tie(const DocumentFinalState& s) { return std::tie(s.t, s.q, s.v, s.interpolated); }
template <typename T>
bool Same(const std::optional<T>& a, const std::optional<T>& b) {
  return a.has_value() == b.has_value() && (!a || Tie(*a) == Tie(*b));
}
}  // namespace

bool operator==(const DocumentMetrics& a, const DocumentMetrics& b) {
  return std::tie(a.steps, a.rejected_steps, a.rhs_evals, a.jacobian_evals, a.newton_iterations,
                  a.factorizations, a.samples, a.time_per_step, a.position_max, a.velocity_max,
                  a.acceleration_max, a.energy_initial, a.energy_final, a.energy_max_abs_drift,
                  a.energy_max_rel_drift, a.external_work, a.multiplier_max, a.revolution_period,
                  a.cpu_time, a.extra) ==
             std::tie(b.steps, b.rejected_steps, b.rhs_evals, b.jacobian_evals, b.newton_iterations,
                      b.factorizations, b.samples, b.time_per_step, b.position_max, b.velocity_max,
                      b.acceleration_max, b.energy_initial, b.energy_final, b.energy_max_abs_drift,
                      b.energy_max_rel_drift, b.external_work, b.multiplier_max,
                      b.revolution_period, b.cpu_time, b.extra) &&
         Same(a.wall_time, b.wall_time) && Same(a.error, b.error) && Same(a.momentum, b.momentum);
}

bool operator==(const ResultDocument& a, const ResultDocument& b) {
  return a.context == b.context && a.run == b.run && a.metrics == b.metrics &&
         std::tie(a.load_average, a.h, a.rtol, a.atol, a.t_end, a.samples, a.status, a.message,
                  a.failure_class, a.outputs_meaningful, a.outputs, a.series, a.configuration) ==
             std::tie(b.load_average, b.h, b.rtol, b.atol, b.t_end, b.samples, b.status, b.message,
                      b.failure_class, b.outputs_meaningful, b.outputs, b.series,
                      b.configuration) &&
         Same(a.final_state, b.final_state);
}

}  // namespace mbb
