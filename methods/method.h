// The method contract: a method is created by name from the registry with named parameters,
// applied to a read-only Problem, advances from t0 to t_end and reports every accepted step
// to an observer. A numerical failure is a RunOutcome status, never an exception; caller
// misuse (bad parameter) throws InputError at creation.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "problems/core/problem.h"

namespace mbb {

enum class RunStatus { kOk, kFailed, kUnstable, kNotApplicable };
const char* ToString(RunStatus status);

struct RunSettings {
  double t0 = 0.0;
  double t_end = 1.0;
  double h = 0.0;      // fixed step size (s); 0 = the problem's h_default
  double rtol = 1e-8;  // adaptive methods
  double atol = 1e-10;
  /// Times (sorted, within (t0, t_end]) an adaptive method must land on exactly, so the
  /// harness can compare with a reference there. Fixed-step methods ignore them. Empty
  /// under the setting samples=interpolate: the metrics then interpolate the run at the
  /// reference's times (MetricsObserver, cubic Hermite) and the steps are the method's own.
  std::vector<double> stop_times;
  long max_steps = 2'000'000;
  /// The setting samples=land (true) or interpolate (false); see stop_times.
  bool land_on_samples = true;  // a stalled adaptive run fails instead of running for hours
  /// False for the harness's timed repeats: a method may then skip work that only feeds
  /// its reported metrics (the energy-momentum methods' condition number by SVD), so that
  /// the timing measures the integration; the metrics come from the instrumented run. The
  /// steps must not depend on it.
  bool diagnostics = true;
};

/// One accepted step. a and lambda are reported where the method computes them.
struct StepSample {
  double t;
  const Vector& q;
  const Vector& v;
  const Vector* a = nullptr;
  const Vector* lambda = nullptr;
  /// Method-specific per-step quantities (e.g. minimal coordinates), named by
  /// Method::ExtraSeriesNames; only when the method records them.
  const Vector* extra = nullptr;
};

class StepObserver {
 public:
  virtual ~StepObserver() = default;
  virtual void OnStep(const StepSample& sample) = 0;
  /// Lets the harness end a run early (e.g. the stability search once the growth band is
  /// left); the method then returns status kUnstable with the observer's reason.
  virtual bool StopRequested() const { return false; }
  virtual std::string StopReason() const { return {}; }
};

/// An observer that ignores everything: what timing repeats use.
class NullObserver final : public StepObserver {
 public:
  void OnStep(const StepSample&) override {}
};

struct WorkCounters {
  long steps = 0;
  long rejected_steps = 0;
  long rhs_evals = 0;
  long jacobian_evals = 0;
  long newton_iterations = 0;
  long factorizations = 0;
};

struct RunOutcome {
  RunStatus status = RunStatus::kOk;
  std::string message;
  WorkCounters counters;
  /// Method-specific scalar metrics (e.g. tangent_basis_jump), copied into the result.
  std::map<std::string, double> extra_metrics;
};

class Method {
 public:
  virtual ~Method() = default;
  /// Empty if the method can treat `problem`, else the reason (-> not_applicable).
  virtual std::string CheckApplicable(const Problem& /*problem*/) const { return {}; }
  /// Empty if the method's parameters fit `problem`, else why not: bad input (exit 2),
  /// refused before any run (e.g. partitioning-fixed's independent = 99 on 9 coordinates).
  virtual std::string CheckParameters(const Problem& /*problem*/) const { return {}; }
  virtual RunOutcome Run(const Problem& problem, const RunSettings& settings,
                         StepObserver& observer) const = 0;
  /// Names of the StepSample::extra entries this method reports on `problem` (empty: none).
  virtual std::vector<std::string> ExtraSeriesNames(const Problem& /*problem*/) const { return {}; }
};

/// How a run's step is controlled, for one choice of a method's parameters. Which run
/// settings the method then reads follows from it (ReadSettings), and so does what the
/// harness refuses, records and defaults.
enum class StepMode {
  kFixed,     // steps at h (default: the problem's h_default); rtol / atol unread
  kAdaptive,  // rtol / atol; the method chooses every step, h unread
  /// rtol / atol with the method's own first step; a given h selects a fixed step instead
  /// (rtol / atol then unread): odeint-dopri5, ARKODE, Simbody.
  kAdaptiveOrFixed,
  /// rtol / atol with h as the first step (default: the problem's h_default): the
  /// fixed-step methods' embedded-estimate modes (continued-qr step=adaptive).
  kAdaptiveFromH,
};
const char* ToString(StepMode mode);

/// A method entry's one declaration of its step control: one mode, or the mode selected by
/// the value of one of its choice parameters (continued-qr `step`, recursive `integrator`).
/// The parameter's default is its spec's (written once, in MethodEntry::parameters).
/// No default constructor: an entry must say how it steps.
class StepControl {
 public:
  StepControl(StepMode mode) : fixed_mode_(mode) {}  // NOLINT: `.step = StepMode::kFixed`
  /// The mode is `modes[value of key]`; every choice of `key` must be listed (checked for
  /// every registry entry by tests/test_step_control.cc).
  static StepControl ByParameter(std::string key, std::map<std::string, StepMode> modes) {
    StepControl c(StepMode::kFixed);
    c.key_ = std::move(key);
    c.modes_ = std::move(modes);
    return c;
  }
  /// The mode the given method parameters select, with `specs` supplying the defaults.
  /// Throws InputError for a value the declaration does not list (a broken entry).
  StepMode ModeFor(const ParameterSet& parameters, const std::vector<ParameterSpec>& specs) const;
  /// The choice parameter that selects the mode ("" for one mode) and its modes by value.
  const std::string& key() const { return key_; }
  const std::map<std::string, StepMode>& modes() const { return modes_; }

 private:
  StepMode fixed_mode_;
  std::string key_;
  std::map<std::string, StepMode> modes_;
};

/// What a method promises with its entry's default parameters. tests/test_conformance.cc
/// checks every promise of every registry entry on a small problem set, so a new method gets
/// the checks from its registry line (docs/adding-a-method.md). Each field says its check.
/// Whether the default mode steps fixed or adaptive is MethodEntry::step, not a promise.
struct MethodPromises {
  /// Global order p of the position error at a fixed step h, |q_h(T) - q(T)| ~ C h^p, from
  /// the method's paper or library (cite it at the entry); 0 exactly when the default mode
  /// has no fixed step (StepMode::kAdaptive). Checked by step halving: log2 of the ratio of
  /// successive differences at h, h/2, h/4 must be within 0.3 of p. Adaptive modes are
  /// checked for tolerance proportionality instead: the error at rtol 1e-8 is at least 10
  /// times smaller than at rtol 1e-6.
  int order = 0;
  /// Constraint levels the method keeps at every accepted step, to its solver tolerance
  /// (not merely to O(h^p)): |Phi(t, q)|, |Phi_q v + Phi_t| and |Phi_q a - gamma(t, q, v)|
  /// (the acceleration level needs the method to report a). Checked as the maximum over a
  /// run; a level declared false is not checked (the method may drift there). On a problem
  /// without constraints (m = 0) every level holds trivially.
  bool satisfies_position = false;
  bool satisfies_velocity = false;
  bool satisfies_acceleration = false;
  /// No secular energy drift on a conservative problem (symplectic or energy-conserving
  /// schemes: the energy error oscillates with a bounded amplitude). Checked as: the largest
  /// |E - E0| over a long run is at most twice that over its first quarter (a linear drift
  /// would give four times).
  bool bounded_energy_error = false;

  // Builders, so a registry line reads as the promise it makes, e.g.
  // MethodPromises::Order(2).Position().Velocity().BoundedEnergyError().
  static MethodPromises Order(int order) { return {order}; }
  static MethodPromises NoFixedStepOrder() { return {0}; }
  MethodPromises Position() const { return With(&MethodPromises::satisfies_position); }
  MethodPromises Velocity() const { return With(&MethodPromises::satisfies_velocity); }
  MethodPromises Acceleration() const { return With(&MethodPromises::satisfies_acceleration); }
  MethodPromises BoundedEnergyError() const { return With(&MethodPromises::bounded_energy_error); }

 private:
  MethodPromises With(bool MethodPromises::*field) const {
    MethodPromises p = *this;
    p.*field = true;
    return p;
  }
};

/// A registry entry: name, description, accepted parameters, and how it steps. Entries are
/// written with designated initialisers (`.name = ..., .step = StepMode::kFixed, ...`), in
/// this order; `name`, `summary`, `source`, `create` and `step` are always given.
struct MethodEntry {
  std::string name;
  std::string summary;
  std::string source;                     // paper / library
  std::vector<ParameterSpec> parameters;  // method parameters beyond h, rtol, atol
  std::function<std::unique_ptr<Method>(const ParameterSet&)> create;
  /// The one declaration of the step control (and so of which of h, rtol, atol the method
  /// reads): see StepMode, ReadSettings.
  StepControl step;
  /// What the method promises with its default parameters (checked by the conformance test).
  MethodPromises promises = {};
  /// Problem parameters the method needs, e.g. {"form", "minimal"} for a minimal-coordinate
  /// method, {"formulation", "directors"} for a method written for a coordinate set. When the
  /// problem offers the key with that value among its choices and the user did not set the
  /// key, the harness builds the problem that way (recorded in problem.parameters); a user
  /// who pinned another value gets the method's not_applicable reason.
  std::map<std::string, std::string> preferred_problem_parameters = {};
  /// True for a method that integrates a mass matrix singular on the constraints' tangent
  /// space (a body of zero mass: paper 004's recursion with pseudo-inverses). Every other
  /// method is not_applicable on a problem whose reduced mass matrix is singular at t0,
  /// which the harness finds before the run (runner.cc, SingularMassReason).
  bool accepts_singular_mass = false;
};

/// Which run settings a method reads with the given parameters, from its StepControl. The
/// one place that decides it: the harness refuses a setting the method does not read,
/// records only those it does, and picks the default h from it.
struct SettingsRead {
  StepMode mode = StepMode::kFixed;  // the mode the parameters select
  bool h = false;                    // a fixed step, or the first step offered to an adaptive mode
  bool tolerances = false;           // rtol / atol: the run's step control is adaptive
  /// Without a given h the run takes the problem's h_default (kFixed, kAdaptiveFromH);
  /// otherwise a method that reads h chooses its own first step.
  bool default_h = false;
};
/// `h_given`: the user set h. For a method with an adaptive default that also takes a fixed
/// step (kAdaptiveOrFixed), a given h selects the fixed step and turns the tolerances off.
SettingsRead ReadSettings(const MethodEntry& entry, const ParameterSet& method_parameters,
                          bool h_given);

/// The registry, sorted by name (methods/registry.cc is the one list, plus the entries given
/// to RegisterMethods).
const std::vector<MethodEntry>& MethodRegistry();
/// Adds a program's own methods to the registry, beside the built-in ones: a consumer's main
/// calls it before RunCli (harness/cli.h) and gets every command for them, and
/// mbb::conformance::Check (conformance/conformance.h) checks their promises. Call it before
/// the registry's first use (MethodRegistry, FindMethod); throws InputError after it, on a
/// name already registered, and on an entry without a name or create function.
void RegisterMethods(std::vector<MethodEntry> entries);
/// Throws InputError listing the known names if there is none.
const MethodEntry& FindMethod(const std::string& name);
/// Stored method parameters (a result, a baseline, a configuration key) under their current
/// names: a parameter recorded under a former name (ParameterSpec::former_names, e.g. ida's
/// formulation=, now dae_form=) reads as the current one, so a result written before the
/// rename compares equal to one written after. Unknown methods and sets naming a parameter
/// twice come back unchanged (the run's own resolution refuses them).
std::map<std::string, std::string> WithCurrentParameterNames(
    const std::string& method, const std::map<std::string, std::string>& parameters);

}  // namespace mbb
