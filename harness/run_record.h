// Plain records of what a run or a stability search produced: the harness fills them, and
// the document layer (result_document.h, stability_document.h) serialises them.
#pragma once

#include <array>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "methods/method.h"

namespace mbb {

struct WallTimes {
  double min = 0.0, median = 0.0, max = 0.0;
  int repeats = 0;
  std::vector<double> times;  // each repeat's wall time, s, in the order they ran
};

struct ErrorMetrics {
  std::string reference;
  double position_max_abs = 0.0;
  double position_max_rel = 0.0;
  double scd = 0.0;  // significant correct digits, capped at the reference's digits
  int compared_samples = 0;
  // The same on the named outputs the reference provides (at the same samples); empty when
  // it provides none (no outputs, or only velocity outputs and a reference without v).
  std::optional<double> output_max_abs, output_max_rel, output_scd;
  std::vector<std::string> outputs_compared;
};

/// Linear momentum and angular momentum about the origin along the run (DAEs whose
/// CalcMomenta reports them): initial values and max |p(t) - p(0)| per component.
struct MomentumMetrics {
  std::array<double, 3> linear_initial{}, linear_max_abs_drift{};
  std::array<double, 3> angular_initial{}, angular_max_abs_drift{};
  std::vector<std::string> conserved_components;  // Problem::conserved_momentum
  std::optional<double> conserved_max_abs_drift;  // max over those; empty if none
};

struct RunMetrics {
  double position_residual_max = 0.0;
  double velocity_residual_max = 0.0;
  std::optional<double> acceleration_residual_max;  // only if the method reports a
  double energy_initial = 0.0, energy_final = 0.0;
  double energy_max_abs_drift = 0.0, energy_max_rel_drift = 0.0;
  double external_work = 0.0;  // integral of the applied power, in the balance
  std::optional<ErrorMetrics> error;
  std::optional<MomentumMetrics> momentum;
  std::optional<double> multiplier_max;     // max |lambda|_inf, if reported
  std::optional<double> revolution_period;  // first full turn of Problem::revolution_output
  long samples = 0;
};

/// One time-series row (only with --series).
struct SeriesRow {
  double t;
  std::vector<double> q, v, outputs;
  std::vector<double> extra;  // StepSample::extra, named by RunRecord::extra_series_names
  double position_residual, velocity_residual, energy_balance;
  double acceleration_residual;  // NaN if the method does not report a
  std::vector<double> lambda;    // empty if the method does not report multipliers
  // Linear momentum x, y, z then angular momentum about the origin x, y, z (the values
  // MomentumMetrics summarises); empty if the DAE reports no momenta.
  std::vector<double> momentum;
};

struct RunRecord {
  // What was asked.
  std::string problem_id;
  std::map<std::string, std::string> problem_parameters;
  std::string problem_formulation;  // Problem::formulation ("" for a hand-written problem)
  int n = 0, m = 0, dof = 0, constraint_rank = 0;
  std::string method_id;
  std::map<std::string, std::string> method_parameters;
  std::optional<double> h, rtol, atol;
  double t_end = 0.0;
  std::string samples = "land";  // the setting samples: land | interpolate (method.h)
  /// Load averages (1, 5, 15 min) when the run started; written as context.load_average.
  std::optional<std::array<double, 3>> load_average;
  /// ConfigurationKey of the run (configuration.h), written as `configuration` and
  /// `configuration_hash`; empty: not recorded.
  std::string configuration;
  // What happened.
  RunStatus status = RunStatus::kOk;
  std::string message;
  /// Why a failed or unstable run ended so (harness/failure_class.h): "time_limit",
  /// "step_limit", "numerical"; "" for ok and not_applicable. Written as `failure_class`.
  std::string failure_class;
  std::vector<std::string> warnings;
  /// An ok run whose energy drift passed kEnergyDriftWarning (the table marks it).
  bool drift_warning = false;
  /// An ok run whose positions or outputs left the reference by more than kOutputsFarFactor
  /// of its scale: the time they first did. outputs_meaningful is then false.
  std::optional<double> left_reference_at;
  /// The warnings the run itself added (from this index of `warnings` on; those before are
  /// the problem's, such as a projected initial state). The run table prints all of them.
  size_t run_warnings_begin = 0;
  InitialResiduals initial_residuals;
  WorkCounters counters;
  std::optional<WallTimes> wall_time;
  /// CPU time of the instrumented run's thread, s (method, library and observers; what
  /// --time-limit measures): unlike wall time it does not grow with the machine's load.
  /// Empty when no run was made (not_applicable).
  std::optional<double> cpu_time;
  RunMetrics metrics;
  std::map<std::string, double> extra_metrics;
  std::vector<std::string> output_names;
  std::vector<std::string> extra_series_names;  // method-specific series columns
  std::vector<double> outputs;
  bool final_state_valid = false;
  bool final_state_interpolated = false;
  double final_t = 0.0;
  std::vector<double> final_q, final_v;
  std::vector<SeriesRow> series;
};

struct StabilityTrial {
  double h;
  RunStatus status;
  std::string message;
  double max_growth;  // largest ratio of a monitored quantity to its band
};

struct StabilityRecord {
  RunRecord base;  // problem, method, settings of the search (no metrics)
  std::optional<double> h_max_stable, h_min_unstable;
  double h_min = 0.0, h_max = 0.0;  // the search bracket (`mbbench check` reruns it)
  double relative_precision = 0.0;
  std::string criterion;  // growth | finite | bound
  std::map<std::string, double> criterion_parameters;
  std::string criterion_description;
  std::vector<StabilityTrial> trials;
  std::string message;
  /// How the bracket was clipped to what the horizon and max_steps allow (stability.cc).
  std::vector<std::string> notes;
};

}  // namespace mbb
