// Plots of the report through gnuplot-iostream (the design card's choice): each plot is
// written as NAME.png and NAME.svg with its data (NAME.dat) and gnuplot script (NAME.gp)
// beside it, the script naming the data by a relative path, so a reader can edit and rerun
// it (`cd plots && gnuplot NAME.gp`) anywhere the directory is copied.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace mbb {

/// One line of a plot: a title and its points; `labels` (optional, one per point) are
/// written beside the points (the swept h or rtol).
struct PlotLine {
  std::string title;
  std::vector<std::pair<double, double>> points;
  std::vector<std::string> labels;
  /// Optional, one per point: the x interval drawn as a horizontal error bar (the min and max
  /// wall time of the repeats).
  std::vector<std::pair<double, double>> x_ranges;
  bool guide = false;  // a reference drawn dashed in grey (a slope triangle), no points
};

struct PlotSpec {
  std::string name;  // file stem inside the plot directory
  std::string title, xlabel, ylabel;
  bool logx = true, logy = true;
  std::vector<PlotLine> lines;
  bool points = true;  // false: lines only (long time series)
};

/// True when a gnuplot executable is on the PATH.
bool HaveGnuplot();

/// Writes DIR/NAME.dat and DIR/NAME.gp and, when gnuplot is installed, DIR/NAME.png and
/// DIR/NAME.svg. Returns true when the PNG exists afterwards. Without gnuplot nothing is
/// drawn (gnuplot-iostream would die by SIGPIPE) and the caller says so once.
bool DrawPlot(const std::string& dir, const PlotSpec& spec);

}  // namespace mbb
