#include "harness/regression.h"

#include <cmath>
#include <cstdio>

namespace mbb {

namespace {

constexpr double kRel = 1e-6;
constexpr double kAbs = 1e-9;
constexpr double kStepFraction = 0.05;
constexpr double kMetricFactor = 10.0;
constexpr double kMetricFloor = 1e-12;

// "key: baseline B, now N (tolerance T, ratio R)": R = |N - B| / T for a band around the
// baseline, N / T for an upper bound; R > 1 is what made it a finding.
std::string Finding(const std::string& key, double old_value, double new_value, double tolerance,
                    double ratio) {
  char buffer[240];
  std::snprintf(buffer, sizeof buffer, "%s: baseline %.12g, now %.12g (tolerance %.3g, ratio %.3g)",
                key.c_str(), old_value, new_value, tolerance, ratio);
  return buffer;
}

std::string Band(const std::string& key, double old_value, double new_value, double tolerance) {
  return Finding(key, old_value, new_value, tolerance, std::abs(new_value - old_value) / tolerance);
}

std::string Optional(const std::optional<double>& x) {
  if (!x) return "null";
  char buffer[40];
  std::snprintf(buffer, sizeof buffer, "%.12g", *x);
  return buffer;
}

void CompareMaps(const std::string& prefix, const std::map<std::string, std::string>& b,
                 const std::map<std::string, std::string>& c, std::vector<std::string>& out) {
  for (const auto& [key, value] : b) {
    auto it = c.find(key);
    if (it != c.end() && it->second != value)
      out.push_back(prefix + key + ": baseline " + value + ", now " + it->second);
  }
}

}  // namespace

std::vector<RegressionFinding> CompareWithBaseline(const BaselineValues& b,
                                                   const BaselineValues& c) {
  std::vector<RegressionFinding> out;
  auto add = [&](const std::string& what) { out.push_back({b.file, what}); };
  if (b.status != c.status) {
    add("status: baseline " + b.status + ", now " + c.status);
    return out;
  }
  if (b.final_q.size() != c.final_q.size()) {
    add("final_state.q: size changed");
    return out;
  }
  for (size_t i = 0; i < b.final_q.size(); ++i) {
    const double tolerance = kAbs + kRel * std::abs(b.final_q[i]);
    if (!(std::abs(c.final_q[i] - b.final_q[i]) <= tolerance))
      add(Band("final_state.q[" + std::to_string(i) + "]", b.final_q[i], c.final_q[i], tolerance));
  }
  for (const auto& [name, value] : b.outputs) {
    auto it = c.outputs.find(name);
    const double tolerance = kAbs + kRel * std::abs(value);
    if (it == c.outputs.end())
      add("outputs." + name + ": missing");
    else if (!(std::abs(it->second - value) <= tolerance))
      add(Band("outputs." + name, value, it->second, tolerance));
  }
  const double step_tolerance = kStepFraction * b.steps + 2;
  if (std::abs(static_cast<double>(c.steps - b.steps)) > step_tolerance)
    add(Band("metrics.steps", b.steps, c.steps, step_tolerance));
  auto not_worse = [&](const char* key, const std::optional<double>& old_value,
                       const std::optional<double>& new_value) {
    if (!old_value) return;
    if (!new_value) {
      add(std::string(key) + ": missing");
      return;
    }
    const double bound = kMetricFactor * *old_value + kMetricFloor;
    if (!(*new_value <= bound))
      add(Finding(key, *old_value, *new_value, bound, *new_value / bound));
  };
  not_worse("metrics.error.position_max_rel", b.error_rel, c.error_rel);
  not_worse("metrics.energy.max_abs_drift", b.energy_abs_drift, c.energy_abs_drift);
  not_worse("metrics.constraint_residual.position_max", b.position_residual, c.position_residual);
  not_worse("metrics.constraint_residual.velocity_max", b.velocity_residual, c.velocity_residual);
  return out;
}

std::vector<std::string> ConfigurationDifferences(const BaselineValues& b,
                                                  const BaselineValues& c) {
  std::vector<std::string> out;
  if (b.problem != c.problem)
    out.push_back("problem: baseline " + b.problem + ", now " + c.problem);
  if (b.method != c.method) out.push_back("method: baseline " + b.method + ", now " + c.method);
  CompareMaps("problem.parameters.", b.problem_parameters, c.problem_parameters, out);
  CompareMaps("method.parameters.", b.method_parameters, c.method_parameters, out);
  const std::pair<const char*, std::pair<std::optional<double>, std::optional<double>>> settings[] =
      {{"settings.h", {b.h, c.h}},
       {"settings.rtol", {b.rtol, c.rtol}},
       {"settings.atol", {b.atol, c.atol}},
       {"settings.t_end", {b.t_end, c.t_end}}};
  for (const auto& [key, values] : settings)
    if (values.first != values.second)
      out.push_back(std::string(key) + ": baseline " + Optional(values.first) + ", now " +
                    Optional(values.second));
  return out;
}

std::vector<RegressionFinding> CompareStabilityLimits(const StabilityBaselineValues& b,
                                                      const StabilityBaselineValues& c) {
  std::vector<RegressionFinding> out;
  const double relative = 2.0 * b.relative_precision;
  auto compare = [&](const char* key, const std::optional<double>& old_value,
                     const std::optional<double>& new_value) {
    if (!old_value && !new_value) return;
    if (!old_value || !new_value) {
      out.push_back({b.file, std::string(key) + ": baseline " + Optional(old_value) + ", now " +
                                 Optional(new_value)});
      return;
    }
    const double tolerance = relative * *old_value;
    if (!(std::abs(*new_value - *old_value) <= tolerance))
      out.push_back({b.file, Band(key, *old_value, *new_value, tolerance)});
  };
  compare("h_max_stable", b.h_max_stable, c.h_max_stable);
  compare("h_min_unstable", b.h_min_unstable, c.h_min_unstable);
  return out;
}

std::vector<std::string> StabilityConfigurationDifferences(const StabilityBaselineValues& b,
                                                           const StabilityBaselineValues& c) {
  std::vector<std::string> out;
  if (b.problem != c.problem)
    out.push_back("problem: baseline " + b.problem + ", now " + c.problem);
  if (b.method != c.method) out.push_back("method: baseline " + b.method + ", now " + c.method);
  if (b.criterion != c.criterion)
    out.push_back("criterion: baseline " + b.criterion + ", now " + c.criterion);
  CompareMaps("problem.parameters.", b.problem_parameters, c.problem_parameters, out);
  CompareMaps("method.parameters.", b.method_parameters, c.method_parameters, out);
  const std::pair<const char*, std::pair<double, double>> settings[] = {
      {"settings.t_end", {b.t_end, c.t_end}},
      {"settings.h_min", {b.h_min, c.h_min}},
      {"settings.h_max", {b.h_max, c.h_max}},
      {"settings.relative_precision", {b.relative_precision, c.relative_precision}},
      {"criterion.parameters.factor", {b.factor, c.factor}},
      {"criterion.parameters.bound", {b.bound, c.bound}}};
  for (const auto& [key, values] : settings)
    if (values.first != values.second)
      out.push_back(std::string(key) + ": baseline " + Optional(values.first) + ", now " +
                    Optional(values.second));
  return out;
}

}  // namespace mbb
