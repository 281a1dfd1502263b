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
#include "harness/report_plot_lines.h"
#include "harness/report_verdicts.h"

namespace mbb {

namespace {

namespace fs = std::filesystem;

std::string Num(const std::optional<double>& x, const char* format = "%.3g") {
  return FormatNumber(x, format);
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

// The status colours of the HTML tables (docs/reports.md, "Verdicts"); the Markdown spells
// the same verdicts out in the cells.
constexpr const char* kStatusStyle =
    "td.ok{background:#d8f0d8}td.inaccurate{background:#fff0b0}td.failed{background:#f6c8c8}"
    "td.time_limit{background:#d8e4f6}td.unstable{background:#f9d9b0}td.na{background:#e8e8e8;"
    "color:#555}"
    "td.mixed{background:#f9e4c8}td.flag{background:#f6c8c8;font-weight:bold}"
    "td.noisy{background:#e4e0f4}td.left{text-align:left}";

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
  // `classes`, when given, holds a CSS class per cell ("" for none): the status colours.
  void Table(const std::vector<std::string>& header,
             const std::vector<std::vector<std::string>>& rows,
             const std::vector<std::vector<std::string>>& classes = {}) {
    md_ << "|";
    html_ << "<table><tr>";
    for (const auto& h : header) md_ << " " << MdCell(h) << " |", html_ << "<th>" << Escape(h);
    md_ << "\n|";
    for (size_t i = 0; i < header.size(); ++i) md_ << "---|";
    md_ << "\n";
    html_ << "</tr>\n";
    for (size_t i = 0; i < rows.size(); ++i) {
      md_ << "|";
      html_ << "<tr>";
      for (size_t k = 0; k < rows[i].size(); ++k) {
        const std::string& c = rows[i][k];
        const std::string css = i < classes.size() && k < classes[i].size() ? classes[i][k] : "";
        md_ << " " << MdCell(c) << " |";
        html_ << (css.empty() ? "<td>" : "<td class='" + css + "'>") << Escape(c);
      }
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
           "#bbb;padding:2px 6px;text-align:right}img{max-width:100%}" +
           kStatusStyle + "</style>\n" + html_.str();
  }

 private:
  std::ostringstream md_, html_;
};

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

// The grid cell of one (problem, method) and its CSS class: status, error and time of a
// single run, or the count of runs per status (inaccurate ok runs apart) and the best error.
std::pair<std::string, std::string> GridCell(const std::vector<const ResultSummary*>& runs,
                                             std::map<std::string, int>& notes) {
  if (runs.empty()) return {"", ""};
  if (runs.size() == 1) {
    const ResultSummary& r = *runs.front();
    if (r.status == "not_applicable") {
      const int note = notes.emplace(r.message, static_cast<int>(notes.size()) + 1).first->second;
      return {"n/a [" + std::to_string(note) + "]", "na"};
    }
    std::string cell = StatusText(r);
    if (r.error_rel) cell += " " + Num(r.error_rel, "%.1e");
    if (r.wall_median) cell += " " + Num(r.wall_median, "%.2g") + "s";
    if (!r.warnings.empty()) cell += " (!)";
    return {cell, StatusClass(r)};
  }
  std::map<std::string, int> counts;
  std::set<std::string> classes;
  std::optional<double> best;
  bool warned = false;
  for (const ResultSummary* r : runs) {
    ++counts[StatusText(*r)];
    classes.insert(StatusClass(*r));
    warned = warned || !r->warnings.empty();
    if (r->status == "ok" && r->error_rel)
      best = std::min(best.value_or(*r->error_rel), *r->error_rel);
  }
  std::string cell;
  for (const auto& [status, count] : counts)
    cell += (cell.empty() ? "" : ", ") + std::to_string(count) + " " + status;
  if (best) cell += "; best " + Num(best, "%.1e");
  if (warned) cell += " (!)";
  // One class when every run has it; "mixed" when ok runs sit beside failed or unstable ones.
  std::string css = classes.size() == 1 ? *classes.begin() : "mixed";
  if (classes.size() > 1 && !classes.count("failed") && !classes.count("unstable") &&
      !classes.count("time_limit"))
    css = classes.count("inaccurate") ? "inaccurate" : "ok";
  return {cell, css};
}

void WriteGrid(Document& doc, const std::vector<ResultSummary>& rows,
               const std::set<std::string>& problems) {
  std::set<std::string> methods;
  for (const auto& r : rows) methods.insert(r.method);
  doc.Heading(2, "Method x problem grid");
  doc.Paragraph(
      "Each cell: status, max relative position error against the reference, median wall time "
      "[s] (one run), or the count of runs per status and the best error (several). "
      "ok (inaccurate): an ok run whose error exceeds " +
      Num(kInaccurateError, "%g") +
      ", whose energy drift passed the warning threshold, or whose outputs are not meaningful "
      "(the run table says which). (!): the run has warnings (listed in its run table). "
      "failed (time limit): stopped by the run's time limit (CPU time, --time-limit), which says "
      "nothing of the method's numerics; failed (step limit): max_steps used up; failed alone: "
      "a numerical failure. "
      "n/a [k]: not applicable, reason k below. Colours (HTML): green ok, yellow ok but "
      "inaccurate, red failed, blue failed at the time limit, orange unstable or mixed, grey "
      "not applicable.");
  std::map<std::string, int> notes;
  std::vector<std::string> header = {"problem"};
  header.insert(header.end(), methods.begin(), methods.end());
  std::vector<std::vector<std::string>> table, classes;
  for (const auto& problem : problems) {
    std::vector<std::string> line = {problem}, css = {"left"};
    for (const auto& method : methods) {
      std::vector<const ResultSummary*> runs;
      for (const auto& r : rows)
        if (r.problem == problem && r.method == method) runs.push_back(&r);
      const auto [cell, cell_class] = GridCell(runs, notes);
      line.push_back(cell);
      css.push_back(cell_class);
    }
    table.push_back(line);
    classes.push_back(css);
  }
  doc.Table(header, table, classes);
  std::vector<std::string> texts;
  for (const auto& r : rows) texts.push_back(StatusText(r));
  doc.Paragraph(StatusCountsLine(texts) + ".");
  if (!notes.empty()) {
    std::vector<std::vector<std::string>> reasons(notes.size());
    for (const auto& [reason, k] : notes) reasons[k - 1] = {std::to_string(k), reason};
    doc.Table({"note", "not applicable because"}, reasons);
  }
}

// Everything a reader must know beside the numbers of a run, in full (never cut: the hint
// at the end of a message is often the useful part): the message of a run that is not ok,
// why an ok run is inaccurate, and every warning of the result (a moved initial state,
// energy drift, a setting chosen for the method).
std::string RunNotes(const ResultSummary& r) {
  std::string notes = r.status == "ok" ? "" : r.message;
  auto add = [&](const std::string& text) { notes += (notes.empty() ? "" : "; ") + text; };
  const auto reasons = InaccuracyReasons(r);
  for (size_t i = 0; i < reasons.size(); ++i) add((i == 0 ? "inaccurate: " : "") + reasons[i]);
  for (const auto& w : r.warnings) add("warning: " + w);
  return notes;
}

void WriteRunTable(Document& doc, const std::vector<ResultSummary>& rows,
                   const std::string& problem) {
  std::vector<std::vector<std::string>> table, classes;
  for (const auto& r : rows) {
    if (r.problem != problem) continue;
    const std::string noise = NoiseReason(r);
    std::string spread =
        r.wall_min && r.wall_max ? Num(r.wall_min) + " .. " + Num(r.wall_max) : std::string("-");
    if (!noise.empty()) spread += " (noisy: " + noise + ")";
    table.push_back({ConfigurationLabel(r), SweptValue(r), StatusText(r), std::to_string(r.steps),
                     Num(r.wall_median), spread, Num(r.time_per_step), Num(r.error_rel, "%.2e"),
                     Num(r.scd, "%.1f"), Num(r.energy_rel_drift, "%.2e"),
                     Num(r.position_residual, "%.2e"), RunNotes(r)});
    std::vector<std::string> css(table.back().size());
    css[0] = css.back() = "left";
    css[2] = StatusClass(r);
    if (!noise.empty()) css[4] = css[5] = "noisy";
    classes.push_back(css);
  }
  doc.Table({"configuration", "swept", "status", "steps", "wall [s] (median)",
             "wall min .. max [s]", "s/step", "error [-]", "scd", "energy rel. drift [-]",
             "max |Phi| [model units]", "message, warnings"},
            table, classes);
}

// The verdict cell of an order row and whether it is a flag.
std::pair<std::string, bool> OrderVerdictCell(const OrderFit& f) {
  const std::string flag = OrderFlag(f);
  if (f.declared <= 0) return {"-", false};
  if (flag.empty()) return {"as declared", false};
  if (flag == "below" || flag == "above") return {"ORDER " + flag + " declared", true};
  return {flag + " (fewer than two runs the reference resolves)", false};
}

void WriteOrders(Document& doc, const std::vector<OrderFit>& fits, const std::string& problem) {
  std::vector<std::vector<std::string>> table, classes;
  for (const auto& f : fits) {
    if (f.problem != problem) continue;
    const auto [verdict, flagged] = OrderVerdictCell(f);
    const bool measured = std::isfinite(f.observed);
    table.push_back({f.configuration, measured ? Num(f.observed, "%.2f") : "-",
                     f.declared > 0 ? std::to_string(f.declared) : "-",
                     f.declared > 0 && measured ? Num(f.observed - f.declared, "%+.2f") : "-",
                     verdict, measured ? Num(f.h_coarse) + " -> " + Num(f.h_fine) : "-",
                     Num(f.slope, "%.2f"),
                     std::to_string(f.points) + " (" + std::to_string(f.resolved) + " resolved)",
                     Num(f.h_min) + " .. " + Num(f.h_max)});
    classes.push_back({"left", "", "", "", flagged ? "flag" : "", "", "", "", ""});
  }
  if (table.empty()) return;
  doc.Paragraph(
      "Observed order by the conformance suite's rule (one function, "
      "methods/common/observed_order.h): the order the refinement between the two finest step "
      "sizes shows, log(e_coarse / e_fine) / log(h_coarse / h_fine) of the max relative "
      "position errors, over the fixed-step runs whose error the reference resolves (scd not "
      "capped at the reference's digits); flagged when it differs from the declared order (the "
      "method's promise, mbbench list methods) by more than " +
      Num(kOrderSlack, "%g") +
      ", the slack of the conformance suite's order check. The least-squares slope over all "
      "the runs is shown beside it, not judged (coarse pre-asymptotic steps and the "
      "reference's floor pull it). The convergence plot draws a slope triangle of the declared "
      "order under each line's finest point.");
  doc.Table({"configuration", "observed order", "declared order", "difference", "verdict",
             "h pair [s]", "least-squares slope", "runs", "h [s]"},
            table, classes);
}

void WriteStability(Document& doc, const std::vector<StabilitySummary>& results) {
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
    const std::string parameters = NonDefaultProblemParameters(s.problem, s.problem_parameters);
    const std::string problem = s.problem + (parameters.empty() ? "" : " " + parameters);
    table.push_back({problem, ConfigurationLabel(as_run), Num(s.h_max_stable, "%.4g"),
                     Num(s.h_min_unstable, "%.4g"), s.criterion, Num(s.t_end),
                     std::to_string(s.trials), s.message});
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
      "median and the largest deviation from it. A run's tolerance is 100 (rtol + atol) (1 + "
      "|median|) when adaptive, 100 h^p (1 + |median|) at a fixed step of order p. Two runs "
      "contradict each other when their values differ by more than the sum of their "
      "tolerances, so a tight run is not flagged for sitting within its own tolerance of the "
      "truth while looser runs set the median. DISAGREE: some pair contradicts; the run named "
      "is the one that contradicts the most others, with its deviation from the median and "
      "its own tolerance: at least one method is wrong there (or the problem is chaotic over "
      "the horizon).");
  std::vector<std::vector<std::string>> table, classes;
  for (const auto& a : agreement) {
    const std::string culprit =
        a.disagree ? a.outlier + ": deviation " + Num(a.outlier_deviation, "%.2e") +
                         ", tolerance " + Num(a.outlier_tolerance, "%.2e") + ", contradicts " +
                         std::to_string(a.outlier_conflicts) + " of " + std::to_string(a.runs - 1) +
                         " other runs"
                   : "-";
    table.push_back({a.problem, a.output, std::to_string(a.runs), Num(a.median, "%.6g"),
                     Num(a.max_deviation, "%.2e"), a.farthest, a.disagree ? "DISAGREE" : "agree",
                     culprit});
    classes.push_back({"left", "left", "", "", "", "left", a.disagree ? "failed" : "ok", "left"});
  }
  doc.Table({"problem", "output", "runs", "median", "max deviation", "farthest run", "verdict",
             "run that breaks the agreement"},
            table, classes);
}

// One row per machine and build, counting the runs and the stability searches made there.
void WriteEnvironment(Document& doc, const std::vector<ResultSummary>& rows,
                      const std::vector<StabilitySummary>& stability) {
  struct Range {
    std::string first_date, last_date;
    std::optional<double> load_min, load_max;
    int runs = 0, searches = 0;
  };
  std::map<std::vector<std::string>, Range> environments;
  std::vector<const ResultSummary*> documents;
  for (const auto& r : rows) documents.push_back(&r);
  for (const auto& s : stability) documents.push_back(&s.environment);
  for (size_t i = 0; i < documents.size(); ++i) {
    const ResultSummary& r = *documents[i];
    const std::vector<std::string> key = {
        r.git_commit.substr(0, 12) + (r.git_dirty ? " (dirty)" : ""),
        r.compiler,
        r.flags + " (" + r.build_type + ")",
        "Eigen " + r.eigen + ", SUNDIALS " + r.sundials + ", Boost " + r.boost + ", Simbody " +
            (r.simbody.empty() ? "-" : r.simbody),
        r.cpu + ", " + std::to_string(r.cores) + " cores",
        r.host.empty() ? "-" : r.host};
    Range& range = environments[key];
    ++(i < rows.size() ? range.runs : range.searches);
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
    line.push_back(std::to_string(range.searches));
    table.push_back(line);
  }
  doc.Table({"commit", "compiler", "flags", "libraries", "CPU", "host", "dates (UTC)",
             "load average at run start (1 min)", "runs", "stability searches"},
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
                std::vector<UnreadableResult>* skipped, const std::string& error_measure) {
  const ErrorMeasure measure = ErrorMeasureNamed(error_measure);  // refused before any work
  const size_t unreadable_before = unreadable.size();
  std::vector<ResultSummary> rows =
      WithProblemLabels(ReadResultSummaries(dir, &unreadable, skipped));
  LabelConfigurations(rows);
  std::set<std::string> problems;
  for (const auto& r : rows) problems.insert(r.problem);
  const bool gnuplot = HaveGnuplot();
  const std::string plot_dir = dir + "/plots";
  const std::vector<OrderFit> fits = FitObservedOrders(rows);
  const std::vector<StabilitySummary> stability = ReadStabilitySummaries(dir, &unreadable);

  Document doc;
  doc.Heading(1, "mbbench report: " + dir);
  doc.Paragraph(
      std::to_string(rows.size()) + " results and " + std::to_string(stability.size()) +
      " stability searches. Times are medians of repeats (metrics.wall_time_s); errors in the "
      "tables are max relative position errors against the problem's reference, in the "
      "plots the " +
      measure.axis + " (report --error " + measure.name +
      "). A configuration is a method with its non-default parameters; h or rtol is the "
      "swept value.");
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
          "median wall time [s] (bars: min .. max of the repeats)", measure.axis, true, true,
          ErrorLines(rows, problem, WallOf, measure, true)});
    plot({FileName(problem) + "_work_steps", problem + ": work-precision (error vs steps)",
          "accepted steps [-]", measure.axis, true, true,
          ErrorLines(rows, problem, StepsOf, measure)});
    std::vector<PlotLine> convergence = ErrorLines(rows, problem, StepOf, measure);
    if (measure.name == "max") {  // the fitted orders are of the position error
      const auto triangles = SlopeTriangles(convergence, fits, problem);
      convergence.insert(convergence.end(), triangles.begin(), triangles.end());
    }
    plot({FileName(problem) + "_convergence", problem + ": dt-convergence (fixed-step runs)",
          "step size h [s]", measure.axis, true, true, convergence});
    WriteOrders(doc, fits, problem);
    plot({FileName(problem) + "_drift", problem + ": energy balance along the run (--series)",
          "time t [s]", "E(t) - E(0) - W(t) [J]", false, false, DriftLines(dir, rows, problem),
          false});
  }
  WriteStability(doc, stability);
  WriteAgreement(doc, rows);
  if (unreadable.size() > unreadable_before) {
    doc.Heading(2, "Unreadable files");
    std::vector<std::vector<std::string>> table;
    for (size_t i = unreadable_before; i < unreadable.size(); ++i)
      table.push_back({unreadable[i].file, unreadable[i].reason});
    doc.Table({"file", "reason"}, table);
  }
  WriteEnvironment(doc, rows, stability);
  WriteFileAtomically(dir + "/report.md", doc.Markdown());
  WriteFileAtomically(dir + "/report.html", doc.Html("mbbench report: " + dir));
  return static_cast<int>(rows.size());
}

}  // namespace mbb
