// `mbbench report DIR`: merges every result under DIR (shards included) into report.md and
// report.html, one table per problem (status, steps, median wall time, time per step, error
// against the reference, energy and constraint drift) with the machine the times were
// measured on, and a work-precision plot per problem (error vs median wall time) drawn by
// gnuplot when it is installed (the tables do not need it).
#pragma once

#include <string>

namespace mbb {

/// Writes DIR/report.md, DIR/report.html and DIR/plots/*.png; returns the number of results.
int WriteReport(const std::string& dir);

}  // namespace mbb
