#include "harness/run_table.h"

#include <algorithm>
#include <cstdio>

#include "harness/report_analysis.h"
#include "harness/report_verdicts.h"
#include "harness/result_document.h"
#include "harness/result_summary.h"
#include "problems/core/format.h"

namespace mbb {

std::string Cell(const std::optional<double>& x, const char* format) {
  return x ? FormatWith(format, *x) : std::string("-");
}

namespace {

// The run as the report reads it back from its file: judged by the same rules.
ResultSummary Judged(const RunRecord& record) {
  return SummaryOfDocument(ResultDocumentOf(record), record.problem_id + "_" + record.method_id);
}

// The settings of a run in the table: the step or the tolerance that was used and the
// method's non-default parameters, so the rows of a sweep say what differs.
std::string SettingsCell(const RunRecord& r) {
  std::string s;
  if (r.h && !r.rtol)
    s = "h=" + FormatWith("%.3g", *r.h);
  else if (r.rtol)
    s = "rtol=" + FormatWith("%.3g", *r.rtol);
  const std::string parameters = NonDefaultParameters(r.method_id, r.method_parameters);
  if (!parameters.empty()) s += (s.empty() ? "" : " ") + parameters;
  return s.empty() ? "-" : s;
}

// Column widths of the run table: the longest problem id, method name and settings among the
// rows, so that no row shifts the columns after it.
struct TableWidths {
  int problem = 7, method = 6, settings = 8, status = 14;
};

void PrintTableHeader(const TableWidths& w) {
  std::printf("%-*s %-*s %-*s %-*s %9s %10s %10s %10s %10s\n", w.problem, "problem", w.method,
              "method", w.settings, "settings", w.status, "status", "steps", "wall[s]", "energy",
              "constraint", "error");
  std::printf("%-*s %-*s %-*s %-*s %9s %10s %10s %10s %10s\n", w.problem, "", w.method, "",
              w.settings, "", w.status, "", "", "(median)", "rel.drift", "|Phi|max", "rel.max[-]");
}

void PrintTableRow(const RunRecord& r, const std::string& status, const std::string& line,
                   const TableWidths& w) {
  std::optional<double> wall, err;
  if (r.wall_time) wall = r.wall_time->median;
  if (r.metrics.error) err = r.metrics.error->position_max_rel;
  const bool ran = r.status == RunStatus::kOk || r.metrics.samples > 0;
  std::printf("%-*s %-*s %-*s %-*s %9ld %10s %10s %10s %10s\n", w.problem, r.problem_id.c_str(),
              w.method, r.method_id.c_str(), w.settings, SettingsCell(r).c_str(), w.status,
              status.c_str(), r.counters.steps, Cell(wall, "%.3g").c_str(),
              ran ? Cell(r.metrics.energy_max_rel_drift).c_str() : "-",
              ran ? Cell(r.metrics.position_residual_max).c_str() : "-", Cell(err).c_str());
  if (r.status != RunStatus::kOk && !r.message.empty())
    std::printf("    -> %s\n", r.message.c_str());
  if (line != status) std::printf("    -> %s\n", line.c_str());  // why it is inaccurate
  for (size_t k = 0; k < r.warnings.size(); ++k)  // the problem's too (a moved initial state)
    std::printf("    -> warning: %s\n", r.warnings[k].c_str());
  std::fflush(stdout);
}

}  // namespace

std::string RunStatusLine(const RunRecord& record) { return StatusLine(Judged(record)); }

void PrintRunTable(const std::vector<TableRow>& rows) {
  TableWidths widths;
  std::vector<std::string> statuses, lines;  // StatusText and StatusLine of each row
  for (const TableRow& row : rows) {
    widths.problem = std::max(widths.problem, static_cast<int>(row.problem.size()));
    widths.method = std::max(widths.method, static_cast<int>(row.method.size()));
    if (row.record != nullptr) {
      const ResultSummary judged = Judged(*row.record);
      statuses.push_back(StatusText(judged));
      lines.push_back(StatusLine(judged));
      widths.settings =
          std::max(widths.settings, static_cast<int>(SettingsCell(*row.record).size()));
    } else {
      statuses.push_back(row.status);
      lines.push_back(row.status);
    }
    widths.status = std::max(widths.status, static_cast<int>(statuses.back().size()));
  }
  PrintTableHeader(widths);
  for (size_t i = 0; i < rows.size(); ++i) {
    const TableRow& row = rows[i];
    if (row.record != nullptr) {
      PrintTableRow(*row.record, statuses[i], lines[i], widths);
      if (!row.note.empty()) std::printf("    -> %s\n", row.note.c_str());
    } else {
      std::printf("%-*s %-*s %-*s %-*s %s\n", widths.problem, row.problem.c_str(), widths.method,
                  row.method.c_str(), widths.settings, "", widths.status, row.status.c_str(),
                  row.message.c_str());
    }
  }
  std::printf("%s\n", StatusCountsLine(statuses).c_str());
}

}  // namespace mbb
