#include "harness/report_plot_lines.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "harness/report_verdicts.h"
#include "problems/core/problem.h"

namespace mbb {

namespace fs = std::filesystem;

// Only what result documents record (docs/reports.md): a measure they do not hold is refused.
ErrorMeasure ErrorMeasureNamed(const std::string& name) {
  if (name == "max")
    return {name, "max relative position error [-]",
            [](const ResultSummary& r) { return r.error_rel; }};
  if (name == "output")
    return {name, "max relative output error [-]",
            [](const ResultSummary& r) { return r.output_error_rel; }};
  if (name == "energy")
    return {name, "max relative energy drift [-]",
            [](const ResultSummary& r) { return r.energy_rel_drift; }};
  if (name == "final" || name == "l2")
    throw InputError("report --error " + name +
                     ": not recorded in result documents (metrics.error holds maxima over the "
                     "samples: position_max_rel, output_max_rel; metrics.energy.max_rel_drift); "
                     "choose max, output or energy");
  throw InputError("report --error " + name + ": unknown measure (max, output, energy)");
}

// One line per configuration of `problem`: points (x(r), error) over its ok runs, labelled
// with the swept value ("(noisy)" when the timing is); with `ranges`, the min .. max wall
// time of the repeats as horizontal error bars.
std::vector<PlotLine> ErrorLines(const std::vector<ResultSummary>& rows, const std::string& problem,
                                 double (*x)(const ResultSummary&), const ErrorMeasure& measure,
                                 bool ranges) {
  // Points in the order of the sweep (largest h or rtol first), so that a line follows the
  // swept value rather than zig-zagging through noisy wall times.
  struct Point {
    double swept, x, error;
    std::string label;
    std::pair<double, double> range;
  };
  std::map<std::string, std::vector<Point>> by_config;
  for (const auto& r : rows) {
    const std::optional<double> error = measure.of(r);
    if (r.problem == problem && r.status == "ok" && error && *error > 0.0) {
      const double xv = x(r);
      const double swept = r.rtol ? *r.rtol : r.h.value_or(0.0);
      const std::string noisy = ranges && !NoiseReason(r).empty() ? " (noisy)" : "";
      if (xv > 0.0)
        by_config[ConfigurationLabel(r)].push_back(
            {swept,
             xv,
             *error,
             SweptValue(r) + noisy,
             {r.wall_min.value_or(xv), r.wall_max.value_or(xv)}});
    }
  }
  std::vector<PlotLine> lines;
  for (auto& [config, points] : by_config) {
    std::sort(points.begin(), points.end(),
              [](const Point& a, const Point& b) { return a.swept > b.swept; });
    PlotLine line{config, {}, {}, {}, false};
    for (const auto& p : points) {
      line.points.push_back({p.x, p.error});
      line.labels.push_back(p.label);
      if (ranges) line.x_ranges.push_back(p.range);
    }
    lines.push_back(line);
  }
  return lines;
}

// A slope triangle of the declared order under the finest point of each fitted line of the
// convergence plot: its hypotenuse has slope p over a factor 4 in h, a decade below the
// point, so that a line parallel to it converges at the declared order.
std::vector<PlotLine> SlopeTriangles(const std::vector<PlotLine>& lines,
                                     const std::vector<OrderFit>& fits,
                                     const std::string& problem) {
  std::vector<PlotLine> out;
  for (const auto& line : lines) {
    for (const auto& f : fits) {
      if (f.problem != problem || f.configuration != line.title || f.declared <= 0) continue;
      const auto finest = *std::min_element(line.points.begin(), line.points.end());
      const double h0 = finest.first, e0 = 0.1 * finest.second, h1 = 4.0 * h0;
      const double e1 = e0 * std::pow(h1 / h0, f.declared);
      out.push_back({"slope " + std::to_string(f.declared) + " (" + line.title + ")",
                     {{h0, e0}, {h1, e1}, {h1, e0}, {h0, e0}},
                     {},
                     {},
                     true});
    }
  }
  return out;
}

// Energy balance E(t) - E(0) - W(t) against t from the series CSV of each run that kept one
// (at most 2000 points a line).
std::vector<PlotLine> DriftLines(const std::string& dir, const std::vector<ResultSummary>& rows,
                                 const std::string& problem) {
  std::vector<PlotLine> lines;
  for (const auto& r : rows) {
    if (r.problem != problem || r.series_file.empty()) continue;
    const fs::path csv = fs::path(dir) / fs::path(r.file).parent_path() / r.series_file;
    std::ifstream in(csv);
    std::string header;
    if (!in || !std::getline(in, header)) continue;
    int t_col = -1, e_col = -1, col = 0;
    std::stringstream hs(header);
    for (std::string name; std::getline(hs, name, ','); ++col) {
      if (name == "t") t_col = col;
      if (name == "energy_balance") e_col = col;
    }
    if (t_col < 0 || e_col < 0) continue;
    std::vector<std::pair<double, double>> points;
    for (std::string line; std::getline(in, line);) {
      std::stringstream ls(line);
      std::string cell;
      double t = NAN, e = NAN;
      for (int c = 0; std::getline(ls, cell, ','); ++c) {
        if (c == t_col) t = std::strtod(cell.c_str(), nullptr);
        if (c == e_col) e = std::strtod(cell.c_str(), nullptr);
      }
      if (std::isfinite(t) && std::isfinite(e)) points.push_back({t, e});
    }
    if (points.empty()) continue;
    PlotLine line{ConfigurationLabel(r) + " " + SweptValue(r), {}, {}, {}, false};
    const size_t stride = std::max<size_t>(1, points.size() / 2000);
    for (size_t k = 0; k < points.size(); k += stride) line.points.push_back(points[k]);
    lines.push_back(line);
  }
  return lines;
}

}  // namespace mbb
