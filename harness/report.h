// `mbbench report DIR`: merges every result under DIR (shards included) into report.md and
// report.html, one table per problem (status, steps, median wall time, time per step, error
// against the reference, energy and constraint drift) with the machine the times were
// measured on, and a work-precision plot per problem (error vs median wall time) drawn by
// gnuplot when it is installed (the tables do not need it). It judges as well as lists:
// status colours, "ok (inaccurate)", noisy timings, order flags, every warning of a result
// (harness/report_verdicts.h, docs/reports.md "Verdicts").
#pragma once

#include <string>
#include <vector>

#include "harness/result_summary.h"

namespace mbb {

/// Writes DIR/report.md, DIR/report.html and DIR/plots/*.png; returns the number of results.
/// A .json file under DIR that is not a readable result (truncated, malformed) throws
/// InputError naming it.
int WriteReport(const std::string& dir);

/// As above, but the unreadable files (results and stability documents) are appended to
/// `unreadable` (file and reason) and listed in the report, which is still written from the
/// readable ones; JSON files that are not results are appended to `skipped`, when given
/// (ReadResultSummaries says which).
/// `error_measure` is the error the plots draw (`report --error`): max (the max relative
/// position error), output (max relative output error) or energy (max relative energy
/// drift); "final" and "l2" are refused with InputError (result documents do not record them).
int WriteReport(const std::string& dir, std::vector<UnreadableResult>& unreadable,
                std::vector<UnreadableResult>* skipped = nullptr,
                const std::string& error_measure = "max");

}  // namespace mbb
