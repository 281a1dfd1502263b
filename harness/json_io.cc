#include "harness/json_io.h"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

#include "harness/context.h"

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
          {"date", c.date}};
}

json ProblemJson(const RunRecord& r) {
  return {{"id", r.problem_id},
          {"parameters", r.problem_parameters},
          {"n", r.n},
          {"m", r.m},
          {"dof", r.dof},
          {"constraint_rank", r.constraint_rank},
          {"warnings", r.warnings}};
}

json MethodJson(const RunRecord& r) {
  return {{"id", r.method_id}, {"parameters", r.method_parameters}};
}

json SettingsJson(const RunRecord& r) {
  return {{"h", Optional(r.h)},
          {"t_end", r.t_end},
          {"rtol", Optional(r.rtol)},
          {"atol", Optional(r.atol)}};
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
  j["constraint_residual"] = {{"position_max", Number(m.position_residual_max)},
                              {"velocity_max", Number(m.velocity_residual_max)},
                              {"acceleration_max", Optional(m.acceleration_residual_max)}};
  j["energy"] = {{"initial", Number(m.energy_initial)},
                 {"final", Number(m.energy_final)},
                 {"max_abs_drift", Number(m.energy_max_abs_drift)},
                 {"max_rel_drift", Number(m.energy_max_rel_drift)},
                 {"external_work", Number(m.external_work)}};
  if (m.error) {
    j["error"] = {{"reference", m.error->reference},
                  {"position_max_abs", Number(m.error->position_max_abs)},
                  {"position_max_rel", Number(m.error->position_max_rel)},
                  {"scd", Number(m.error->scd)},
                  {"compared_samples", m.error->compared_samples}};
  }
  j["multiplier_max"] = Optional(m.multiplier_max);
  for (const auto& [k, v] : r.extra_metrics) j[k] = Number(v);
  return j;
}

}  // namespace

std::string RunRecordToJson(const RunRecord& r, const std::string& series_file) {
  json j;
  j["schema"] = kResultSchema;
  j["context"] = ContextJson();
  j["problem"] = ProblemJson(r);
  j["method"] = MethodJson(r);
  j["settings"] = SettingsJson(r);
  j["status"] = ToString(r.status);
  j["message"] = r.message;
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
  return j.dump(2) + "\n";
}

std::string StabilityRecordToJson(const StabilityRecord& s) {
  json j;
  j["schema"] = kStabilitySchema;
  j["context"] = ContextJson();
  j["problem"] = ProblemJson(s.base);
  j["method"] = MethodJson(s.base);
  j["settings"] = {{"t_end", s.base.t_end}, {"relative_precision", s.relative_precision}};
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
  for (const auto& name : r.extra_series_names) out << "," << name;
  out << "\n";
  for (const auto& row : r.series) {
    out << row.t;
    for (double x : row.q) out << "," << x;
    for (double x : row.v) out << "," << x;
    for (double x : row.outputs) out << "," << x;
    out << "," << row.position_residual << "," << row.velocity_residual << ","
        << row.energy_balance;
    for (size_t i = 0; i < r.extra_series_names.size(); ++i)
      out << "," << (i < row.extra.size() ? row.extra[i] : std::nan(""));
    out << "\n";
  }
  return out.str();
}

std::string IndexToJson(const std::string& name, const std::vector<IndexEntry>& entries) {
  json runs = json::array();
  for (const auto& e : entries)
    runs.push_back({{"file", e.file},
                    {"problem", e.problem},
                    {"method", e.method},
                    {"status", e.status},
                    {"message", e.message}});
  json j = {{"schema", kIndexSchema}, {"name", name}, {"context", ContextJson()}, {"runs", runs}};
  return j.dump(2) + "\n";
}

void WriteFileAtomically(const std::string& path, const std::string& text) {
  const std::string temp = path + ".tmp";
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    if (!out) throw std::runtime_error("cannot write " + temp);
    out << text;
    out.flush();
    if (!out) throw std::runtime_error("write failed: " + temp);
  }
  if (std::rename(temp.c_str(), path.c_str()) != 0)
    throw std::runtime_error("cannot rename " + temp + " to " + path);
}

std::string ReadResultStatus(const std::string& path) {
  std::ifstream in(path);
  if (!in) return "";
  try {
    const json j = json::parse(in);
    if (j.value("schema", "") != kResultSchema) return "";
    return j.value("status", "");
  } catch (const std::exception&) {
    return "";
  }
}

namespace {

ParameterSet ReadAssignments(const json& j, const std::string& where) {
  ParameterSet p;
  if (j.is_null()) return p;
  if (!j.is_object()) throw InputError(where + ": must be an object of key: value");
  for (const auto& [k, v] : j.items()) {
    if (v.is_string())
      p.Set(k, v.get<std::string>());
    else if (v.is_number())
      p.Set(k, v.dump());
    else
      throw InputError(where + "." + k + ": must be a number or a string");
  }
  return p;
}

std::vector<std::string> ReadStrings(const json& j, const std::string& where) {
  if (!j.is_array()) throw InputError(where + ": must be an array of names");
  std::vector<std::string> out;
  for (const auto& x : j) {
    if (!x.is_string()) throw InputError(where + ": must be an array of names");
    out.push_back(x.get<std::string>());
  }
  return out;
}

void CheckKeys(const json& j, const std::vector<std::string>& allowed, const std::string& where) {
  for (const auto& [k, v] : j.items()) {
    (void)v;
    bool ok = false;
    for (const auto& a : allowed) ok = ok || a == k;
    if (!ok) throw InputError(where + ": unknown key '" + k + "'");
  }
}

}  // namespace

SweepFile ReadSweepFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError(path + ": cannot open the experiment file");
  json j;
  try {
    j = json::parse(in);
  } catch (const json::parse_error& e) {
    throw InputError(path + ": malformed JSON: " + e.what());
  }
  if (!j.is_object()) throw InputError(path + ": the experiment must be a JSON object");
  CheckKeys(j, {"name", "runs", "matrix", "t_end", "repeats", "description"}, path);
  SweepFile sweep;
  sweep.name = j.value("name", "sweep");
  const double t_end = j.contains("t_end") ? j["t_end"].get<double>() : 0.0;
  const int repeats = j.value("repeats", 5);
  auto add = [&](RunSpec spec, const std::string& where) {
    spec.t_end = spec.t_end > 0.0 ? spec.t_end : t_end;
    spec.repeats = repeats;
    char stem[32];
    std::snprintf(stem, sizeof stem, "%04zu", sweep.items.size());
    sweep.items.push_back({spec, std::string(stem) + "_" + spec.problem + "_" + spec.method});
    (void)where;
  };
  try {
    if (j.contains("runs")) {
      if (!j["runs"].is_array()) throw InputError(path + ": runs: must be an array");
      for (size_t i = 0; i < j["runs"].size(); ++i) {
        const json& r = j["runs"][i];
        const std::string where = path + ": runs[" + std::to_string(i) + "]";
        if (!r.is_object()) throw InputError(where + ": must be an object");
        CheckKeys(r, {"problem", "method", "param", "set", "t_end", "series"}, where);
        if (!r.contains("problem") || !r.contains("method"))
          throw InputError(where + ": needs 'problem' and 'method'");
        RunSpec spec;
        spec.problem = r["problem"].get<std::string>();
        spec.method = r["method"].get<std::string>();
        spec.problem_parameters = ReadAssignments(r.value("param", json()), where + ".param");
        spec.settings = ReadAssignments(r.value("set", json()), where + ".set");
        spec.t_end = r.value("t_end", 0.0);
        spec.series = r.value("series", false);
        add(spec, where);
      }
    }
    if (j.contains("matrix")) {
      const json& mtx = j["matrix"];
      const std::string where = path + ": matrix";
      if (!mtx.is_object()) throw InputError(where + ": must be an object");
      CheckKeys(mtx, {"problems", "methods", "param", "set"}, where);
      const auto problems = ReadStrings(mtx.value("problems", json::array()), where + ".problems");
      const auto methods = ReadStrings(mtx.value("methods", json::array()), where + ".methods");
      for (const auto& p : problems)
        for (const auto& m : methods) {
          RunSpec spec;
          spec.problem = p;
          spec.method = m;
          spec.problem_parameters = ReadAssignments(mtx.value("param", json()), where + ".param");
          spec.settings = ReadAssignments(mtx.value("set", json()), where + ".set");
          add(spec, where);
        }
    }
  } catch (const json::exception& e) {
    throw InputError(path + ": wrong type: " + e.what());
  }
  if (sweep.items.empty()) throw InputError(path + ": no runs (give 'runs' or 'matrix')");
  return sweep;
}

}  // namespace mbb
