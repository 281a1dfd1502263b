// Writer and reader of the stability document (docs/stability.md).
#include "harness/stability_document.h"

#include <nlohmann/json.hpp>
#include <tuple>

#include "harness/json_file.h"

namespace mbb {

using nlohmann::json;
using namespace document;

StabilityDocument StabilityDocumentOf(const StabilityRecord& s) {
  StabilityDocument d;
  d.context = CurrentDocumentContext();
  d.run = RunOf(s.base);
  d.t_end = s.base.t_end;
  d.relative_precision = s.relative_precision;
  d.h_min = s.h_min;
  d.h_max = s.h_max;
  d.h_max_stable = M(s.h_max_stable);
  d.h_min_unstable = M(s.h_min_unstable);
  d.criterion = s.criterion;
  d.criterion_parameters = s.criterion_parameters;
  d.criterion_description = s.criterion_description;
  for (const StabilityTrial& t : s.trials)
    d.trials.push_back(
        {t.h, ToString(t.status), t.status == RunStatus::kOk, t.message, M(t.max_growth)});
  d.message = s.message;
  d.notes = s.notes;
  return d;
}

std::string ToJson(const StabilityDocument& s) {
  json j = Header(kStabilitySchema, s.context, s.run);
  j["settings"] = {{"t_end", s.t_end},
                   {"relative_precision", s.relative_precision},
                   {"h_min", s.h_min},
                   {"h_max", s.h_max}};
  j["h_max_stable"] = J(s.h_max_stable);
  j["h_min_unstable"] = J(s.h_min_unstable);
  j["criterion"] = {{"name", s.criterion},
                    {"parameters", s.criterion_parameters},
                    {"description", s.criterion_description}};
  json trials = json::array();
  for (const auto& t : s.trials)
    trials.push_back({{"h", t.h},
                      {"status", t.status},
                      {"stable", t.stable},
                      {"message", t.message},
                      {"max_band_ratio", J(t.max_band_ratio)}});
  j["trials"] = trials;
  j["message"] = s.message;
  j["notes"] = s.notes;
  return j.dump(2) + "\n";
}

namespace {

std::vector<DocumentTrial> ReadTrials(const JsonDocument& d) {
  std::vector<DocumentTrial> trials;
  const json& list = d.Array("trials");
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string key = "trials[" + std::to_string(i) + "]";
    const json& t = list[i];
    if (!t.is_object()) d.Fail(key, "expected an object, found " + JsonDocument::TypeName(t));
    DocumentTrial trial;
    if (!t.contains("h") || !t["h"].is_number()) d.Fail(key + ".h", "expected a number");
    trial.h = t["h"].get<double>();
    if (t.contains("status") && t["status"].is_string()) trial.status = t["status"];
    if (t.contains("stable") && t["stable"].is_boolean()) trial.stable = t["stable"];
    if (t.contains("message") && t["message"].is_string()) trial.message = t["message"];
    if (t.contains("max_band_ratio"))
      trial.max_band_ratio = MeasuredValue(d, t["max_band_ratio"], key + ".max_band_ratio");
    trials.push_back(trial);
  }
  return trials;
}

auto Tie(const DocumentTrial& t) {
  return std::tie(t.h, t.status, t.stable, t.message, t.max_band_ratio);
}

}  // namespace

StabilityDocument StabilityDocumentFromJson(const std::string& text, const std::string& where) {
  const JsonDocument d(ParseJsonText(text, where), where);
  d.RequireSchema(kStabilitySchema);
  StabilityDocument s;
  // Both ids first: a report names a stability document by the id at fault.
  s.run.problem = d.String("problem.id");
  s.run.method = d.String("method.id");
  ParseRunIdentity(d, s.run);
  ReadRunDetails(d, s.run);
  s.h_max_stable = d.NumberOrNull("h_max_stable");
  s.h_min_unstable = d.NumberOrNull("h_min_unstable");
  s.criterion = d.String("criterion.name");
  for (const auto& [key, value] : d.Object("criterion.parameters").items())
    if (const Measured x = MeasuredValue(d, value, "criterion.parameters." + key))
      s.criterion_parameters[key] = *x;
  s.criterion_description = d.OptionalString("criterion.description");
  s.t_end = d.Number("settings.t_end");
  s.relative_precision = d.Number("settings.relative_precision");
  // Documents written before the bracket was recorded: the first trial is h_min and the
  // default h_max was 1000 h_min.
  const json& trials = d.Array("trials");
  if (d.Find("settings.h_min") != nullptr) {
    s.h_min = d.Number("settings.h_min");
  } else {
    if (trials.empty() || !trials[0].is_object() || !trials[0].contains("h") ||
        !trials[0]["h"].is_number())
      d.Fail("settings.h_min", "missing, and trials[0].h does not give it");
    s.h_min = trials[0]["h"].get<double>();
  }
  s.h_max = d.Find("settings.h_max") != nullptr ? d.Number("settings.h_max") : 1000.0 * s.h_min;
  s.trials = ReadTrials(d);
  s.message = d.OptionalString("message");
  s.notes = StringList(d, "notes");
  s.context = d.Find("context") != nullptr ? ReadContext(d) : DocumentContext{};
  return s;
}

bool operator==(const StabilityDocument& a, const StabilityDocument& b) {
  if (a.trials.size() != b.trials.size()) return false;
  for (size_t i = 0; i < a.trials.size(); ++i)
    if (Tie(a.trials[i]) != Tie(b.trials[i])) return false;
  return a.context == b.context && a.run == b.run &&
         std::tie(a.t_end, a.relative_precision, a.h_min, a.h_max, a.h_max_stable, a.h_min_unstable,
                  a.criterion, a.criterion_parameters, a.criterion_description, a.message,
                  a.notes) == std::tie(b.t_end, b.relative_precision, b.h_min, b.h_max,
                                       b.h_max_stable, b.h_min_unstable, b.criterion,
                                       b.criterion_parameters, b.criterion_description, b.message,
                                       b.notes);
}

}  // namespace mbb
