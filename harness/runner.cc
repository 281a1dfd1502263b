#include "harness/runner.h"

#include "harness/context.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>

#include "harness/failure_class.h"
#include "harness/metrics_observer.h"
#include "harness/model_file.h"
#include "harness/reference_store.h"
#include "methods/common/acceleration_solver.h"
#include "problems/core/format.h"
#include "problems/core/sparse_constraint_system.h"
#include "problems/model/model_structure.h"

namespace mbb {

namespace {

// Forwards to the metrics observer and prints "t = ... of t_end" to stderr every two
// seconds, so a long run shows it is alive (checked every 64 steps: no clock in tight loops).
class ProgressObserver final : public StepObserver {
 public:
  ProgressObserver(StepObserver& inner, std::string label, double t_end)
      : inner_(inner),
        label_(std::move(label)),
        t_end_(t_end),
        last_(std::chrono::steady_clock::now()) {}
  void OnStep(const StepSample& s) override {
    inner_.OnStep(s);
    if ((++steps_ & 63) != 0) return;
    const auto now = std::chrono::steady_clock::now();
    if (now - last_ < std::chrono::seconds(2)) return;
    last_ = now;
    std::fprintf(stderr, "  %s: t = %.6g of %.6g (%.0f %%), %ld steps\n", label_.c_str(), s.t,
                 t_end_, 100.0 * s.t / t_end_, steps_);
  }
  bool StopRequested() const override { return inner_.StopRequested(); }
  std::string StopReason() const override { return inner_.StopReason(); }

 private:
  StepObserver& inner_;
  std::string label_;
  double t_end_;
  std::chrono::steady_clock::time_point last_;
  long steps_ = 0;
};

// CPU time of the calling thread, s: what a run has cost, whatever else the machine runs.
double ThreadCpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// Forwards to the metrics observer and asks the method to stop once the run has taken
// `limit_s` of CPU time in its thread (the method, its library and the observers run there):
// on wall-clock time the `--all-methods` grid turned 17 cells `failed` at load 0.2 and 44 at
// load 8-10. Every method's accepted steps reach an observer (through RunLoop,
// methods/common/run_loop.h), so this is where one limit covers them all; the clock is read
// every 16 steps only. A method ends a stopped run `unstable`;
// Execute turns a stop of this observer into `failed` (a slow run is not an unstable one).
class TimeLimitObserver final : public StepObserver {
 public:
  TimeLimitObserver(StepObserver& inner, double limit_s)
      : inner_(inner), limit_s_(limit_s), start_(ThreadCpuSeconds()) {}
  void OnStep(const StepSample& s) override {
    inner_.OnStep(s);
    if (limit_s_ <= 0.0 || reached_ || (++steps_ & 15) != 0) return;
    if (ThreadCpuSeconds() - start_ < limit_s_) return;
    reached_ = true;
    reason_ = "time limit of " + FormatNumber(limit_s_) + " s reached at t = " + FormatNumber(s.t) +
              " (CPU time of the run's thread)";
  }
  bool StopRequested() const override { return reached_ || inner_.StopRequested(); }
  std::string StopReason() const override { return reached_ ? reason_ : inner_.StopReason(); }
  bool reached() const { return reached_; }
  const std::string& reason() const { return reason_; }

 private:
  StepObserver& inner_;
  double limit_s_;
  double start_;  // ThreadCpuSeconds at the start
  long steps_ = 0;
  bool reached_ = false;
  std::string reason_;
};

// A setting the method does not read is refused (a run at the default step recorded beside
// a tolerance it never used misleads whoever reads the result), or with --allow-unused
// kept as a warning. h counts as used by every method that reads a step (an adaptive one
// takes it as the first step); rtol / atol by adaptive methods when no fixed h is given.
void CheckSettingsUsed(const RunSpec& spec, const MethodEntry& entry,
                       const ParameterSet& method_parameters, std::vector<std::string>& warnings) {
  const RunControls& given = spec.settings;
  const SettingsRead read = ReadSettings(entry, method_parameters, given.h.has_value());
  std::string unused;
  if (given.h && !read.h) unused += " h";
  if (given.rtol && !read.tolerances) unused += " rtol";
  if (given.atol && !read.tolerances) unused += " atol";
  if (unused.empty()) return;
  const bool fixed_h_chosen = read.h && ReadSettings(entry, method_parameters, false).tolerances;
  const std::string what = "method " + entry.name + " does not use the setting(s)" + unused +
                           (fixed_h_chosen ? " (a fixed h turns its tolerances off)" : "");
  if (!spec.allow_unused) throw InputError(what + "; drop them or pass --allow-unused");
  warnings.push_back(what + ": ignored (--allow-unused)");
}

int ConstraintRank(const Problem& problem) {
  if (problem.m() == 0) return 0;
  auto ws = problem.dae->MakeWorkspace();
  return ConstraintRankAt(*problem.dae, *ws, problem.t0, problem.q0);
}
}  // namespace

Problem BuildSpecProblem(const RunSpec& spec) {
  if (!spec.model_file.empty()) return LoadModelProblem(spec.model_file, spec.problem_parameters);
  return BuildProblem(spec.problem, spec.problem_parameters);
}

namespace {
ParameterSet WithPreferredProblemParameters(const RunSpec& spec, const MethodEntry& method) {
  ParameterSet params = spec.problem_parameters;
  if (method.preferred_problem_parameters.empty()) return params;
  // A model file offers `formulation` (the choices its dimension allows), a catalogue
  // entry its declared parameters.
  const std::vector<ParameterSpec> offered =
      spec.model_file.empty() ? FindProblem(spec.problem).parameters
                              : ModelFileParameters(ReadModelFile(spec.model_file));
  for (const auto& [key, value] : method.preferred_problem_parameters) {
    if (params.Has(key)) continue;  // pinned by the user: CheckApplicable judges it
    for (const ParameterSpec& p : offered)
      if (p.name == key && std::count(p.choices.begin(), p.choices.end(), value) > 0)
        params.Set(key, value);
  }
  return params;
}
}  // namespace

namespace {
// A fixed-step run takes N = ceil((t_end - t0) / h) steps (FixedStepCount); a count below 1,
// not finite or above max_steps is bad input, named with h, t_end and the count.
void CheckFixedStepCount(const ResolvedRun& run) {
  const RunSettings& st = run.settings;
  if (!std::isfinite(st.t_end))
    throw InputError("--t-end " + FormatNumber(st.t_end) + ": must be finite");
  // Adaptive: h is only the first step; a method that does not read h takes no step count.
  if (!(st.h > 0.0) || run.read.tolerances || !run.read.h) return;
  if (!std::isfinite(st.h))
    throw InputError("--set h = " + FormatNumber(st.h) + ": must be finite");
  const double count = std::ceil((st.t_end - st.t0) / st.h - 1e-9);
  if (std::isfinite(count) && count >= 1.0 && count <= static_cast<double>(st.max_steps)) return;
  throw InputError("--set h = " + FormatNumber(st.h) + " with t0 = " + FormatNumber(st.t0) +
                   " and t_end = " + FormatNumber(st.t_end) + " gives " +
                   FormatNumber(count + 0.0) +
                   " fixed steps: the count must be at least 1 and at most max_steps (" +
                   std::to_string(st.max_steps) + ")");
}
}  // namespace

namespace {
// The method's parameters and the run settings of `spec` into `run` (its problem and entry
// set): the defaults of what was not given, and h only where the method reads it.
void ResolveSettings(const RunSpec& spec, ResolvedRun& run) {
  // Listing the run settings among the accepted keys names them in the message that
  // refuses an unknown key (`--set` gives both kinds).
  std::vector<ParameterSpec> accepted = run.entry->parameters;
  for (const auto& s : RunSettingSpecs()) accepted.push_back(s);
  // Former spellings (ida's formulation=, now dae_form=) under the current name first.
  const ParameterSet parameters =
      spec.method_parameters.WithCurrentNames(run.entry->parameters, "method " + spec.method);
  parameters.Validate(accepted, "method " + spec.method);
  for (const auto& [key, value] : parameters.values())
    if (IsRunSetting(key))
      throw InputError("method " + spec.method + ": '" + key +
                       "' is a run setting, not a method parameter (RunSpec::settings, or "
                       "RunSpec::SetFromText)");
  std::string why;
  if (!spec.settings.Validate(&why)) throw InputError(why);
  run.method_parameters = parameters;

  const RunControls& given = spec.settings;
  RunSettings& st = run.settings;
  st.t0 = run.problem.t0;
  st.t_end = spec.t_end > 0.0 ? spec.t_end : run.problem.t_end;
  if (!(st.t_end > st.t0)) throw InputError("--t-end must be greater than t0");
  st.h = given.h.value_or(0.0);
  st.rtol = given.rtol.value_or(kDefaultRtol);
  st.atol = given.atol.value_or(kDefaultAtol);
  st.max_steps = given.max_steps;
  st.land_on_samples = given.samples == SampleMode::kLand;
  run.read = ReadSettings(*run.entry, run.method_parameters, given.h.has_value());
  // The step a fixed-step run takes (and the first step of the fixed-step methods' adaptive
  // modes, StepMode::kAdaptiveFromH) when none is given: recorded, since it is what runs. A
  // kAdaptiveOrFixed method running its tolerances chooses its own first step.
  if (run.read.default_h && st.h == 0.0) st.h = run.problem.h_default;
  if (!run.read.h) st.h = 0.0;  // unread (refused, or kept as a warning by --allow-unused)
}
}  // namespace

ResolvedRun ResolveRun(const RunSpec& spec) {
  ResolvedRun run;
  if (spec.model_file.empty()) FindProblem(spec.problem);  // an unknown problem is named first
  run.entry = &FindMethod(spec.method);
  // The form the method needs (e.g. form=minimal) when the problem offers it and the user
  // left it open; the result records it through Problem::parameters.
  RunSpec built = spec;
  built.problem_parameters = WithPreferredProblemParameters(spec, *run.entry);
  try {
    run.problem = BuildSpecProblem(built);
  } catch (const InputError& e) {
    // A form the method prefers but the user did not ask for, which this problem cannot be
    // built in (e.g. directors for a model with a driver on an angle): the problem as given,
    // and the method judges it (Execute names why the preferred form was not used).
    if (built.problem_parameters.values() == spec.problem_parameters.values()) throw;
    std::string preferred;
    for (const auto& [key, value] : built.problem_parameters.values())
      if (!spec.problem_parameters.Has(key))
        preferred += (preferred.empty() ? "" : ", ") + key + "=" + value;
    run.preferred_unavailable =
        preferred + " (the form method " + spec.method + " prefers) cannot be built: " + e.what();
    built.problem_parameters = spec.problem_parameters;
    run.problem = BuildSpecProblem(built);
  }
  for (const auto& [key, value] : built.problem_parameters.values())
    if (!spec.problem_parameters.Has(key))
      run.problem.warnings.push_back(key + "=" + value + ": the problem form method " +
                                     spec.method + " needs (not set with --param)");
  ResolveSettings(spec, run);
  CheckFixedStepCount(run);
  CheckSettingsUsed(spec, *run.entry, run.method_parameters, run.problem.warnings);
  // Combinations a method refuses at creation (e.g. step=adaptive with integrator=rk4) are bad
  // input too: creating the method once here lets them exit 2 before anything runs.
  const std::string misfit = run.entry->create(run.method_parameters)->CheckParameters(run.problem);
  if (!misfit.empty()) throw InputError(misfit);
  return run;
}

RunRecord DescribeRun(const ResolvedRun& run) {
  RunRecord r;
  const Problem& p = run.problem;
  r.problem_id = p.id;
  r.problem_parameters = p.parameters;
  r.problem_formulation = p.formulation;
  r.n = p.n();
  r.m = p.m();
  r.constraint_rank = ConstraintRank(p);
  r.dof = p.n() - r.constraint_rank;
  r.method_id = run.entry->name;
  r.method_parameters = run.method_parameters.Resolved(run.entry->parameters);
  if (run.settings.h > 0.0) r.h = run.settings.h;
  if (run.read.tolerances) {
    r.rtol = run.settings.rtol;
    r.atol = run.settings.atol;
  }
  r.t_end = run.settings.t_end;
  r.samples = ToString(run.settings.land_on_samples ? SampleMode::kLand : SampleMode::kInterpolate);
  r.warnings = p.warnings;
  r.initial_residuals = p.initial_residuals;
  r.output_names = p.output_names;
  return r;
}

namespace {
// A reduced mass matrix Z^T M Z singular at the start (a body of zero mass or inertia that
// the constraints do not carry) leaves every method that solves for accelerations without
// a start; known before the run, so the run is not_applicable with the reason rather than
// `failed` at t0. The solve is dense (n x n): made only where the model has a body of zero
// mass or inertia (or no model to ask) and n is small enough for it to cost nothing next to
// the run. Empty: regular, or not checked (the method then decides).
constexpr int kMassCheckMaxCoordinates = 2000;  // three dense n x n matrices: ~100 MB

bool MayHaveSingularMass(const Problem& problem) {
  if (!problem.structure) return true;
  for (const BodyDescription& b : problem.structure->model.bodies) {
    if (!(b.mass > 0.0)) return true;
    const int rotations = problem.structure->model.dimension == 2 ? 1 : 3;
    if (b.kind == BodyKind::kRigid && !(b.inertia.diagonal().head(rotations).minCoeff() > 0.0))
      return true;
  }
  return false;
}

std::string SingularMassReason(const Problem& problem, const MethodEntry& entry) {
  if (entry.accepts_singular_mass || problem.n() > kMassCheckMaxCoordinates ||
      !MayHaveSingularMass(problem))
    return {};
  try {
    auto ws = problem.dae->MakeWorkspace();
    AccelerationSolver solver(*problem.dae, *ws);
    Vector a(problem.n()), lambda(problem.m());
    if (solver.Solve(problem.t0, problem.q0, problem.v0, a, lambda)) return {};
  } catch (const std::bad_alloc&) {
    return {};
  }
  return "the mass matrix is singular on the constraints' tangent space at t0 (a body of zero "
         "mass or inertia): no acceleration to start from; recursive-zero-mass integrates "
         "such a model where it is a tree";
}
}  // namespace

namespace {
// A model file takes `formulation`, not the catalogue's `form`: a not_applicable reason that
// suggests --param form=... (the minimal-coordinate methods) names instead what makes the
// run possible for the file: its joint-tree formulation where that has no constraints (a
// tree), else that no minimal form exists. Empty: the reason stands.
std::string ModelFileHint(const RunSpec& spec, const std::string& reason) {
  const std::string catalogue_hint = "(try --param form=minimal)";
  const size_t at = reason.find(catalogue_hint);
  if (spec.model_file.empty() || at == std::string::npos) return {};
  ParameterSet tree = spec.problem_parameters;
  tree.Set("formulation", "joint-tree");
  std::string hint;
  try {
    const Problem joint = LoadModelProblem(spec.model_file, tree);
    hint = joint.m() == 0 ? "(a model file: try --param formulation=joint-tree, its joint "
                            "coordinates have no constraints on this tree)"
                          : "(a model file has no minimal form unless it is a tree: its joint-tree "
                            "formulation keeps " +
                                std::to_string(joint.m()) + " loop-closure constraints)";
  } catch (const InputError& e) {
    hint = std::string(
               "(a model file has no minimal form: its joint-tree formulation cannot be "
               "built: ") +
           e.what() + ")";
  }
  return reason.substr(0, at) + hint + reason.substr(at + catalogue_hint.size());
}
}  // namespace

void RunSpec::SetFromText(const std::string& key, const std::string& value,
                          const std::string& context) {
  if (!SetRunSettingFromText(settings, key, value, context)) method_parameters.Set(key, value);
}

void RunSpec::SetFromText(const ParameterSet& assignments, const std::string& context) {
  for (const auto& [key, value] : assignments.values()) SetFromText(key, value, context);
}

RunRecord Execute(const RunSpec& spec) { return Execute(ResolveRun(spec), spec); }

RunRecord Execute(const ResolvedRun& run, const RunSpec& spec) {
  RunRecord record = DescribeRun(run);
  record.load_average = LoadAverageNow();
  record.warnings.insert(record.warnings.end(), spec.notes.begin(), spec.notes.end());
  std::unique_ptr<Method> method = run.entry->create(run.method_parameters);
  std::string reason = method->CheckApplicable(run.problem);
  if (reason.empty()) reason = SingularMassReason(run.problem, *run.entry);
  if (!reason.empty()) {
    if (const std::string hinted = ModelFileHint(spec, reason); !hinted.empty()) reason = hinted;
    const std::string& unavailable = run.preferred_unavailable;  // named once, not twice
    const size_t cause = unavailable.find("cannot be built: ");
    if (!unavailable.empty() && reason.find(unavailable.substr(cause + 17)) == std::string::npos)
      reason += "; " + unavailable;
    record.status = RunStatus::kNotApplicable;
    record.message = reason;
    return record;
  }

  record.extra_series_names = method->ExtraSeriesNames(run.problem);
  const std::optional<Reference> reference = FindAnyReference(run.problem);
  if (!reference) {  // never a quiet result without error metrics (docs/reports.md)
    const std::string missing = MissingReferenceWarning(run.problem);
    if (!missing.empty()) {
      record.warnings.push_back(missing);
      std::fprintf(stderr, "mbbench: warning: %s\n", missing.c_str());
    }
  }
  RunSettings settings = run.settings;
  if (reference && !reference->evaluate && settings.land_on_samples) {
    for (double t : reference->times)
      if (t > settings.t0 && t <= settings.t_end) settings.stop_times.push_back(t);
  }

  // Instrumented run: metrics, and the warm-up of the timing protocol.
  MetricsObserver observer(run.problem, reference ? &*reference : nullptr, spec.series);
  TimeLimitObserver limited(observer, spec.settings.time_limit_s);
  ProgressObserver progress(limited, run.problem.id + " " + run.entry->name, settings.t_end);
  StepObserver& watched = spec.progress ? static_cast<StepObserver&>(progress) : limited;
  const double cpu_start = ThreadCpuSeconds();
  const RunOutcome outcome = method->Run(run.problem, settings, watched);
  record.status = outcome.status;
  record.message = outcome.message;
  if (limited.reached()) {  // never `ok`, and `failed` rather than the stop's `unstable`
    record.status = RunStatus::kFailed;
    record.message = limited.reason();
  }
  // The stop of this observer is what makes a time limit, whatever the message says.
  record.failure_class = limited.reached()
                             ? kFailureTimeLimit
                             : FailureClassOf(ToString(record.status), record.message);
  record.counters = outcome.counters;
  record.extra_metrics = outcome.extra_metrics;
  observer.Finish(settings.t_end, record);
  record.cpu_time = ThreadCpuSeconds() - cpu_start;
  if (outcome.status != RunStatus::kOk || spec.repeats <= 0) return record;

  // Timed repeats: no observer work, no I/O, no diagnostics (RunSettings::diagnostics); the
  // median is what reports quote. The same stop times as the instrumented run, so that an
  // adaptive method times the steps whose metrics the record reports.
  RunSettings timed = settings;
  timed.diagnostics = false;
  std::vector<double> times;
  double spent = 0.0, last_report = 0.0;
  for (int k = 0; k < spec.repeats && (k == 0 || spent < spec.time_budget_s); ++k) {
    if (spec.progress && spent - last_report >= 2.0) {  // a line at most every 2 s
      last_report = spent;
      std::fprintf(stderr, "  %s %s: timing repeat %d of %d (%.1f s so far)\n",
                   run.problem.id.c_str(), run.entry->name.c_str(), k + 1, spec.repeats, spent);
    }
    NullObserver null_observer;
    const auto start = std::chrono::steady_clock::now();
    method->Run(run.problem, timed, null_observer);
    const double dt =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    times.push_back(dt);
    spent += dt;
  }
  WallTimes w;
  w.times = times;  // in run order, before sorting: `mbbench compare` tests them
  std::sort(times.begin(), times.end());
  w.min = times.front();
  w.max = times.back();
  const size_t k = times.size();
  w.median = k % 2 ? times[k / 2] : 0.5 * (times[k / 2 - 1] + times[k / 2]);
  w.repeats = static_cast<int>(k);
  record.wall_time = w;
  return record;
}

}  // namespace mbb
