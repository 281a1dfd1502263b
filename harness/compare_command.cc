// `mbbench compare`: timing by the Mann-Whitney U test of the repeat times, accuracy by the
// error against the reference (harness/compare_command.h has the verdicts and why).
#include "harness/compare_command.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include <CLI/CLI.hpp>

#include "harness/file_names.h"
#include "harness/mann_whitney.h"
#include "harness/report_analysis.h"
#include "problems/core/format.h"
#include "problems/core/parameters.h"

namespace mbb {

namespace {

// What pairs two runs: the problem with its parameters, the method with all its (resolved)
// parameters and, unless ignored, the step and tolerances, to every digit.
std::string RunKey(const ResultSummary& r, bool ignore_settings) {
  std::string key = r.problem;
  for (const auto& [k, v] : r.problem_parameters) key += " " + k + "=" + v;
  key += " | " + r.method;
  for (const auto& [k, v] : r.method_parameters) key += " " + k + "=" + v;
  if (!ignore_settings)
    for (const auto& [name, value] : {std::pair{"h", r.h}, {"rtol", r.rtol}, {"atol", r.atol}})
      key += std::string(" ") + name + "=" + (value ? FormatWith("%.17g", *value) : "-");
  return key;
}

// The problem id, with its parameters only when the id appears with several parameter sets.
std::string ProblemLabel(const ResultSummary& r, bool with_parameters) {
  std::string label = r.problem;
  if (with_parameters)
    for (const auto& [k, v] : r.problem_parameters) label += " " + k + "=" + v;
  return label;
}

// The smallest two-sided p samples of these sizes can give: every value of one below every
// value of the other.
double SmallestP(size_t n_a, size_t n_b) {
  std::vector<double> low(n_a), high(n_b);
  for (size_t i = 0; i < n_a; ++i) low[i] = static_cast<double>(i);
  for (size_t j = 0; j < n_b; ++j) high[j] = static_cast<double>(n_a + j);
  return MannWhitneyU(low, high).p_two_sided;
}

void JudgeTiming(const ResultSummary& a, const ResultSummary& b, double alpha, double min_change,
                 ComparedRun& run) {
  run.repeats_a = static_cast<int>(a.wall_times.size());
  run.repeats_b = static_cast<int>(b.wall_times.size());
  run.median_a = a.wall_median;
  run.median_b = b.wall_median;
  if (a.wall_times.empty() || b.wall_times.empty() || !a.wall_median || !b.wall_median) {
    run.timing = "not timed";
    return;
  }
  const MannWhitneyResult test = MannWhitneyU(b.wall_times, a.wall_times);
  run.p_value = test.p_two_sided;
  if (!(SmallestP(a.wall_times.size(), b.wall_times.size()) < alpha)) {
    run.timing = "too few repeats";
    return;
  }
  const double change = *b.wall_median / *a.wall_median - 1.0;
  if (test.p_two_sided < alpha && std::abs(change) > min_change)
    run.timing = change > 0.0 ? "slower" : "faster";
  else
    run.timing = "no significant change";
}

std::optional<double> ErrorOf(const ResultSummary& r) {
  return r.error_rel ? r.error_rel : r.output_error_rel;
}

void JudgeAccuracy(const ResultSummary& a, const ResultSummary& b, ComparedRun& run) {
  run.error_a = ErrorOf(a);
  run.error_b = ErrorOf(b);
  if (a.status != b.status) {
    run.accuracy = "status " + a.status + " -> " + b.status;
    return;
  }
  if (!run.error_a || !run.error_b) {
    run.accuracy = "no error";
    return;
  }
  const double ea = std::max(*run.error_a, 1e-300), eb = std::max(*run.error_b, 1e-300);
  if (eb > kAccuracyFactor * ea)
    run.accuracy = "less accurate";
  else if (ea > kAccuracyFactor * eb)
    run.accuracy = "more accurate";
  else
    run.accuracy = "same accuracy";
}

ComparedRun Described(const ResultSummary* a, const ResultSummary* b,
                      const std::set<std::string>& varied_problems) {
  const ResultSummary& any = a != nullptr ? *a : *b;
  ComparedRun run;
  run.problem = ProblemLabel(any, varied_problems.count(any.problem) > 0);
  const std::string parameters = NonDefaultParameters(any.method, any.method_parameters);
  run.configuration = any.method + (parameters.empty() ? "" : " " + parameters);
  if (a != nullptr) run.settings_a = SweptValue(*a), run.file_a = a->file;
  if (b != nullptr) run.settings_b = SweptValue(*b), run.file_b = b->file;
  return run;
}

}  // namespace

Comparison CompareResultSets(const std::vector<ResultSummary>& a,
                             const std::vector<ResultSummary>& b, double alpha, double min_change,
                             bool ignore_settings) {
  std::map<std::string, std::vector<const ResultSummary*>> by_key_a, by_key_b;
  for (const auto& r : a) by_key_a[RunKey(r, ignore_settings)].push_back(&r);
  for (const auto& r : b) by_key_b[RunKey(r, ignore_settings)].push_back(&r);
  // Problems that appear with more than one parameter set: their labels name the parameters.
  std::map<std::string, std::set<std::map<std::string, std::string>>> parameter_sets;
  for (const auto* side : {&a, &b})
    for (const auto& r : *side) parameter_sets[r.problem].insert(r.problem_parameters);
  std::set<std::string> varied;
  for (const auto& [problem, sets] : parameter_sets)
    if (sets.size() > 1) varied.insert(problem);
  Comparison out;
  std::vector<ComparedRun> one_sided;
  for (const auto& [key, runs_a] : by_key_a) {
    const auto it = by_key_b.find(key);
    if (it == by_key_b.end()) {
      one_sided.push_back(Described(runs_a.front(), nullptr, varied));
      one_sided.back().timing = "only in A";
      continue;
    }
    if (runs_a.size() > 1 || it->second.size() > 1) {
      out.ambiguous.push_back(key + ": " + std::to_string(runs_a.size()) + " runs in A, " +
                              std::to_string(it->second.size()) + " in B");
      continue;
    }
    ComparedRun run = Described(runs_a.front(), it->second.front(), varied);
    JudgeTiming(*runs_a.front(), *it->second.front(), alpha, min_change, run);
    JudgeAccuracy(*runs_a.front(), *it->second.front(), run);
    out.slower += run.timing == "slower";
    out.faster += run.timing == "faster";
    out.less_accurate += run.accuracy == "less accurate";
    out.status_changed += run.accuracy.rfind("status ", 0) == 0;
    out.runs.push_back(run);
    ++out.paired;
  }
  for (const auto& [key, runs_b] : by_key_b)
    if (!by_key_a.count(key)) {
      one_sided.push_back(Described(nullptr, runs_b.front(), varied));
      one_sided.back().timing = "only in B";
    }
  out.runs.insert(out.runs.end(), one_sided.begin(), one_sided.end());
  return out;
}

CLI::App* AddCompareCommand(CLI::App& app, CompareOptions& o) {
  CLI::App* cmd = app.add_subcommand(
      "compare",
      "compare two result directories run by run: timing (Mann-Whitney U test of the repeat "
      "times) and accuracy (docs/reports.md)");
  cmd->add_option("dir_a", o.dir_a, "the results to compare against (before)")->required();
  cmd->add_option("dir_b", o.dir_b, "the results compared (after)")->required();
  cmd->add_option("--alpha", o.alpha, "significance level of the U test (default 0.05)")
      ->type_name("P");
  cmd->add_option("--min-change", o.min_change,
                  "smallest relative change of the median time called a change (default 0.05)")
      ->type_name("F");
  cmd->add_flag("--ignore-settings", o.ignore_settings,
                "pair runs by problem and method configuration alone, ignoring h, rtol, atol");
  return cmd;
}

namespace {

std::string Cell(const std::optional<double>& x, const char* format) {
  return x ? FormatWith(format, *x) : std::string("-");
}

void PrintComparison(const Comparison& c) {
  size_t wp = 7, wc = 13, ws = 8;
  for (const auto& r : c.runs) {
    wp = std::max(wp, r.problem.size());
    wc = std::max(wc, r.configuration.size());
    ws = std::max(ws, (r.settings_a + " -> " + r.settings_b).size());
  }
  const int p = static_cast<int>(wp), cw = static_cast<int>(wc), s = static_cast<int>(ws);
  std::printf("%-*s %-*s %-*s %11s %11s %8s %7s %-22s %s\n", p, "problem", cw, "configuration", s,
              "settings", "median A[s]", "median B[s]", "change", "p", "timing", "accuracy");
  for (const auto& r : c.runs) {
    const bool both = !r.file_a.empty() && !r.file_b.empty();
    const std::string settings = !both ? r.settings_a + r.settings_b
                                 : r.settings_a == r.settings_b
                                     ? r.settings_a
                                     : r.settings_a + " -> " + r.settings_b;
    std::optional<double> change;
    if (r.median_a && r.median_b && *r.median_a > 0.0) change = *r.median_b / *r.median_a - 1.0;
    std::string accuracy = r.accuracy;
    if (r.error_a && r.error_b)
      accuracy +=
          " (" + FormatWith("%.2e", *r.error_a) + " -> " + FormatWith("%.2e", *r.error_b) + ")";
    std::printf("%-*s %-*s %-*s %11s %11s %8s %7s %-22s %s\n", p, r.problem.c_str(), cw,
                r.configuration.c_str(), s, settings.c_str(), Cell(r.median_a, "%.3g").c_str(),
                Cell(r.median_b, "%.3g").c_str(),
                change ? FormatWith("%+.1f%%", 100.0 * *change).c_str() : "-",
                Cell(r.p_value, "%.3f").c_str(), r.timing.c_str(), accuracy.c_str());
  }
  for (const auto& a : c.ambiguous)
    std::printf("not compared (ambiguous; --ignore-settings pairs by configuration): %s\n",
                a.c_str());
}

}  // namespace

int RunCompare(const CompareOptions& o) {
  const double alpha = ParseNumber(o.alpha, "--alpha");
  if (!(alpha > 0.0 && alpha < 1.0)) throw InputError("--alpha " + o.alpha + ": must be in (0, 1)");
  const double min_change = ParseNumber(o.min_change, "--min-change");
  if (!(min_change >= 0.0) || !std::isfinite(min_change))
    throw InputError("--min-change " + o.min_change + ": must be a finite number >= 0");
  RequireDirectory(o.dir_a, "compare:");
  RequireDirectory(o.dir_b, "compare:");
  std::vector<UnreadableResult> unreadable;
  const auto a = ReadResultSummaries(o.dir_a, &unreadable);
  const auto b = ReadResultSummaries(o.dir_b, &unreadable);
  for (const auto& u : unreadable)
    std::fprintf(stderr, "mbbench: error: unreadable result %s: %s\n", u.file.c_str(),
                 u.reason.c_str());
  const Comparison c = CompareResultSets(a, b, alpha, min_change, o.ignore_settings);
  PrintComparison(c);
  std::vector<std::string> slower;
  for (const auto& r : c.runs)
    if (r.timing == "slower") slower.push_back(r.problem + " " + r.configuration);
  if (c.paired == 0)
    std::printf(
        "timing: no run is in both directories (--ignore-settings pairs runs at "
        "different h, rtol, atol)\n");
  else if (c.slower == 0 && c.faster == 0)
    std::printf("timing: no significant change (alpha %g, min change %g)\n", alpha, min_change);
  else
    std::printf("timing: %d slower, %d faster (alpha %g, min change %g)\n", c.slower, c.faster,
                alpha, min_change);
  for (const auto& s : slower) std::printf("  slower: %s\n", s.c_str());
  std::printf("accuracy: %d less accurate, %d changed status\n", c.less_accurate, c.status_changed);
  const bool worse = c.paired == 0 || c.slower > 0 || c.less_accurate > 0 || c.status_changed > 0;
  return worse || !unreadable.empty() ? 1 : 0;
}

}  // namespace mbb
