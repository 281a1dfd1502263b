#include "harness/report_analysis.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>

#include "methods/common/observed_order.h"
#include "methods/method.h"
#include "problems/core/problem.h"

namespace mbb {

namespace {

const MethodEntry* FindRegistered(const std::string& name) {
  for (const auto& e : MethodRegistry())
    if (e.name == name) return &e;
  return nullptr;
}

std::string Short(double x) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.3g", x);
  return buffer;
}

// Numbers compare as numbers ("1" and "1.0" are the same default).
bool SameSetting(const std::string& value, const std::string& default_value) {
  char* end_a = nullptr;
  char* end_b = nullptr;
  const double a = std::strtod(value.c_str(), &end_a);
  const double b = std::strtod(default_value.c_str(), &end_b);
  return value == default_value || (*end_a == '\0' && *end_b == '\0' && !value.empty() && a == b);
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace

std::string NonDefaultParameters(const std::string& method,
                                 const std::map<std::string, std::string>& parameters) {
  const MethodEntry* entry = FindRegistered(method);
  std::string out;
  for (const auto& [key, value] : parameters) {
    bool is_default = false;
    if (entry != nullptr)
      for (const auto& p : entry->parameters)
        if (p.name == key) is_default = SameSetting(value, p.default_value);
    if (!is_default) out += (out.empty() ? "" : " ") + key + "=" + value;
  }
  return out;
}

std::string NonDefaultProblemParameters(const std::string& problem,
                                        const std::map<std::string, std::string>& parameters) {
  std::string out;
  for (const auto& [key, value] : parameters) {
    bool is_default = false;
    for (const auto& entry : ProblemCatalogue())
      if (entry.id == problem)
        for (const auto& spec : entry.parameters)
          if (spec.name == key) is_default = SameSetting(value, spec.default_value);
    if (!is_default) out += (out.empty() ? "" : " ") + key + "=" + value;
  }
  return out;
}

std::string ConfigurationLabel(const ResultSummary& r) {
  if (!r.configuration_label.empty()) return r.configuration_label;
  const std::string parameters = NonDefaultParameters(r.method, r.method_parameters);
  return parameters.empty() ? r.method : r.method + " " + parameters;
}

namespace {
constexpr const char* kFormulation = "formulation";

std::string ProblemFormulation(const ResultSummary& r) {
  const auto it = r.problem_parameters.find(kFormulation);
  return it == r.problem_parameters.end() ? "" : it->second;
}
}  // namespace

std::vector<ResultSummary> WithProblemLabels(std::vector<ResultSummary> rows) {
  std::map<std::string, std::map<std::string, std::set<std::string>>> values;
  for (const auto& r : rows)
    for (const auto& [k, v] : r.problem_parameters) values[r.problem][k].insert(v);
  for (auto& r : rows) {
    std::string label = r.problem;
    for (const auto& [k, v] : r.problem_parameters)
      if (k != kFormulation && values[r.problem][k].size() > 1) label += " " + k + "=" + v;
    r.problem = label;
  }
  return rows;
}

void LabelConfigurations(std::vector<ResultSummary>& rows) {
  std::map<std::string, std::map<std::string, std::set<std::string>>> values;
  std::map<std::string, std::set<std::string>> formulations;  // per problem
  for (const auto& r : rows) {
    for (const auto& [k, v] : r.method_parameters) values[r.method][k].insert(v);
    formulations[r.problem].insert(ProblemFormulation(r));
  }
  for (auto& r : rows) {
    r.configuration_label.clear();
    const std::string non_default = NonDefaultParameters(r.method, r.method_parameters);
    std::string label = r.method;
    for (const auto& [k, v] : r.method_parameters) {
      const std::string assignment = k + "=" + v;
      const bool shown =
          (" " + non_default + " ").find(" " + assignment + " ") != std::string::npos;
      if (shown || values[r.method][k].size() > 1) label += " " + assignment;
    }
    if (formulations[r.problem].size() > 1 && !ProblemFormulation(r).empty())
      label += " [" + ProblemFormulation(r) + "]";
    r.configuration_label = label;
  }
}

std::string SweptValue(const ResultSummary& r) {
  if (r.h && !r.rtol) return "h=" + Short(*r.h);
  if (r.rtol) return "rtol=" + Short(*r.rtol);
  return "";
}

std::optional<double> FitLogLogSlope(const std::vector<std::pair<double, double>>& points) {
  std::vector<std::pair<double, double>> logs;
  std::set<double> xs;
  for (const auto& [x, y] : points) {
    if (!(x > 0.0) || !(y > 0.0)) return std::nullopt;
    logs.push_back({std::log(x), std::log(y)});
    xs.insert(x);
  }
  if (xs.size() < 2) return std::nullopt;
  double mx = 0.0, my = 0.0;
  for (const auto& [x, y] : logs) mx += x, my += y;
  mx /= logs.size();
  my /= logs.size();
  double sxy = 0.0, sxx = 0.0;
  for (const auto& [x, y] : logs) sxy += (x - mx) * (y - my), sxx += (x - mx) * (x - mx);
  return sxy / sxx;
}

namespace {
// Whether the reference resolves the run's error: scd = min(digits, -log10(error)) (metrics
// observer), so an scd below -log10(error) was capped at the reference's digits and the error
// is below what the reference supports.
bool Resolved(const ResultSummary& r) {
  return !r.scd || *r.scd >= -std::log10(*r.error_rel) - 1e-9;
}

// The order the run's method declares: its `order` parameter where it has one (the ARKODE
// methods' table), otherwise the registry's promise for the default parameters; 0 unknown.
int DeclaredOrder(const ResultSummary& r) {
  const auto order = r.method_parameters.find("order");
  if (order != r.method_parameters.end()) {
    char* end = nullptr;
    const long value = std::strtol(order->second.c_str(), &end, 10);
    if (end != order->second.c_str() && *end == '\0' && value > 0) return static_cast<int>(value);
  }
  const MethodEntry* entry = FindRegistered(r.method);
  return entry != nullptr ? entry->promises.order : 0;
}
}  // namespace

std::vector<OrderFit> FitObservedOrders(const std::vector<ResultSummary>& rows) {
  std::map<std::pair<std::string, std::string>, std::vector<const ResultSummary*>> groups;
  for (const auto& r : rows)
    if (r.status == "ok" && r.h && !r.rtol && r.error_rel && *r.error_rel > 0.0)
      groups[{r.problem, ConfigurationLabel(r)}].push_back(&r);
  std::vector<OrderFit> fits;
  for (const auto& [key, runs] : groups) {
    std::vector<std::pair<double, double>> points, resolved;
    for (const ResultSummary* r : runs) {
      points.push_back({*r->h, *r->error_rel});
      if (Resolved(*r)) resolved.push_back({*r->h, *r->error_rel});
    }
    const auto slope = FitLogLogSlope(points);
    if (!slope) continue;
    OrderFit fit;
    fit.problem = key.first;
    fit.configuration = key.second;
    fit.method = runs.front()->method;
    fit.slope = *slope;
    fit.observed = std::nan("");
    std::sort(resolved.begin(), resolved.end());  // finest h first
    for (size_t k = 0; k + 1 < resolved.size() && std::isnan(fit.observed); ++k) {
      if (resolved[k + 1].first == resolved[k].first) continue;  // the same h twice
      fit.h_fine = resolved[k].first;
      fit.h_coarse = resolved[k + 1].first;
      fit.observed =
          ObservedOrder(resolved[k + 1].second, resolved[k].second, fit.h_coarse, fit.h_fine);
    }
    fit.declared = DeclaredOrder(*runs.front());
    fit.points = static_cast<int>(points.size());
    fit.resolved = static_cast<int>(resolved.size());
    fit.h_min = std::min_element(points.begin(), points.end())->first;
    fit.h_max = std::max_element(points.begin(), points.end())->first;
    fits.push_back(fit);
  }
  return fits;
}

double AgreementTolerance(const ResultSummary& r, double value) {
  const double scale = 100.0 * (1.0 + std::abs(value));
  if (r.rtol) return scale * (*r.rtol + r.atol.value_or(0.0));
  if (r.h) {
    const int declared = DeclaredOrder(r);
    const int p = declared > 0 ? declared : 1;
    return scale * std::pow(*r.h, p);
  }
  return scale * 1e-6;  // neither h nor rtol recorded: a loose default
}

std::vector<AgreementRow> CompareOutputsAcrossMethods(const std::vector<ResultSummary>& rows) {
  std::set<std::string> with_reference;
  for (const auto& r : rows)
    if (r.status == "ok" && r.error_rel) with_reference.insert(r.problem);
  std::map<std::pair<std::string, std::string>, std::vector<const ResultSummary*>> groups;
  for (const auto& r : rows)
    if (r.status == "ok" && !with_reference.count(r.problem))
      for (const auto& [name, value] : r.outputs)
        if (std::isfinite(value)) groups[{r.problem, name}].push_back(&r);
  std::vector<AgreementRow> out;
  for (const auto& [key, runs] : groups) {
    if (runs.size() < 2) continue;
    std::vector<double> values;
    for (const ResultSummary* r : runs) values.push_back(r->outputs.at(key.second));
    AgreementRow row;
    row.problem = key.first;
    row.output = key.second;
    row.runs = static_cast<int>(runs.size());
    row.median = Median(values);
    std::vector<double> tolerances;
    for (const ResultSummary* r : runs) tolerances.push_back(AgreementTolerance(*r, row.median));
    std::vector<int> conflicts(runs.size(), 0);
    for (size_t i = 0; i < runs.size(); ++i)
      for (size_t j = i + 1; j < runs.size(); ++j)
        if (std::abs(values[i] - values[j]) > tolerances[i] + tolerances[j])
          ++conflicts[i], ++conflicts[j];
    size_t outlier = runs.size();
    for (size_t i = 0; i < runs.size(); ++i) {
      const double deviation = std::abs(values[i] - row.median);
      if (deviation >= row.max_deviation) {
        row.max_deviation = deviation;
        row.tolerance = tolerances[i];
        row.farthest = ConfigurationLabel(*runs[i]) + " " + SweptValue(*runs[i]);
      }
      if (conflicts[i] == 0) continue;
      row.disagree = true;
      if (outlier == runs.size() || conflicts[i] > conflicts[outlier] ||
          (conflicts[i] == conflicts[outlier] &&
           deviation > std::abs(values[outlier] - row.median)))
        outlier = i;
    }
    if (outlier < runs.size()) {
      row.outlier = ConfigurationLabel(*runs[outlier]) + " " + SweptValue(*runs[outlier]);
      row.outlier_deviation = std::abs(values[outlier] - row.median);
      row.outlier_tolerance = tolerances[outlier];
      row.outlier_conflicts = conflicts[outlier];
    }
    out.push_back(row);
  }
  return out;
}

}  // namespace mbb
