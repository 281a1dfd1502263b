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

std::string Pair(const std::string& key, double old_value, double new_value) {
  char buffer[160];
  std::snprintf(buffer, sizeof buffer, "%s: baseline %.12g, now %.12g", key.c_str(), old_value,
                new_value);
  return buffer;
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
  for (size_t i = 0; i < b.final_q.size(); ++i)
    if (!(std::abs(c.final_q[i] - b.final_q[i]) <= kAbs + kRel * std::abs(b.final_q[i])))
      add(Pair("final_state.q[" + std::to_string(i) + "]", b.final_q[i], c.final_q[i]));
  for (const auto& [name, value] : b.outputs) {
    auto it = c.outputs.find(name);
    if (it == c.outputs.end())
      add("outputs." + name + ": missing");
    else if (!(std::abs(it->second - value) <= kAbs + kRel * std::abs(value)))
      add(Pair("outputs." + name, value, it->second));
  }
  if (std::abs(static_cast<double>(c.steps - b.steps)) > kStepFraction * b.steps + 2)
    add(Pair("metrics.steps", b.steps, c.steps));
  auto not_worse = [&](const char* key, const std::optional<double>& old_value,
                       const std::optional<double>& new_value) {
    if (!old_value) return;
    if (!new_value) {
      add(std::string(key) + ": missing");
      return;
    }
    if (!(*new_value <= kMetricFactor * *old_value + kMetricFloor))
      add(Pair(key, *old_value, *new_value));
  };
  not_worse("metrics.error.position_max_rel", b.error_rel, c.error_rel);
  not_worse("metrics.energy.max_abs_drift", b.energy_abs_drift, c.energy_abs_drift);
  not_worse("metrics.constraint_residual.position_max", b.position_residual, c.position_residual);
  not_worse("metrics.constraint_residual.velocity_max", b.velocity_residual, c.velocity_residual);
  return out;
}

}  // namespace mbb
