#include "harness/fastest.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <utility>

#include "harness/file_names.h"
#include "harness/json_io.h"

namespace mbb {
namespace {

using Json = nlohmann::ordered_json;

// Coarsest settings of the search and their refinement factors: h from 1/20 of the horizon
// halved per trial; rtol from 1e-1 (looser says nothing about accuracy) down by decades to
// 1e-14 (near round-off for double-precision Runge-Kutta, where a tighter rtol buys nothing).
constexpr double kFirstStepFraction = 1.0 / 20.0;
constexpr double kStepFactor = 2.0;
constexpr double kFirstRtol = 1e-1;
constexpr double kRtolFactor = 10.0;
constexpr double kSmallestRtol = 1e-14;

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

std::string Format(const char* format, double x) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, format, x);
  return buffer;
}

std::vector<FastestCriterion> ParseCriteria(const std::vector<std::string>& texts) {
  std::vector<FastestCriterion> criteria;
  for (const std::string& text : texts) {
    const auto eq = text.find('=');
    if (eq == std::string::npos)
      throw InputError("--criterion '" + text + "': expected NAME=BOUND (e.g. energy_drift=1e-3)");
    FastestCriterion c{text.substr(0, eq), 0.0};
    if (FastestCriterionNames().count(c.name) == 0) {
      std::string known;
      for (const auto& [name, what] : FastestCriterionNames()) known += " " + name;
      throw InputError("--criterion '" + text + "': unknown criterion '" + c.name +
                       "'; known:" + known);
    }
    c.bound = ParseNumber(text.substr(eq + 1), "--criterion " + c.name);
    if (!(c.bound > 0.0)) throw InputError("--criterion '" + text + "': the bound must be > 0");
    for (const auto& other : criteria)
      if (other.name == c.name) throw InputError("--criterion " + c.name + " given twice");
    criteria.push_back(c);
  }
  if (criteria.empty())
    throw InputError(
        "fastest: needs at least one --criterion NAME=BOUND (known: energy_drift, "
        "output_error, position_error, constraint_residual)");
  return criteria;
}

// One run of the search: the spec with the knob set, no timing repeats; a run of more than
// `step_cap` steps (0: no cap) stops there, failed.
FastestTrial RunTrial(const FastestSearch& search, const std::string& method,
                      const std::string& knob, double setting, std::string& missing,
                      long step_cap = 0) {
  RunSpec spec = search.base;
  spec.method = method;
  spec.repeats = 0;
  if (step_cap > 0) spec.settings.max_steps = step_cap;
  if (knob == "h") spec.settings.h = setting;
  if (knob == "rtol") {
    spec.settings.rtol = setting;
    spec.settings.atol = setting * search.atol_ratio;
  }
  FastestTrial trial{setting, RunStatus::kFailed, false, 0, {}, "", knob};
  RunRecord r;
  try {
    r = Execute(spec);
  } catch (const InputError& e) {  // e.g. more fixed steps than the suite allows
    trial.note = e.what();
    return trial;
  }
  trial.status = r.status;
  trial.steps = r.counters.steps;
  if (r.status != RunStatus::kOk) {
    trial.note = std::string(ToString(r.status)) + (r.message.empty() ? "" : ": " + r.message);
    return trial;
  }
  trial.passed = true;
  for (const FastestCriterion& c : search.criteria) {
    std::string why;
    const std::optional<double> value = CriterionValue(r, c.name, why);
    if (!value) {
      missing = c.name + ": " + why;
      trial.passed = false;
      trial.note = missing;
      return trial;
    }
    trial.values[c.name] = *value;
    if (!(*value <= c.bound)) {
      if (trial.passed)
        trial.note = c.name + " " + Format("%.3g", *value) + " > " + Format("%.3g", c.bound);
      trial.passed = false;
    }
  }
  return trial;
}

// The knobs a method's cheapness is searched over with its parameters: rtol where it has an
// adaptive mode, h where a given h is its fixed step, both for a method that has both modes
// (odeint-dopri5, the Simbody peer, arkode: a fixed step can be the cheaper way to pass,
// e.g. where error control switches branches at a singular position); "" for neither.
std::vector<std::string> KnobsOf(const MethodEntry& entry, const ParameterSet& parameters) {
  std::vector<std::string> knobs;
  if (ReadSettings(entry, parameters, /*h_given=*/false).tolerances) knobs.push_back("rtol");
  const SettingsRead with_h = ReadSettings(entry, parameters, /*h_given=*/true);
  if (with_h.h && !with_h.tolerances) knobs.push_back("h");
  if (knobs.empty()) knobs.push_back("");
  return knobs;
}

// Why no trial passed: the range tried, the trial closest to passing (smallest largest
// ratio of a metric to its bound among the runs that finished) and the last trial's note.
std::string NoPassReason(const FastestResult& result, const FastestSearch& search,
                         bool budget_spent) {
  const FastestTrial& last = result.trials.back();
  if (result.knob.empty()) return "fails with its own settings: " + last.note;
  std::string reason = "no " + result.knob + " from " +
                       Format("%.3g", result.trials.front().setting) + " down to " +
                       Format("%.3g", last.setting) + " passes";
  if (budget_spent) reason += " (search budget spent)";
  const FastestTrial* closest = nullptr;
  double closest_ratio = 0.0;
  for (const FastestTrial& t : result.trials) {
    if (t.status != RunStatus::kOk || t.values.empty()) continue;
    double ratio = 0.0;
    for (const FastestCriterion& c : search.criteria)
      ratio = std::max(ratio, t.values.at(c.name) / c.bound);
    if (!closest || ratio < closest_ratio) closest = &t, closest_ratio = ratio;
  }
  if (closest)
    reason +=
        "; closest: " + result.knob + "=" + Format("%.3g", closest->setting) + ", " + closest->note;
  reason += "; last: " + last.note.substr(0, last.note.find('\n'));
  return reason;
}

}  // namespace

const std::map<std::string, std::string>& FastestCriterionNames() {
  static const std::map<std::string, std::string> names = {
      {"energy_drift", "max |E - E0 - W_ext| over the run, J (metrics.energy.max_abs_drift)"},
      {"output_error", "max abs error of the named outputs against the reference at its samples"},
      {"position_error", "max abs error of q against the reference at its samples"},
      {"constraint_residual", "max |Phi|_inf over the run"},
  };
  return names;
}

std::optional<double> CriterionValue(const RunRecord& r, const std::string& name,
                                     std::string& why) {
  if (name == "energy_drift") return r.metrics.energy_max_abs_drift;
  if (name == "constraint_residual") return r.metrics.position_residual_max;
  if (!r.metrics.error) {
    why = "the problem has no reference to compare with";
    return std::nullopt;
  }
  if (name == "position_error") return r.metrics.error->position_max_abs;
  if (name == "output_error") {
    if (!r.metrics.error->output_max_abs) {
      why = "the reference has no values of the problem's outputs";
      return std::nullopt;
    }
    return *r.metrics.error->output_max_abs;
  }
  why = "unknown criterion";
  return std::nullopt;
}

namespace {

// What bounds the cost of a knob's trials: the fewest steps of a passing configuration
// found so far (this knob's, or an earlier knob's of the same method). A trial needing more
// than kStepSlack times that cannot be the cheaper one: the suite's per-step costs of one
// method's modes differ by less (the same stages; the adaptive step adds an error norm).
constexpr double kStepSlack = 2.0;
// The bisection stops once a setting between the bracket's ends could save at most this
// fraction of the passing setting's steps: below the spread of the timed repeats.
constexpr double kBracketPrecision = 0.05;

struct KnobSearch {
  const FastestSearch& search;
  const std::string& method;
  FastestResult& result;
  std::chrono::steady_clock::time_point start;
  double span;                      // t_end - t0, s
  std::optional<long> bound_steps;  // the fewest steps of a passing configuration so far
  std::string missing;              // a criterion the problem cannot evaluate

  bool BudgetSpent() const { return Seconds(start) > search.budget_s; }
  // The step cap of a trial (0: none): beyond it the trial cannot be the cheaper one.
  long StepCap() const {
    return bound_steps ? static_cast<long>(std::ceil(kStepSlack * *bound_steps)) : 0;
  }
  // A fixed step's count, known before the run (FixedStepCount); 0 for rtol (unknown).
  long PredictedSteps(double setting) const {
    return result.knob == "h" ? static_cast<long>(std::ceil(span / setting - 1e-9)) : 0;
  }
  const FastestTrial& Run(double setting) {
    result.trials.push_back(RunTrial(search, method, result.knob, setting, missing, StepCap()));
    const FastestTrial& t = result.trials.back();
    if (t.passed && (!bound_steps || t.steps < *bound_steps)) bound_steps = t.steps;
    return t;
  }
  // True (with the reason) when every setting finer than `setting` needs more steps than
  // the cap: known before the run for h, from the last trial for rtol (steps grow as it
  // tightens).
  bool BeyondCap(double finer, const FastestTrial* last) {
    const long cap = StepCap();
    if (cap == 0) return false;
    // h: the count known before the run; rtol: the last trial reached the cap.
    if (result.knob == "h" ? PredictedSteps(finer) <= cap : !(last && last->steps >= cap))
      return false;
    const std::string tried =
        last ? "no " + result.knob + " down to " + Format("%.3g", last->setting) + " passes, and "
             : "";
    result.reason = tried + result.knob + " = " + Format("%.3g", finer) + " needs more than " +
                    std::to_string(cap) + " steps (" + Format("%g", kStepSlack) + " x the " +
                    std::to_string(*bound_steps) +
                    " of the cheapest passing configuration so far): it cannot be the cheaper";
    return true;
  }
  // The bracket is fine enough: a setting inside it saves at most kBracketPrecision of the
  // passing setting's steps (for rtol, the steps the two ends' trials took).
  bool BracketClosed(double failing, long failing_steps, double passing, long passing_steps) {
    if (result.knob == "h") {
      failing_steps = PredictedSteps(failing);
      passing_steps = PredictedSteps(passing);
    }
    if (failing_steps <= 0) return false;  // the failing end stopped early: steps unknown
    return passing_steps - failing_steps <= kBracketPrecision * passing_steps;
  }
};

// Refines from the coarsest setting until every criterion passes (cheap trials first: a
// coarse setting takes few steps, and one that fails often fails early); stops on a trial
// that cannot pass (not applicable, an unevaluable criterion), at the finest setting,
// where finer settings exceed the step cap, or on the budget. Returns the passing setting.
std::optional<double> Refine(KnobSearch& k, std::optional<double>& failing, long& failing_steps) {
  FastestResult& result = k.result;
  const bool h = result.knob == "h";
  const double first = h ? k.span * kFirstStepFraction : kFirstRtol;
  const double factor = h ? kStepFactor : kRtolFactor;
  const double finest = h ? k.span / static_cast<double>(k.search.max_steps) : kSmallestRtol;
  double setting = first;
  for (int n = 1;; ++n) {
    if (n == 1 && k.BeyondCap(setting, nullptr)) return std::nullopt;
    const FastestTrial& t = k.Run(setting);
    if (t.status == RunStatus::kNotApplicable || !k.missing.empty()) {
      result.reason = t.status == RunStatus::kNotApplicable ? t.note : "criterion " + k.missing;
      return std::nullopt;
    }
    if (t.passed) return setting;
    failing = setting;
    failing_steps = t.status == RunStatus::kOk ? t.steps : 0;
    if (result.knob.empty()) break;  // nothing to refine
    // Not repeated division: 1e-6, not 1.0000000000000002e-06.
    double next = first / std::pow(factor, n);
    // The step cap falls between this h and the next: the finest h within it is the last
    // one worth a trial (a passing h may lie between, e.g. at 164 steps of a cap of 240).
    const long cap = k.StepCap();
    if (h && cap > 0 && k.PredictedSteps(next) > cap && k.PredictedSteps(setting) < cap)
      next = k.span / static_cast<double>(cap);
    if (next < finest * (1.0 - 1e-12)) break;
    if (k.BeyondCap(next, &t)) return std::nullopt;
    if (k.BudgetSpent()) {
      result.budget_spent = true;
      break;
    }
    setting = next;
  }
  if (result.reason.empty()) result.reason = NoPassReason(result, k.search, result.budget_spent);
  return std::nullopt;
}

// Geometric bisection between the last failing and the first passing setting, until the
// bracket is closed (BracketClosed), after --bisections trials, or on the budget.
void Bisect(KnobSearch& k, double& passing, std::optional<double>& failing, long failing_steps) {
  long passing_steps = k.result.trials.back().steps;
  for (int n = 0; failing && n < k.search.bisections; ++n) {
    if (k.BracketClosed(*failing, failing_steps, passing, passing_steps)) return;
    if (k.BudgetSpent()) {
      k.result.budget_spent = true;
      k.result.reason = "search budget of " + Format("%g", k.search.budget_s) + " s spent after " +
                        std::to_string(k.result.trials.size()) + " trials: a setting between " +
                        k.result.knob + " = " + Format("%.4g", *failing) + " (fails) and " +
                        Format("%.4g", passing) + " (passes) may be cheaper";
      return;
    }
    const double middle = std::sqrt(*failing * passing);
    const FastestTrial& t = k.Run(middle);
    if (t.passed) {
      passing = middle;
      passing_steps = t.steps;
    } else {
      failing = middle;
      failing_steps = t.status == RunStatus::kOk ? t.steps : 0;
    }
  }
}

// The search over one knob (h or rtol) of SearchFastest; `bound_steps`: the fewest steps of
// a passing configuration of an earlier knob of the method, if any.
FastestResult SearchKnob(const FastestSearch& search, const std::string& method,
                         const std::string& knob, const ResolvedRun& resolved,
                         std::optional<long> bound_steps) {
  FastestResult result;
  result.method = method;
  result.knob = knob;
  KnobSearch k{search,
               method,
               result,
               std::chrono::steady_clock::now(),
               resolved.settings.t_end - resolved.settings.t0,
               bound_steps,
               ""};
  std::optional<double> failing;
  long failing_steps = 0;
  const std::optional<double> found = Refine(k, failing, failing_steps);
  if (!found) return result;
  double passing = *found;
  Bisect(k, passing, failing, failing_steps);
  result.bracketed = failing.has_value();

  // Time the cheapest passing configuration.
  RunSpec timed = search.base;
  timed.method = method;
  timed.repeats = search.repeats;
  if (result.knob == "h") timed.settings.h = passing;
  if (result.knob == "rtol") {
    timed.settings.rtol = passing;
    timed.settings.atol = passing * search.atol_ratio;
    result.atol = passing * search.atol_ratio;
  }
  const RunRecord r = Execute(timed);
  result.passed = r.status == RunStatus::kOk;
  if (!result.knob.empty()) result.setting = passing;
  result.steps = r.counters.steps;
  result.time = r.wall_time;
  for (const FastestCriterion& c : search.criteria) {
    std::string why;
    const std::optional<double> value = CriterionValue(r, c.name, why);
    if (!value) continue;
    result.values[c.name] = *value;
    result.margins[c.name] = c.bound / *value;
    if (!(*value <= c.bound)) result.passed = false;
  }
  if (!result.passed) result.reason = "the timed rerun did not pass (" + r.message + ")";
  return result;
}
}  // namespace

FastestResult SearchFastest(const FastestSearch& search, const std::string& method) {
  RunSpec probe = search.base;
  probe.method = method;
  const ResolvedRun resolved = ResolveRun(probe);  // bad input throws here
  std::vector<FastestResult> by_knob;
  std::optional<long> bound_steps;  // the fewest steps of a passing knob so far
  for (const std::string& knob : KnobsOf(*resolved.entry, resolved.method_parameters)) {
    by_knob.push_back(SearchKnob(search, method, knob, resolved, bound_steps));
    for (const FastestTrial& t : by_knob.back().trials)
      if (t.passed && (!bound_steps || t.steps < *bound_steps)) bound_steps = t.steps;
    // Not applicable is the problem's verdict on the method, whatever the knob.
    const auto& trials = by_knob.back().trials;
    if (!trials.empty() && trials.front().status == RunStatus::kNotApplicable) break;
  }
  // The faster passing knob; if none passes, the first (the method's usual mode).
  size_t best = 0;
  for (size_t k = 1; k < by_knob.size(); ++k) {
    const FastestResult &a = by_knob[k], &b = by_knob[best];
    if (a.passed && (!b.passed || (a.time && b.time && a.time->median < b.time->median))) best = k;
  }
  FastestResult result = by_knob[best];
  for (size_t k = 0; k < by_knob.size(); ++k) {
    if (k == best) continue;
    FastestAlternative other;
    other.knob = by_knob[k].knob;
    other.passed = by_knob[k].passed;
    other.setting = by_knob[k].setting;
    other.steps = by_knob[k].steps;
    other.time = by_knob[k].time;
    other.reason = by_knob[k].reason;
    result.alternatives.push_back(other);
    if (!result.passed) result.reason += "; with " + other.knob + ": " + other.reason;
    result.trials.insert(result.trials.end(), by_knob[k].trials.begin(), by_knob[k].trials.end());
  }
  return result;
}

CLI::App* AddFastestCommand(CLI::App& app, FastestOptions& o) {
  CLI::App* cmd = app.add_subcommand("fastest",
                                     "per method, the cheapest step size or tolerance meeting "
                                     "accuracy criteria (docs/fastest.md)");
  AddProblemOptions(cmd, o);
  cmd->add_option("-m,--method", o.methods, "method to search (repeatable; default: every method)")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  cmd->add_option("--criterion", o.criteria,
                  "NAME=BOUND, repeatable: energy_drift, output_error, position_error, "
                  "constraint_residual")
      ->type_name("NAME=BOUND")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  cmd->add_option("--set", o.sets, "method parameter key=value, kept in every trial (repeatable)")
      ->type_name("K=V")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  cmd->add_option("--repeats", o.repeats, "timed repeats of each passing configuration (default 3)")
      ->type_name("K");
  cmd->add_option("--max-steps", o.max_steps,
                  "smallest h tried is the horizon over this (default 200000)")
      ->type_name("N");
  cmd->add_option("--bisections", o.bisections,
                  "geometric bisections after the bracket (default 5)")
      ->type_name("N");
  cmd->add_option("--budget", o.budget,
                  "seconds of search per method before giving up (default 30)")
      ->type_name("S");
  cmd->add_option("--out", o.out, "result directory (default results/fastest)");
  return cmd;
}

namespace {

Json TrialJson(const FastestTrial& t) {
  Json j;
  j["knob"] = t.knob;
  j["setting"] = t.setting;
  j["status"] = ToString(t.status);
  j["passed"] = t.passed;
  j["steps"] = t.steps;
  j["values"] = t.values;
  j["note"] = t.note;
  return j;
}

Json ResultJson(const FastestResult& r) {
  Json j;
  j["method"] = r.method;
  j["passed"] = r.passed;
  j["knob"] = r.knob;
  j["bracketed"] = r.bracketed;
  j["setting"] = r.setting ? Json(*r.setting) : Json(nullptr);
  j["atol"] = r.atol ? Json(*r.atol) : Json(nullptr);
  j["steps"] = r.steps;
  if (r.time) {
    j["wall_time_s"] = {{"median", r.time->median},
                        {"min", r.time->min},
                        {"max", r.time->max},
                        {"repeats", r.time->repeats}};
  } else {
    j["wall_time_s"] = nullptr;
  }
  j["values"] = r.values;
  j["margins"] = r.margins;
  j["reason"] = r.reason;
  j["budget_spent"] = r.budget_spent;
  Json alternatives = Json::array();
  for (const auto& a : r.alternatives)
    alternatives.push_back({{"knob", a.knob},
                            {"passed", a.passed},
                            {"setting", a.setting ? Json(*a.setting) : Json(nullptr)},
                            {"steps", a.steps},
                            {"median_s", a.time ? Json(a.time->median) : Json(nullptr)},
                            {"reason", a.reason}});
  j["alternatives"] = alternatives;
  Json trials = Json::array();
  for (const auto& t : r.trials) trials.push_back(TrialJson(t));
  j["trials"] = trials;
  return j;
}

}  // namespace

int CmdFastest(const FastestOptions& o) {
  FastestSearch search;
  if (o.problem.empty() == o.model.empty())
    throw InputError("fastest: give either -p PROBLEM or --model FILE");
  ApplyProblemOptions(o, search.base);
  for (const auto& a : o.sets) {
    ParameterSet assignment;
    assignment.SetFromAssignment(a, "--set");
    search.base.SetFromText(assignment, "--set");
    const RunControls& given = search.base.settings;
    using Given = std::pair<const char*, std::optional<double>>;
    for (const Given& g :
         {Given{"h", given.h}, Given{"rtol", given.rtol}, Given{"atol", given.atol}})
      if (g.second)
        throw InputError(std::string("fastest: --set ") + g.first +
                         " is what the search chooses; give method parameters only");
  }
  search.criteria = ParseCriteria(o.criteria);
  if (!o.repeats.empty()) search.repeats = Count(o.repeats, "--repeats", 1, 1000);
  if (!o.max_steps.empty())
    // Above a run's own max_steps every trial would be refused (ResolveRun).
    search.max_steps = Count(o.max_steps, "--max-steps", 10, RunSettings{}.max_steps);
  if (!o.bisections.empty()) search.bisections = Count(o.bisections, "--bisections", 0, 50);
  if (!o.budget.empty()) {
    search.budget_s = ParseNumber(o.budget, "--budget");
    if (!(search.budget_s > 0.0)) throw InputError("--budget = " + o.budget + ": must be > 0");
  }
  std::vector<std::string> methods = o.methods;
  if (methods.empty())
    for (const auto& e : MethodRegistry()) methods.push_back(e.name);
  for (const auto& m : methods) FindMethod(m);  // unknown names are bad input before any run

  const Problem problem = BuildSpecProblem(search.base);
  const std::string out = o.out.empty() ? "results/fastest" : o.out;
  RequireSafeName(problem.id, "result file name");
  PrepareOutputDirectory(out);  // before the search: a bad --out is bad input found at once
  const std::string path = out + "/fastest_" + problem.id + ".json";
  RequireWritableFile(path, "--out");

  std::vector<FastestResult> results;
  for (const auto& m : methods) {
    std::fprintf(stderr, "  %s: searching\n", m.c_str());
    results.push_back(SearchFastest(search, m));
  }
  // Fastest first; those that cannot pass after them, in the order given.
  std::stable_sort(results.begin(), results.end(), [](const auto& a, const auto& b) {
    if (a.passed != b.passed) return a.passed;
    return a.passed && a.time && b.time && a.time->median < b.time->median;
  });

  std::printf("%s, %g s:", problem.id.c_str(),
              search.base.t_end > 0.0 ? search.base.t_end : problem.t_end);
  for (const auto& c : search.criteria) std::printf(" %s <= %g", c.name.c_str(), c.bound);
  std::printf("\n%-22s %-22s %8s %12s", "method", "cheapest setting", "steps", "median[s]");
  for (const auto& c : search.criteria) std::printf(" %22s", (c.name + " (margin)").c_str());
  std::printf("\n");
  for (const auto& r : results) {
    if (!r.passed) continue;
    std::string setting = r.knob.empty() ? "(its own)" : r.knob + "=" + Format("%.4g", *r.setting);
    if (!r.knob.empty() && !r.bracketed) setting += " (coarsest)";
    std::printf("%-22s %-22s %8ld %12.4g", r.method.c_str(), setting.c_str(), r.steps,
                r.time ? r.time->median : 0.0);
    for (const auto& c : search.criteria) {
      const auto v = r.values.find(c.name);
      const std::string cell =
          v == r.values.end()
              ? "-"
              : Format("%.2e", v->second) + " (" + Format("%.3g", r.margins.at(c.name)) + "x)";
      std::printf(" %22s", cell.c_str());
    }
    std::printf("\n");
  }
  for (const auto& r : results)
    if (r.passed && r.budget_spent)
      std::printf("%-22s note: %s\n", r.method.c_str(), r.reason.c_str());
  for (const auto& r : results)
    if (!r.passed) std::printf("%-22s cannot pass: %s\n", r.method.c_str(), r.reason.c_str());

  Json j;
  j["schema"] = "mbbench.fastest/1";
  j["problem"] = {{"id", problem.id}, {"parameters", problem.parameters}};
  j["t_end"] = search.base.t_end > 0.0 ? search.base.t_end : problem.t_end;
  Json criteria = Json::object();
  for (const auto& c : search.criteria) criteria[c.name] = c.bound;
  j["criteria"] = criteria;
  j["search"] = {{"repeats", search.repeats},
                 {"max_steps", search.max_steps},
                 {"bisections", search.bisections},
                 {"budget_s", search.budget_s},
                 {"atol_ratio", search.atol_ratio}};
  j["fastest"] =
      !results.empty() && results.front().passed ? Json(results.front().method) : Json(nullptr);
  Json list = Json::array();
  for (const auto& r : results) list.push_back(ResultJson(r));
  j["methods"] = list;
  WriteFileAtomically(path, j.dump(1) + "\n");
  std::printf("result: %s\n", path.c_str());
  return !results.empty() && results.front().passed ? 0 : 1;
}

}  // namespace mbb
