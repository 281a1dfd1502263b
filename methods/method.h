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

#include "problems/problem.h"

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
  /// harness can compare with a reference there. Fixed-step methods ignore them.
  std::vector<double> stop_times;
  long max_steps = 2'000'000;  // a stalled adaptive run fails instead of running for hours
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
  virtual RunOutcome Run(const Problem& problem, const RunSettings& settings,
                         StepObserver& observer) const = 0;
  /// Names of the StepSample::extra entries this method reports on `problem` (empty: none).
  virtual std::vector<std::string> ExtraSeriesNames(const Problem& /*problem*/) const { return {}; }
};

/// A registry entry: name, description, accepted parameters, and how it uses settings.
struct MethodEntry {
  std::string name;
  std::string summary;
  std::string source;                     // paper / library
  bool uses_step_size = false;            // reads RunSettings::h
  bool uses_tolerances = false;           // reads rtol / atol
  std::vector<ParameterSpec> parameters;  // method parameters beyond h, rtol, atol
  std::function<std::unique_ptr<Method>(const ParameterSet&)> create;
  /// For methods whose step control is a parameter (continued-qr `step=adaptive`): true when
  /// the given method parameters select the rtol/atol-controlled mode (h is then the first
  /// step). Empty: the mode follows uses_tolerances as for the other methods.
  std::function<bool(const ParameterSet&)> uses_tolerances_if = nullptr;
};

/// The registry, sorted by name (methods/registry.cc is the one list).
const std::vector<MethodEntry>& MethodRegistry();
/// Throws InputError listing the known names if there is none.
const MethodEntry& FindMethod(const std::string& name);

}  // namespace mbb
