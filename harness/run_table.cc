#include "harness/run_table.h"

#include <algorithm>
#include <cstdio>

#include "harness/report_analysis.h"
#include "problems/format.h"

namespace mbb {

std::string Cell(const std::optional<double>& x, const char* format) {
  return x ? FormatWith(format, *x) : std::string("-");
}

namespace {

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
  int problem = 7, method = 6, settings = 8;
};

void PrintTableHeader(const TableWidths& w) {
  std::printf("%-*s %-*s %-*s %-14s %9s %10s %10s %10s %10s\n", w.problem, "problem", w.method,
              "method", w.settings, "settings", "status", "steps", "wall[s]", "energy",
              "constraint", "error");
  std::printf("%-*s %-*s %-*s %-14s %9s %10s %10s %10s %10s\n", w.problem, "", w.method, "",
              w.settings, "", "", "", "(median)", "rel.drift", "|Phi|max", "rel.max[-]");
}

void PrintTableRow(const RunRecord& r, const TableWidths& w) {
  std::optional<double> wall, err;
  if (r.wall_time) wall = r.wall_time->median;
  if (r.metrics.error) err = r.metrics.error->position_max_rel;
  const bool ran = r.status == RunStatus::kOk || r.metrics.samples > 0;
  std::printf("%-*s %-*s %-*s %-14s %9ld %10s %10s %10s %10s\n", w.problem, r.problem_id.c_str(),
              w.method, r.method_id.c_str(), w.settings, SettingsCell(r).c_str(),
              ToString(r.status), r.counters.steps, Cell(wall, "%.3g").c_str(),
              ran ? Cell(r.metrics.energy_max_rel_drift).c_str() : "-",
              ran ? Cell(r.metrics.position_residual_max).c_str() : "-", Cell(err).c_str());
  if (r.status != RunStatus::kOk && !r.message.empty())
    std::printf("    -> %s\n", r.message.c_str());
  for (size_t k = 0; k < r.warnings.size(); ++k)  // the problem's too (a moved initial state)
    std::printf("    -> warning: %s\n", r.warnings[k].c_str());
  std::fflush(stdout);
}

}  // namespace

void PrintRunTable(const std::vector<TableRow>& rows) {
  TableWidths widths;
  for (const TableRow& row : rows) {
    widths.problem = std::max(widths.problem, static_cast<int>(row.problem.size()));
    widths.method = std::max(widths.method, static_cast<int>(row.method.size()));
    if (row.record != nullptr)
      widths.settings =
          std::max(widths.settings, static_cast<int>(SettingsCell(*row.record).size()));
  }
  PrintTableHeader(widths);
  for (const TableRow& row : rows) {
    if (row.record != nullptr) {
      PrintTableRow(*row.record, widths);
      if (!row.note.empty()) std::printf("    -> %s\n", row.note.c_str());
    } else {
      std::printf("%-*s %-*s %-*s %-14s %s\n", widths.problem, row.problem.c_str(), widths.method,
                  row.method.c_str(), widths.settings, "", row.status.c_str(), row.message.c_str());
    }
  }
}

}  // namespace mbb
