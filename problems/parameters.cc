#include "problems/parameters.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace mbb {

double ParseNumber(const std::string& text, const std::string& key) {
  auto parse_plain = [&](const std::string& s) {
    if (s.empty()) throw InputError("parameter '" + key + "': empty value");
    char* end = nullptr;
    const double x = std::strtod(s.c_str(), &end);
    if (end != s.c_str() + s.size())
      throw InputError("parameter '" + key + "': '" + text + "' is not a number");
    return x;
  };
  double value = 0.0;
  const auto slash = text.find('/');
  if (slash == std::string::npos) {
    value = parse_plain(text);
  } else {
    value = parse_plain(text.substr(0, slash)) / parse_plain(text.substr(slash + 1));
  }
  if (!std::isfinite(value))
    throw InputError("parameter '" + key + "': '" + text + "' is not a finite number");
  return value;
}

namespace {

std::string FormatBound(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.10g", x);
  return buf;
}

void CheckRange(const ParameterSpec& spec, double x, const std::string& text,
                const std::string& owner) {
  const bool whole = x == std::floor(x);
  if (x >= spec.min && x <= spec.max && (whole || !spec.integer)) return;
  std::string want = spec.integer ? "a whole number" : "a number";
  if (std::isfinite(spec.min) && std::isfinite(spec.max))
    want += " from " + FormatBound(spec.min) + " to " + FormatBound(spec.max);
  else if (std::isfinite(spec.min))
    want += " >= " + FormatBound(spec.min);
  else if (std::isfinite(spec.max))
    want += " <= " + FormatBound(spec.max);
  throw InputError(owner + ": parameter '" + spec.name + "' = " + text + ": must be " + want);
}

}  // namespace

void ParameterSet::SetFromAssignment(const std::string& assignment, const std::string& context) {
  const auto eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == assignment.size())
    throw InputError(context + " '" + assignment + "': expected key=value");
  values_[assignment.substr(0, eq)] = assignment.substr(eq + 1);
}

double ParameterSet::GetDouble(const std::string& key, double fallback) const {
  auto it = values_.find(key);
  if (it == values_.end()) return fallback;
  return ParseNumber(it->second, key);
}

std::string ParameterSet::GetString(const std::string& key, const std::string& fallback) const {
  auto it = values_.find(key);
  return it == values_.end() ? fallback : it->second;
}

void ParameterSet::Validate(const std::vector<ParameterSpec>& specs,
                            const std::string& owner) const {
  for (const auto& [key, value] : values_) {
    const ParameterSpec* spec = nullptr;
    for (const auto& s : specs)
      if (s.name == key) spec = &s;
    if (spec == nullptr) {
      std::string known;
      for (const auto& s : specs) known += (known.empty() ? "" : ", ") + s.name;
      throw InputError(owner + ": unknown parameter '" + key +
                       "' (accepted: " + (known.empty() ? "none" : known) + ")");
    }
    if (spec->choices.empty()) {
      double x = 0.0;
      try {
        x = ParseNumber(value, key);
      } catch (const InputError& e) {
        throw InputError(owner + ": " + e.what());
      }
      CheckRange(*spec, x, value, owner);
    } else {
      bool ok = false;
      std::string list;
      for (const auto& c : spec->choices) {
        ok = ok || c == value;
        list += (list.empty() ? "" : ", ") + c;
      }
      if (!ok)
        throw InputError(owner + ": parameter '" + key + "' = '" + value +
                         "' is not one of: " + list);
    }
  }
}

std::map<std::string, std::string> ParameterSet::Resolved(
    const std::vector<ParameterSpec>& specs) const {
  std::map<std::string, std::string> out;
  for (const auto& s : specs)
    if (!s.default_value.empty()) out[s.name] = s.default_value;
  for (const auto& [k, v] : values_) out[k] = v;
  return out;
}

}  // namespace mbb
