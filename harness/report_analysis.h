// What the report computes from result summaries, apart from drawing: method configurations
// as series, fitted observed orders of convergence, and the cross-method agreement of the
// named outputs when a problem has no reference (docs/reports.md).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "harness/result_summary.h"

namespace mbb {

/// The method and its non-default parameters ("ida formulation=index1"): one line of a plot.
/// Parameters equal to the registry's default are left out; h, rtol and atol are the swept
/// values, never part of a configuration.
std::string ConfigurationLabel(const ResultSummary& r);
/// The non-default parameters alone ("formulation=index1 scheme=fox-goodwin"), "" if none.
std::string NonDefaultParameters(const std::string& method,
                                 const std::map<std::string, std::string>& parameters);
/// The same for a catalogue problem's parameters ("form=minimal"); every parameter of a
/// problem the catalogue does not know (a model file) counts as non-default.
std::string NonDefaultProblemParameters(const std::string& problem,
                                        const std::map<std::string, std::string>& parameters);

/// Names each result's problem for the report: the id, and the problem parameters whose values
/// differ among the results of that id (slider_crank_3d crank_com=pivot and =mid are two
/// problems to compare). `formulation` is not one of them: it is the coordinates a method
/// works in (the energy-momentum methods choose directors, the recursive ones the joint
/// tree), not a different mechanism, so those runs share the problem's row and carry the
/// formulation in their configuration label (LabelConfigurations).
std::vector<ResultSummary> WithProblemLabels(std::vector<ResultSummary> rows);

/// Sets configuration_label so that a parameter whose value differs among the runs of one
/// method is named on every line, default or not (a sweep over formulation = index1, index2
/// gives "ida formulation=index1" and "ida formulation=index2", not "ida"). When the runs of
/// one problem use more than one problem formulation, each label ends with it in brackets
/// ("null-space-em [directors]").
void LabelConfigurations(std::vector<ResultSummary>& rows);

/// The swept value of a run: "h=1e-03" for a fixed step, else "rtol=1e-07"; "" if neither.
std::string SweptValue(const ResultSummary& r);

/// Least-squares slope of log(y) against log(x); empty with fewer than two distinct
/// positive x or a non-positive y.
std::optional<double> FitLogLogSlope(const std::vector<std::pair<double, double>>& points);

/// Observed order of one configuration on one problem, by the conformance suite's rule
/// (methods/common/observed_order.h): over its fixed-step runs (ok runs with a position
/// error), the two finest step sizes whose error the reference resolves (scd not capped at
/// the reference's digits: below that the error is the reference's, not the run's), and the
/// order that refinement shows, log(e_coarse / e_fine) / log(h_coarse / h_fine); NaN when
/// fewer than two runs are resolved. Beside it the least-squares slope over all the runs (the
/// rule before; pre-asymptotic coarse steps and the reference's floor pull it) and the
/// declared MethodPromises::order (0 when the method declares none or is unknown).
struct OrderFit {
  std::string problem, configuration, method;
  double observed = 0.0;
  double slope = 0.0;  // least squares of log(error) on log(h) over every run
  int declared = 0;
  int points = 0;    // runs with an error
  int resolved = 0;  // of those, with an error the reference resolves
  double h_min = 0.0, h_max = 0.0;
  double h_fine = 0.0, h_coarse = 0.0;  // the pair `observed` is measured on (0: none)
};
std::vector<OrderFit> FitObservedOrders(const std::vector<ResultSummary>& rows);

/// One named output of a problem without a reference, across its ok runs: the median, the
/// largest deviation from it and that run's tolerance (AgreementTolerance). Two runs
/// contradict each other when their values differ by more than the sum of their tolerances
/// (each value is uncertain by its own tolerance, the median by those of the runs near
/// it), so a tight run is never flagged for lying within its stated tolerance of the truth
/// while a looser median lies farther away. `disagree` when some pair contradicts; the
/// `outlier` is then the run in most such pairs (ties: the farther from the median), with
/// its deviation from the median, its own tolerance and the number of runs it contradicts.
struct AgreementRow {
  std::string problem, output;
  double median = 0.0, max_deviation = 0.0, tolerance = 0.0;
  std::string farthest;  // configuration and swept value of the farthest run
  int runs = 0;
  bool disagree = false;
  std::string outlier;  // "" when every pair agrees
  double outlier_deviation = 0.0, outlier_tolerance = 0.0;
  int outlier_conflicts = 0;  // runs it contradicts
};
/// Rows only for problems where no ok run has an error against a reference and at least
/// two ok runs report the output.
std::vector<AgreementRow> CompareOutputsAcrossMethods(const std::vector<ResultSummary>& rows);

/// The deviation a run may show on an output of magnitude |value| before it is called a
/// disagreement: 100 (rtol + atol) (1 + |value|) for an adaptive run, 100 h^p (1 + |value|)
/// for a fixed-step run of declared order p (p = 1 when undeclared). The factor 100 allows
/// for the global error exceeding the local tolerance (error accumulation over the horizon)
/// and for an unknown error constant; a fallen pendulum against an upright one differs by
/// O(1) and is flagged at any realistic setting.
double AgreementTolerance(const ResultSummary& r, double value);

}  // namespace mbb
