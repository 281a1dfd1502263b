#include "problems/core/parameters.h"

#include "problems/core/parameter_fallbacks.h"

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
  const std::string key = assignment.substr(0, eq);
  const auto given = values_.find(key);
  if (given != values_.end())
    throw InputError(context + " '" + key + "' given twice (" + key + "=" + given->second +
                     ", then " + assignment + "): give each key once");
  values_[key] = assignment.substr(eq + 1);
}

namespace {
thread_local FallbackRecorder* active_recorder = nullptr;
}  // namespace

FallbackRecorder::FallbackRecorder() : previous_(active_recorder) { active_recorder = this; }
FallbackRecorder::~FallbackRecorder() { active_recorder = previous_; }

bool FallbackRecorder::Active() { return active_recorder != nullptr; }

void FallbackRecorder::Note(const std::string& key, const std::string& fallback) {
  if (active_recorder != nullptr) active_recorder->fallbacks_.emplace_back(key, fallback);
}

double ParameterSet::GetDouble(const std::string& key, double fallback) const {
  auto it = values_.find(key);
  if (it != values_.end()) return ParseNumber(it->second, key);
  if (FallbackRecorder::Active()) {
    char text[32];
    std::snprintf(text, sizeof text, "%.17g", fallback);
    FallbackRecorder::Note(key, text);
  }
  return fallback;
}

std::string ParameterSet::GetString(const std::string& key, const std::string& fallback) const {
  auto it = values_.find(key);
  if (it != values_.end()) return it->second;
  FallbackRecorder::Note(key, fallback);
  return fallback;
}

namespace {
const std::string& Required(const std::map<std::string, std::string>& values,
                            const std::string& key) {
  const auto it = values.find(key);
  if (it == values.end())
    throw std::logic_error("parameter '" + key +
                           "' read without a value: declare its default in the spec");
  return it->second;
}
}  // namespace

double ParameterSet::GetDouble(const std::string& key) const {
  return ParseNumber(Required(values_, key), key);
}

std::string ParameterSet::GetString(const std::string& key) const { return Required(values_, key); }

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
      std::string formerly;  // the user may have typed the former name
      for (const auto& former : spec->former_names)
        formerly += (formerly.empty() ? " (formerly '" : ", '") + former + "'";
      if (!formerly.empty()) formerly += ")";
      if (!ok)
        throw InputError(owner + ": parameter '" + key + "'" + formerly + " = '" + value +
                         "' is not one of: " + list);
    }
  }
}

ParameterSet ParameterSet::WithCurrentNames(const std::vector<ParameterSpec>& specs,
                                            const std::string& owner) const {
  ParameterSet out = *this;
  for (const auto& s : specs)
    for (const auto& former : s.former_names) {
      const auto it = out.values_.find(former);
      if (it == out.values_.end()) continue;
      if (out.values_.count(s.name) != 0)
        throw InputError(owner + ": parameter '" + s.name + "' given twice, also as '" + former +
                         "' (its former name)");
      out.values_[s.name] = it->second;
      out.values_.erase(it);
    }
  return out;
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
