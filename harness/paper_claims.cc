#include "harness/paper_claims.h"

#include <cmath>
#include <cstdio>
#include <set>

#include <nlohmann/json.hpp>

#include "harness/json_file.h"
#include "problems/core/parameters.h"

namespace mbb {

namespace {

using json = nlohmann::json;

const std::set<std::string> kRelations = {"within", "at_most", "at_least", "equals"};
const std::set<std::string> kSources = {"paper", "paper statement", "independent check"};
const std::set<std::string> kClaimKeys = {"id",  "paper",    "where", "baseline",
                                          "key", "relation", "value", "relative_tolerance",
                                          "why", "source"};

std::string Text(const json& claim, const char* key, const std::string& where) {
  if (!claim.contains(key) || !claim[key].is_string() || claim[key].get<std::string>().empty())
    throw InputError(where + ": '" + key + "' must be a non-empty string");
  return claim[key].get<std::string>();
}

PaperClaim ParseClaim(const json& c, const std::string& where) {
  if (!c.is_object()) throw InputError(where + ": must be an object");
  PaperClaim claim;
  claim.id = Text(c, "id", where);
  const std::string named = where + " (" + claim.id + ")";
  for (const auto& item : c.items())
    if (!kClaimKeys.count(item.key()))
      throw InputError(named + ": unknown key '" + item.key() + "'");
  claim.paper = Text(c, "paper", named);
  claim.where = Text(c, "where", named);
  claim.baseline = Text(c, "baseline", named);
  claim.key = Text(c, "key", named);
  claim.relation = Text(c, "relation", named);
  claim.why = Text(c, "why", named);
  if (c.contains("source")) {
    claim.source = Text(c, "source", named);
    if (!kSources.count(claim.source))
      throw InputError(named + ": source '" + claim.source +
                       "' is not one of paper, paper statement, independent check");
  }
  if (!kRelations.count(claim.relation))
    throw InputError(named + ": relation '" + claim.relation +
                     "' is not one of within, at_most, at_least, equals");
  if (!c.contains("value")) throw InputError(named + ": 'value' is missing");
  const json& value = c["value"];
  if (value.is_number())
    claim.number = value.get<double>();
  else if (value.is_string() && claim.relation == "equals")
    claim.text = value.get<std::string>();
  else if (value.is_null() && claim.relation == "equals")
    claim.null_value = true;
  else
    throw InputError(named + ": 'value' must be a number (a string or null only with equals)");
  if (claim.number && !std::isfinite(*claim.number))
    throw InputError(named + ": 'value' must be finite");
  if (claim.relation == "within") {
    if (!c.contains("relative_tolerance") || !c["relative_tolerance"].is_number() ||
        !(c["relative_tolerance"].get<double>() > 0.0))
      throw InputError(named + ": 'within' needs a relative_tolerance > 0");
    claim.relative_tolerance = c["relative_tolerance"].get<double>();
  } else if (c.contains("relative_tolerance")) {
    throw InputError(named + ": relative_tolerance only goes with 'within'");
  }
  return claim;
}

// The value at a dotted path ("metrics.error.position_max_abs"); nullptr if absent.
const json* Lookup(const json& document, const std::string& path) {
  const json* node = &document;
  size_t start = 0;
  while (start <= path.size()) {
    const size_t dot = path.find('.', start);
    const std::string part = path.substr(start, dot == std::string::npos ? dot : dot - start);
    if (!node->is_object() || !node->contains(part)) return nullptr;
    node = &(*node)[part];
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return node;
}

std::string Show(const json& value) {
  if (value.is_number()) {
    char buffer[40];
    std::snprintf(buffer, sizeof buffer, "%.6g", value.get<double>());
    return buffer;
  }
  return value.is_string() ? value.get<std::string>() : value.dump();
}

std::string PaperValue(const PaperClaim& c) {
  if (c.null_value) return "null";
  if (c.text) return *c.text;
  char buffer[40];
  std::snprintf(buffer, sizeof buffer, "%.6g", *c.number);
  return buffer;
}

}  // namespace

std::vector<PaperClaim> ReadPaperClaims(const std::string& path) {
  const json j = ReadJsonFile(path);
  if (!j.is_object() || !j.contains("schema") || j["schema"] != kClaimsSchema)
    throw InputError(path + ": not a " + std::string(kClaimsSchema) + " document");
  if (!j.contains("claims") || !j["claims"].is_array())
    throw InputError(path + ": 'claims' must be an array");
  std::vector<PaperClaim> claims;
  std::set<std::string> ids;
  const json& list = j["claims"];
  for (size_t i = 0; i < list.size(); ++i) {
    claims.push_back(ParseClaim(list[i], path + ": claims[" + std::to_string(i) + "]"));
    if (!ids.insert(claims.back().id).second)
      throw InputError(path + ": claim id '" + claims.back().id + "' appears twice");
  }
  return claims;
}

bool ClaimKeyPresent(const PaperClaim& claim, const std::string& document) {
  try {
    return Lookup(json::parse(document), claim.key) != nullptr;
  } catch (const json::exception&) {
    return false;
  }
}

ClaimVerdict JudgeClaim(const PaperClaim& c, const std::string& document) {
  ClaimVerdict verdict;
  const std::string head = c.id + " (paper " + c.paper + ", " + c.where + "): " + c.key + ": " +
                           c.source + " " + PaperValue(c) + ", ours ";
  json doc;
  try {
    doc = json::parse(document);
  } catch (const json::exception&) {
    verdict.line = head + "unreadable (" + c.baseline + ")";
    return verdict;
  }
  const json* value = Lookup(doc, c.key);
  if (value == nullptr) {
    verdict.line = head + "missing in " + c.baseline;
    return verdict;
  }
  std::string detail;
  if (c.relation == "equals") {
    if (c.null_value)
      verdict.holds = value->is_null();
    else if (c.text)
      verdict.holds = value->is_string() && value->get<std::string>() == *c.text;
    else
      verdict.holds = value->is_number() && value->get<double>() == *c.number;
    detail = "equals";
  } else if (!value->is_number()) {
    detail = "not a number";
  } else {
    const double ours = value->get<double>(), paper = *c.number;
    char buffer[120];
    if (c.relation == "within") {
      const double relative = (ours - paper) / std::abs(paper);
      verdict.holds = std::abs(ours - paper) <= c.relative_tolerance * std::abs(paper);
      std::snprintf(buffer, sizeof buffer, "%+.3g %%, within %.3g %%", 100.0 * relative,
                    100.0 * c.relative_tolerance);
    } else if (c.relation == "at_most") {
      verdict.holds = ours <= paper;
      std::snprintf(buffer, sizeof buffer, "at most, ratio %.3g", ours / paper);
    } else {
      verdict.holds = ours >= paper;
      std::snprintf(buffer, sizeof buffer, "at least, ratio %.3g", ours / paper);
    }
    detail = buffer;
  }
  verdict.line = head + Show(*value) + " (" + detail + "): " + (verdict.holds ? "holds" : "FAILS");
  return verdict;
}

}  // namespace mbb
