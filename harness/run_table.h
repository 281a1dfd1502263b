// The table `run` and `sweep` print when their runs are done: one row per run (problem,
// method, settings, status, steps, median wall time, energy drift, constraint residual,
// error), columns as wide as their longest cell, the messages, the reasons of an inaccurate
// ok run and every warning under the row, and a line counting the runs by status.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "harness/run_record.h"

namespace mbb {

/// `x` printed with `format`, "-" when empty.
std::string Cell(const std::optional<double>& x, const char* format = "%.2e");

/// One row of the table: a run's record when it ran, else its index line (status, message).
struct TableRow {
  std::string problem, method, status, message;
  const RunRecord* record = nullptr;  // null: the run was not made (invalid, kept, failed)
  std::string note;                   // printed under the row ("rerun: ...")
};

/// Prints the header and every row, the columns sized to the rows, then a line counting the
/// runs by status ("5 runs: 3 ok, 1 ok (inaccurate), 1 failed (time limit)").
void PrintRunTable(const std::vector<TableRow>& rows);

/// The verdict on a run as the report gives it (report_verdicts.h StatusLine): "ok", "ok
/// (inaccurate: position error 0.43 > 0.01)", "failed (time limit)", ...
std::string RunStatusLine(const RunRecord& record);

}  // namespace mbb
