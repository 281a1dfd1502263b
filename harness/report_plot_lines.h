// The lines of the report's plots: work-precision and convergence lines over the runs of a
// problem, the slope triangles of the declared orders, and the energy-balance curves read
// from the runs' series CSV (docs/reports.md).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "harness/plot.h"
#include "harness/report_analysis.h"

namespace mbb {

/// The error measure of the work-precision and convergence plots (`report --error`).
struct ErrorMeasure {
  std::string name, axis;
  std::optional<double> (*of)(const ResultSummary&);
};

/// Only what result documents record (docs/reports.md): a measure they do not hold is refused
/// (InputError).
ErrorMeasure ErrorMeasureNamed(const std::string& name);

/// One line per configuration of `problem`: points (x(r), error) over its ok runs, labelled
/// with the swept value ("(noisy)" when the timing is); with `ranges`, the min .. max wall
/// time of the repeats as horizontal error bars.
std::vector<PlotLine> ErrorLines(const std::vector<ResultSummary>& rows, const std::string& problem,
                                 double (*x)(const ResultSummary&), const ErrorMeasure& measure,
                                 bool ranges = false);

/// A slope triangle of the declared order under the finest point of each fitted line.
std::vector<PlotLine> SlopeTriangles(const std::vector<PlotLine>& lines,
                                     const std::vector<OrderFit>& fits, const std::string& problem);

/// Energy balance E(t) - E(0) - W(t) against t from the series CSV of each run of `problem`
/// that kept one (at most 2000 points a line); `dir` is the results directory.
std::vector<PlotLine> DriftLines(const std::string& dir, const std::vector<ResultSummary>& rows,
                                 const std::string& problem);

}  // namespace mbb
