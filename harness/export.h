// `mbbench export DIR --csv|--json`: every result under DIR as one tidy table, a row per run
// and a column per setting, parameter, metric and output (numbers as numbers), for pandas,
// Matlab or a spreadsheet (docs/reports.md).
#pragma once

#include <string>
#include <vector>

#include "harness/result_summary.h"

namespace mbb {

/// The table as CSV: a header row, then one row per result; empty cells for missing values.
std::string ResultsToCsv(const std::vector<ResultSummary>& rows);
/// The same table as a JSON array of row objects (missing values are null).
std::string ResultsToJsonTable(const std::vector<ResultSummary>& rows);

}  // namespace mbb
