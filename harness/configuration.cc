// Configuration keys of runs: what a sweep's resume and `mbbench check` compare (json_io.h
// writes them into result documents as `configuration` and `configuration_hash`).
#include "harness/configuration.h"

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "harness/json_io.h"

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
