// Experiment files of `mbbench sweep` (format: docs/experiments.md): keys, types, run
// counts and the expansion of matrices into runs, with InputError naming the file and key.
#include "harness/sweep_file.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <tuple>

#include "harness/json_file.h"
#include "methods/method.h"
#include "problems/core/parameters.h"
#include "problems/core/problem.h"

namespace mbb {

using nlohmann::json;

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

// A matrix's "problems" or "methods": an array of names, or "all" for every catalogue problem
// or every registered method (the full method x problem matrix, docs/experiments.md).
std::vector<std::string> NamesOrAll(const json& j, const std::string& where, bool methods) {
  if (!(j.is_string() && j.get<std::string>() == "all")) return ReadStrings(j, where);
  std::vector<std::string> out;
  if (methods)
    for (const auto& e : MethodRegistry()) out.push_back(e.name);
  else
    for (const auto& e : ProblemCatalogue()) out.push_back(e.id);
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

namespace {

// Values of a matrix entry: an array gives one run per element, anything else one run.
json Alternatives(const json& value) { return value.is_array() ? value : json::array({value}); }

// Every combination of the keys' alternatives ({"a": [1, 2], "b": 3} -> {a:1,b:3}, {a:2,b:3}).
std::vector<json> Combinations(const json& spec, const std::string& where) {
  if (!spec.is_object()) throw InputError(where + ": must be an object of key: value(s)");
  std::vector<json> out = {json::object()};
  for (const auto& [key, value] : spec.items()) {
    std::vector<json> expanded;
    for (const auto& variant : out)
      for (const auto& v : Alternatives(value)) {
        json next = variant;
        next[key] = v;
        expanded.push_back(next);
      }
    out = expanded;
  }
  return out;
}

size_t CombinationCount(const json& spec) {
  size_t count = 1;
  if (spec.is_object())
    for (const auto& [key, value] : spec.items()) {
      (void)key;
      count *= std::max<size_t>(1, Alternatives(value).size());
      if (count > (size_t{1} << 40)) break;  // far past any limit: stop before overflow
    }
  return count;
}

double PositiveNumber(const json& j, const std::string& where) {
  if (!j.is_number() || !(j.get<double>() > 0.0) || !std::isfinite(j.get<double>()))
    throw InputError(where + ": must be a number > 0");
  return j.get<double>();
}

// A model path in an experiment is relative to the experiment file's folder.
std::string ModelPath(const json& j, const std::string& experiment, const std::string& where) {
  if (!j.is_string() || j.get<std::string>().empty())
    throw InputError(where + ": must be a model file path");
  const std::filesystem::path model(j.get<std::string>());
  if (model.is_absolute()) return model.string();
  return (std::filesystem::path(experiment).parent_path() / model).lexically_normal().string();
}

std::string FileStem(const std::string& path) {
  return std::filesystem::path(path).stem().string();
}

}  // namespace

SweepFile ReadSweepFile(const std::string& path, size_t max_runs) {
  if (std::filesystem::is_directory(path))
    throw InputError(path + ": is a directory, not an experiment file");
  std::ifstream in(path);
  if (!in) throw InputError(path + ": cannot open the experiment file");
  std::stringstream text;
  text << in.rdbuf();
  return ParseSweepText(text.str(), path, max_runs);
}

namespace {

// The size first: a matrix of many keys with many values would otherwise be expanded in
// memory (1e7 runs, gigabytes) before anything says no.
void CheckRunCount(const json& j, const std::string& path, size_t max_runs) {
  size_t count = j.contains("runs") && j["runs"].is_array() ? j["runs"].size() : 0;
  double variants = 0.0;  // the matrix's param x set combinations
  if (j.contains("matrix") && j["matrix"].is_object()) {
    const json& mtx = j["matrix"];
    auto names = [&](const char* key, size_t all) -> size_t {
      if (!mtx.contains(key)) return 0;
      if (mtx[key].is_string() && mtx[key].get<std::string>() == "all") return all;
      return Alternatives(mtx[key]).size();
    };
    const size_t subjects = names("problems", ProblemCatalogue().size()) +
                            (mtx.contains("models") ? Alternatives(mtx["models"]).size() : 0);
    const size_t methods = names("methods", MethodRegistry().size());
    const size_t params = CombinationCount(mtx.value("param", json::object()));
    const size_t sets = CombinationCount(mtx.value("set", json::object()));
    count += subjects * methods * params * sets;
    variants = static_cast<double>(params) * static_cast<double>(sets);
  }
  if (count > max_runs)
    throw InputError(path + ": " + std::to_string(count) + " runs, more than the limit of " +
                     std::to_string(max_runs) + " (raise it with --max-runs)");
  // The combinations are expanded even when no problem or method multiplies them (a matrix
  // without "methods": 0 runs, yet 4^12 settings in memory; found by scripts/fuzz).
  if (variants > static_cast<double>(max_runs))
    throw InputError(path + ": matrix: param and set give more than " + std::to_string(max_runs) +
                     " combinations, the limit of runs (raise it with --max-runs)");
}

}  // namespace

SweepFile ParseSweepText(const std::string& text, const std::string& path, size_t max_runs) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::exception& e) {  // parse_error, or out_of_range for 1e999
    throw InputError(path + ": malformed JSON: " + e.what());
  }
  if (!j.is_object()) throw InputError(path + ": the experiment must be a JSON object");
  CheckKeys(j, {"name", "runs", "matrix", "t_end", "repeats", "description"}, path);
  SweepFile sweep;
  if (j.contains("name") && !j["name"].is_string())
    throw InputError(path + ": name: must be a string");
  if (j.contains("description") && !j["description"].is_string())
    throw InputError(path + ": description: must be a string");
  sweep.name = j.value("name", "sweep");
  const double t_end = j.contains("t_end") ? PositiveNumber(j["t_end"], path + ": t_end") : 0.0;
  int repeats = 5;
  if (j.contains("repeats")) {
    const json& r = j["repeats"];
    if (!r.is_number_integer() || r.get<long>() < 0 || r.get<long>() > 1000)
      throw InputError(path + ": repeats: must be a whole number from 0 to 1000");
    repeats = r.get<int>();
  }

  CheckRunCount(j, path, max_runs);

  auto add = [&](RunSpec spec) {
    spec.t_end = spec.t_end > 0.0 ? spec.t_end : t_end;
    spec.repeats = repeats;
    char number[32];
    std::snprintf(number, sizeof number, "%04zu", sweep.items.size());
    const std::string subject = spec.model_file.empty() ? spec.problem : FileStem(spec.model_file);
    sweep.items.push_back({spec, std::string(number) + "_" + subject + "_" + spec.method});
  };
  try {
    if (j.contains("runs")) {
      if (!j["runs"].is_array()) throw InputError(path + ": runs: must be an array");
      for (size_t i = 0; i < j["runs"].size(); ++i) {
        const json& r = j["runs"][i];
        const std::string where = path + ": runs[" + std::to_string(i) + "]";
        if (!r.is_object()) throw InputError(where + ": must be an object");
        CheckKeys(r, {"problem", "model", "method", "param", "set", "t_end", "series"}, where);
        if (r.contains("problem") == r.contains("model") || !r.contains("method"))
          throw InputError(where + ": needs 'method' and one of 'problem' or 'model'");
        RunSpec spec;
        if (r.contains("problem")) {
          if (!r["problem"].is_string()) throw InputError(where + ".problem: must be a name");
          spec.problem = r["problem"].get<std::string>();
        } else {
          spec.model_file = ModelPath(r["model"], path, where + ".model");
        }
        if (!r["method"].is_string()) throw InputError(where + ".method: must be a name");
        spec.method = r["method"].get<std::string>();
        spec.problem_parameters = ReadAssignments(r.value("param", json()), where + ".param");
        spec.SetFromText(ReadAssignments(r.value("set", json()), where + ".set"), where + ".set");
        if (r.contains("t_end")) spec.t_end = PositiveNumber(r["t_end"], where + ".t_end");
        if (r.contains("series") && !r["series"].is_boolean())
          throw InputError(where + ".series: must be true or false");
        spec.series = r.value("series", false);
        add(spec);
      }
    }
    if (j.contains("matrix")) {
      const json& mtx = j["matrix"];
      const std::string where = path + ": matrix";
      if (!mtx.is_object()) throw InputError(where + ": must be an object");
      CheckKeys(mtx, {"problems", "models", "methods", "param", "set"}, where);
      const auto problems =
          NamesOrAll(mtx.value("problems", json::array()), where + ".problems", false);
      std::vector<std::string> models;
      for (const auto& m : ReadStrings(mtx.value("models", json::array()), where + ".models"))
        models.push_back(ModelPath(m, path, where + ".models"));
      const auto methods =
          NamesOrAll(mtx.value("methods", json::array()), where + ".methods", true);
      // "param" and "set" values may be arrays: one run per combination (a stiffness study,
      // an rtol sweep for a work-precision diagram).
      const auto params = Combinations(mtx.value("param", json::object()), where + ".param");
      const auto sets = Combinations(mtx.value("set", json::object()), where + ".set");
      std::vector<std::pair<std::string, std::string>> subjects;  // (problem, model file)
      for (const auto& p : problems) subjects.emplace_back(p, "");
      for (const auto& m : models) subjects.emplace_back("", m);
      for (const auto& [problem, model] : subjects)
        for (const auto& m : methods)
          for (const auto& param : params)
            for (const auto& set : sets) {
              RunSpec spec;
              spec.problem = problem;
              spec.model_file = model;
              spec.method = m;
              spec.problem_parameters = ReadAssignments(param, where + ".param");
              spec.SetFromText(ReadAssignments(set, where + ".set"), where + ".set");
              add(spec);
            }
    }
  } catch (const json::exception& e) {
    throw InputError(path + ": wrong type: " + e.what());
  }
  if (sweep.items.empty()) throw InputError(path + ": no runs (give 'runs' or 'matrix')");
  return sweep;
}

}  // namespace mbb
