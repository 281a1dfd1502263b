// Configuration keys of runs: what a sweep's resume and `mbbench check` compare (json_io.h
// writes them into result documents as `configuration` and `configuration_hash`).
#include "harness/configuration.h"

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "harness/json_io.h"
#include "methods/method.h"

namespace mbb {

using nlohmann::json;

namespace {
json OptionalJson(const std::optional<double>& x) { return x ? json(*x) : json(nullptr); }
}  // namespace

std::string ConfigurationKey(const RunRecord& d, const RunSpec& spec) {
  json problem = {{"id", d.problem_id}, {"parameters", d.problem_parameters}};
  if (!spec.model_file.empty()) {  // the file's content is an input, not only its name
    std::ifstream in(spec.model_file, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    problem["model_file_hash"] = ConfigurationHash(text.str());
  }
  json key = {{"problem", problem},
              {"method", {{"id", d.method_id}, {"parameters", d.method_parameters}}},
              {"settings",
               {{"h", OptionalJson(d.h)},
                {"rtol", OptionalJson(d.rtol)},
                {"atol", OptionalJson(d.atol)},
                {"t_end", d.t_end}}},
              {"series", spec.series},
              {"repeats", spec.repeats}};
  // Only when not the default, so that the keys of earlier results stay valid.
  if (d.samples != "land") key["settings"]["samples"] = d.samples;
  return key.dump();  // nlohmann's object keeps its keys sorted: a canonical text
}

std::string WithCurrentParameterNames(const std::string& key) {
  if (key.empty()) return key;
  json parsed = json::parse(key, nullptr, false);
  if (parsed.is_discarded() || !parsed.is_object()) return key;
  json& method = parsed["method"];
  if (!method.is_object() || !method.contains("id") || !method["id"].is_string() ||
      !method.contains("parameters") || !method["parameters"].is_object())
    return key;
  std::map<std::string, std::string> parameters;
  for (const auto& [name, value] : method["parameters"].items()) {
    if (!value.is_string()) return key;
    parameters[name] = value.get<std::string>();
  }
  method["parameters"] = WithCurrentParameterNames(method["id"].get<std::string>(), parameters);
  return parsed.dump();
}

std::string DescribeConfigurationChange(const std::string& stored, const std::string& wanted) {
  if (stored.empty()) return "the stored result records no configuration";
  std::string change;
  const json diff = json::diff(json::parse(stored), json::parse(wanted));
  const json old_values = json::parse(stored);
  for (const auto& op : diff) {
    const std::string path = op.at("path").get<std::string>();
    const json::json_pointer pointer(path);
    const std::string before = old_values.contains(pointer) ? old_values.at(pointer).dump() : "-";
    const std::string after = op.contains("value") ? op.at("value").dump() : "-";
    const std::string key = path.empty() ? std::string("configuration") : path.substr(1);
    change += (change.empty() ? "" : ", ") + key + ": " + before + " -> " + after;
  }
  return change.empty() ? "unchanged" : change;
}

}  // namespace mbb
