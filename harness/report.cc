#include "harness/report.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "harness/json_io.h"
#include "harness/plot.h"
#include "harness/report_analysis.h"

namespace mbb {

namespace {

namespace fs = std::filesystem;

std::string Num(const std::optional<double>& x, const char* format = "%.3g") {
  if (!x) return "-";
  char buffer[48];
  std::snprintf(buffer, sizeof buffer, format, *x);
  return buffer;
}

// A file name or parser message in HTML text.
std::string Escape(const std::string& text) {
  std::string out;
  for (const char c : text) {
    if (c == '<')
      out += "&lt;";
    else if (c == '>')
      out += "&gt;";
    else if (c == '&')
      out += "&amp;";
    else if (c == '\'')
      out += "&#39;";
    else
      out += c;
  }
  return out;
}

// A Markdown table cell: a '|' would end the cell.
std::string MdCell(const std::string& text) {
  std::string out;
  for (const char c : text) out += c == '|' ? std::string("\\|") : std::string(1, c);
  return out;
}

// Writes one table to both documents.
class Document {
 public:
  void Heading(int level, const std::string& text) {
    md_ << "\n" << std::string(level, '#') << " " << text << "\n\n";
    html_ << "<h" << level << ">" << Escape(text) << "</h" << level << ">\n";
  }
  void Paragraph(const std::string& text) {
    md_ << text << "\n\n";
    html_ << "<p>" << Escape(text) << "</p>\n";
  }
  void Table(const std::vector<std::string>& header,
             const std::vector<std::vector<std::string>>& rows) {
    md_ << "|";
    html_ << "<table><tr>";
    for (const auto& h : header) md_ << " " << MdCell(h) << " |", html_ << "<th>" << Escape(h);
    md_ << "\n|";
    for (size_t i = 0; i < header.size(); ++i) md_ << "---|";
    md_ << "\n";
    html_ << "</tr>\n";
    for (const auto& row : rows) {
      md_ << "|";
      html_ << "<tr>";
      for (const auto& c : row) md_ << " " << MdCell(c) << " |", html_ << "<td>" << Escape(c);
      md_ << "\n";
      html_ << "</tr>\n";
    }
    md_ << "\n";
    html_ << "</table>\n";
  }
  void Image(const std::string& file, const std::string& alt) {
    md_ << "![" << alt << "](" << file << ")\n\n";
    html_ << "<p><img src='" << Escape(file) << "' alt='" << Escape(alt) << "'></p>\n";
  }
  std::string Markdown() const { return md_.str(); }
  std::string Html(const std::string& title) const {
    return "<!doctype html><meta charset='utf-8'><title>" + Escape(title) +
           "</title><style>body{font-family:sans-serif;max-width:1400px}"
           "table{border-collapse:collapse;margin-bottom:1em}td,th{border:1px solid "
           "#bbb;padding:2px 6px;text-align:right}img{max-width:100%}</style>\n" +
           html_.str();
  }

 private:
  std::ostringstream md_, html_;
};

// One line per configuration of `problem`: points (x(r), error) over its ok runs, labelled
// with the swept value.
std::vector<PlotLine> ErrorLines(const std::vector<ResultSummary>& rows, const std::string& problem,
                                 double (*x)(const ResultSummary&)) {
  // Points in the order of the sweep (largest h or rtol first), so that a line follows the
  // swept value rather than zig-zagging through noisy wall times.
  struct Point {
    double swept, x, error;
    std::string label;
  };
  std::map<std::string, std::vector<Point>> by_config;
  for (const auto& r : rows)
    if (r.problem == problem && r.status == "ok" && r.error_rel && *r.error_rel > 0.0) {
      const double xv = x(r);
      const double swept = r.rtol ? *r.rtol : r.h.value_or(0.0);
      if (xv > 0.0)
        by_config[ConfigurationLabel(r)].push_back({swept, xv, *r.error_rel, SweptValue(r)});
    }
  std::vector<PlotLine> lines;
  for (auto& [config, points] : by_config) {
    std::sort(points.begin(), points.end(),
              [](const Point& a, const Point& b) { return a.swept > b.swept; });
    PlotLine line{config, {}, {}};
    for (const auto& p : points)
      line.points.push_back({p.x, p.error}), line.labels.push_back(p.label);
    lines.push_back(line);
  }
  return lines;
}

// A problem label as a file name: letters, digits, '-' and '_' only.
std::string FileName(const std::string& label) {
  std::string out;
  for (const char c : label)
    out += std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' ? c : '_';
  return out;
}

double WallOf(const ResultSummary& r) { return r.wall_median.value_or(0.0); }
double StepsOf(const ResultSummary& r) { return static_cast<double>(r.steps); }
double StepOf(const ResultSummary& r) { return r.h && !r.rtol ? *r.h : 0.0; }

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
    PlotLine line{ConfigurationLabel(r) + " " + SweptValue(r), {}, {}};
    const size_t stride = std::max<size_t>(1, points.size() / 2000);
    for (size_t k = 0; k < points.size(); k += stride) line.points.push_back(points[k]);
    lines.push_back(line);
  }
  return lines;
}

// The grid cell of one (problem, method): status, error and time of a single run, or a count.
std::string GridCell(const std::vector<const ResultSummary*>& runs,
                     std::map<std::string, int>& notes) {
  if (runs.empty()) return "";
  if (runs.size() == 1) {
    const ResultSummary& r = *runs.front();
    if (r.status == "not_applicable") {
      const int note = notes.emplace(r.message, static_cast<int>(notes.size()) + 1).first->second;
      return "n/a [" + std::to_string(note) + "]";
    }
    std::string cell = r.status;
    if (r.error_rel) cell += " " + Num(r.error_rel, "%.1e");
    if (r.wall_median) cell += " " + Num(r.wall_median, "%.2g") + "s";
    return cell;
  }
  std::map<std::string, int> counts;
  std::optional<double> best;
  for (const ResultSummary* r : runs) {
    ++counts[r->status];
    if (r->status == "ok" && r->error_rel)
      best = std::min(best.value_or(*r->error_rel), *r->error_rel);
  }
  std::string cell;
  for (const auto& [status, count] : counts)
    cell += (cell.empty() ? "" : ", ") + std::to_string(count) + " " + status;
  if (best) cell += "; best " + Num(best, "%.1e");
  return cell;
}

void WriteGrid(Document& doc, const std::vector<ResultSummary>& rows,
               const std::set<std::string>& problems) {
  std::set<std::string> methods;
  for (const auto& r : rows) methods.insert(r.method);
  doc.Heading(2, "Method x problem grid");
  doc.Paragraph(
      "Each cell: status, max relative position error against the reference, median wall time "
      "[s] (one run), or the count of runs per status and the best error (several). n/a [k]: "
      "not applicable, reason k below.");
  std::map<std::string, int> notes;
  std::vector<std::string> header = {"problem"};
  header.insert(header.end(), methods.begin(), methods.end());
  std::vector<std::vector<std::string>> table;
  for (const auto& problem : problems) {
    std::vector<std::string> line = {problem};
    for (const auto& method : methods) {
      std::vector<const ResultSummary*> runs;
      for (const auto& r : rows)
        if (r.problem == problem && r.method == method) runs.push_back(&r);
      line.push_back(GridCell(runs, notes));
    }
    table.push_back(line);
  }
  doc.Table(header, table);
  if (!notes.empty()) {
    std::vector<std::vector<std::string>> reasons(notes.size());
    for (const auto& [reason, k] : notes) reasons[k - 1] = {std::to_string(k), reason};
    doc.Table({"note", "not applicable because"}, reasons);
  }
}

void WriteRunTable(Document& doc, const std::vector<ResultSummary>& rows,
                   const std::string& problem) {
  std::vector<std::vector<std::string>> table;
  for (const auto& r : rows) {
    if (r.problem != problem) continue;
    table.push_back({ConfigurationLabel(r), SweptValue(r), r.status, std::to_string(r.steps),
                     Num(r.wall_median), Num(r.time_per_step), Num(r.error_rel, "%.2e"),
                     Num(r.scd, "%.1f"), Num(r.energy_rel_drift, "%.2e"),
                     Num(r.position_residual, "%.2e"),
                     r.status == "ok" ? "" : r.message.substr(0, 120)});
  }
  doc.Table({"configuration", "swept", "status", "steps", "wall [s]", "s/step", "error [-]", "scd",
             "energy rel. drift [-]", "max |Phi| [model units]", "message"},
            table);
}

void WriteOrders(Document& doc, const std::vector<OrderFit>& fits, const std::string& problem) {
  std::vector<std::vector<std::string>> table;
  for (const auto& f : fits) {
    if (f.problem != problem) continue;
    table.push_back({f.configuration, Num(f.observed, "%.2f"),
                     f.declared > 0 ? std::to_string(f.declared) : "-",
                     f.declared > 0 ? Num(f.observed - f.declared, "%+.2f") : "-",
                     std::to_string(f.points), Num(f.h_min) + " .. " + Num(f.h_max)});
  }
  if (table.empty()) return;
  doc.Paragraph(
      "Observed order: least-squares slope of log(error) against log(h) over the fixed-step "
      "runs of each configuration; declared: the method's promised order (mbbench list "
      "methods).");
  doc.Table({"configuration", "observed order", "declared order", "difference", "runs", "h [s]"},
            table);
}

void WriteStability(Document& doc, const std::string& dir,
                    std::vector<UnreadableResult>& unreadable) {
  const auto results = ReadStabilitySummaries(dir, &unreadable);
  if (results.empty()) return;
  doc.Heading(2, "Stability limits");
  doc.Paragraph(
      "From the mbbench stability results (*.stability.json) in this directory: the "
      "largest step found stable and the smallest found unstable (docs/stability.md).");
  std::vector<std::vector<std::string>> table;
  for (const auto& s : results) {
    ResultSummary as_run;
    as_run.method = s.method;
    as_run.method_parameters = s.method_parameters;
    table.push_back({s.problem, ConfigurationLabel(as_run), Num(s.h_max_stable, "%.4g"),
                     Num(s.h_min_unstable, "%.4g"), s.criterion, Num(s.t_end),
                     std::to_string(s.trials), s.message.substr(0, 120)});
  }
  doc.Table({"problem", "configuration", "h_max_stable [s]", "h_min_unstable [s]", "criterion",
             "horizon [s]", "trials", "message"},
            table);
}

void WriteAgreement(Document& doc, const std::vector<ResultSummary>& rows) {
  const auto agreement = CompareOutputsAcrossMethods(rows);
  if (agreement.empty()) return;
  doc.Heading(2, "Cross-method agreement (problems without a reference)");
  doc.Paragraph(
      "The named outputs at t_end across the ok runs of each problem that has no reference: the "
      "median, the largest deviation from it and that run's tolerance, 100 (rtol + atol) (1 + "
      "|median|) for an adaptive run, 100 h^p (1 + |median|) for a fixed step of order p. "
      "DISAGREE: some run is farther from the median than its tolerance allows: at least one "
      "method is wrong there (or the problem is chaotic over the horizon).");
  std::vector<std::vector<std::string>> table;
  for (const auto& a : agreement)
    table.push_back({a.problem, a.output, std::to_string(a.runs), Num(a.median, "%.6g"),
                     Num(a.max_deviation, "%.2e"), Num(a.tolerance, "%.2e"), a.farthest,
                     a.disagree ? "DISAGREE" : "agree"});
  doc.Table({"problem", "output", "runs", "median", "max deviation", "tolerance", "farthest run",
             "verdict"},
            table);
}

void WriteEnvironment(Document& doc, const std::vector<ResultSummary>& rows) {
  struct Range {
    std::string first_date, last_date;
    std::optional<double> load_min, load_max;
    int runs = 0;
  };
  std::map<std::vector<std::string>, Range> environments;
  for (const auto& r : rows) {
    const std::vector<std::string> key = {
        r.git_commit.substr(0, 12) + (r.git_dirty ? " (dirty)" : ""),
        r.compiler,
        r.flags + " (" + r.build_type + ")",
        "Eigen " + r.eigen + ", SUNDIALS " + r.sundials + ", Boost " + r.boost + ", Simbody " +
            (r.simbody.empty() ? "-" : r.simbody),
        r.cpu + ", " + std::to_string(r.cores) + " cores",
        r.host.empty() ? "-" : r.host};
    Range& range = environments[key];
    ++range.runs;
    if (range.first_date.empty() || r.date < range.first_date) range.first_date = r.date;
    if (r.date > range.last_date) range.last_date = r.date;
    if (r.load_average_1min) {
      range.load_min =
          std::min(range.load_min.value_or(*r.load_average_1min), *r.load_average_1min);
      range.load_max =
          std::max(range.load_max.value_or(*r.load_average_1min), *r.load_average_1min);
    }
  }
  doc.Heading(2, "Environment");
  std::vector<std::vector<std::string>> table;
  for (const auto& [key, range] : environments) {
    std::vector<std::string> line = key;
    line.push_back(range.first_date + (range.last_date != range.first_date
                                           ? " .. " + range.last_date
                                           : std::string()));
    line.push_back(
        range.load_min ? Num(range.load_min, "%.2f") + " .. " + Num(range.load_max, "%.2f") : "-");
    line.push_back(std::to_string(range.runs));
    table.push_back(line);
  }
  doc.Table({"commit", "compiler", "flags", "libraries", "CPU", "host", "dates (UTC)",
             "load average at run start (1 min)", "runs"},
            table);
}

}  // namespace

int WriteReport(const std::string& dir) {
  std::vector<UnreadableResult> unreadable;
  const int count = WriteReport(dir, unreadable);
  if (!unreadable.empty())
    throw InputError(unreadable.front().file + ": " + unreadable.front().reason);
  return count;
}

int WriteReport(const std::string& dir, std::vector<UnreadableResult>& unreadable,
                std::vector<UnreadableResult>* skipped) {
  const size_t unreadable_before = unreadable.size();
  std::vector<ResultSummary> rows =
      WithProblemLabels(ReadResultSummaries(dir, &unreadable, skipped));
  LabelConfigurations(rows);
  std::set<std::string> problems;
  for (const auto& r : rows) problems.insert(r.problem);
  const bool gnuplot = HaveGnuplot();
  const std::string plot_dir = dir + "/plots";
  const std::vector<OrderFit> fits = FitObservedOrders(rows);

  Document doc;
  doc.Heading(1, "mbbench report: " + dir);
  doc.Paragraph(std::to_string(rows.size()) +
                " results. Times are medians of repeats (metrics.wall_time_s); errors are max "
                "relative position errors against the problem's reference. A configuration is a "
                "method with its non-default parameters; h or rtol is the swept value.");
  if (!gnuplot)
    doc.Paragraph(
        "gnuplot was not found: no plots were drawn. Their data and gnuplot scripts "
        "are in plots/; install gnuplot (Debian: gnuplot-nox) and run `mbbench report` "
        "again.");
  WriteGrid(doc, rows, problems);

  auto plot = [&](const PlotSpec& spec) {
    if (spec.lines.empty()) return;
    if (DrawPlot(plot_dir, spec)) doc.Image("plots/" + spec.name + ".png", spec.title);
  };
  for (const auto& problem : problems) {
    doc.Heading(2, problem);
    WriteRunTable(doc, rows, problem);
    plot({FileName(problem) + "_work_time", problem + ": work-precision (error vs wall time)",
          "median wall time [s]", "max relative position error [-]", true, true,
          ErrorLines(rows, problem, WallOf)});
    plot({FileName(problem) + "_work_steps", problem + ": work-precision (error vs steps)",
          "accepted steps [-]", "max relative position error [-]", true, true,
          ErrorLines(rows, problem, StepsOf)});
    plot({FileName(problem) + "_convergence", problem + ": dt-convergence (fixed-step runs)",
          "step size h [s]", "max relative position error [-]", true, true,
          ErrorLines(rows, problem, StepOf)});
    WriteOrders(doc, fits, problem);
    plot({FileName(problem) + "_drift", problem + ": energy balance along the run (--series)",
          "time t [s]", "E(t) - E(0) - W(t) [J]", false, false, DriftLines(dir, rows, problem),
          false});
  }
  WriteStability(doc, dir, unreadable);
  WriteAgreement(doc, rows);
  if (unreadable.size() > unreadable_before) {
    doc.Heading(2, "Unreadable files");
    std::vector<std::vector<std::string>> table;
    for (size_t i = unreadable_before; i < unreadable.size(); ++i)
      table.push_back({unreadable[i].file, unreadable[i].reason});
    doc.Table({"file", "reason"}, table);
  }
  WriteEnvironment(doc, rows);
  WriteFileAtomically(dir + "/report.md", doc.Markdown());
  WriteFileAtomically(dir + "/report.html", doc.Html("mbbench report: " + dir));
  return static_cast<int>(rows.size());
}

}  // namespace mbb
