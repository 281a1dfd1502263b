// `mbbench compare DIR_A DIR_B` (docs/reports.md): pairs the runs of two result directories
// and says, per pair, whether B's timing changed significantly from A's and whether its
// accuracy did, as Google Benchmark's tools/compare.py does for benchmark timings: a
// two-sided Mann-Whitney U test of the repeat times (harness/mann_whitney.h) at level alpha,
// with the median change beside it.
//
// Timing verdicts: `slower` / `faster` when p < alpha and the medians differ by more than
// min_change (a shift smaller than that is not called a change even when it is consistent:
// two sessions on one machine differ by a few percent with no change of code, through
// frequency scaling, cache and page state, and other jobs); `no significant change`
// otherwise; `too few repeats` when even two completely separated samples of these sizes
// could not reach p < alpha (3 against 3 cannot: p = 0.081); `not timed` when a side has no
// repeat times (repeats 0, not ok, or a result written before metrics.wall_time_s.times).
// Accuracy verdicts: `status A -> B` when the status changed; else `less accurate` / `more
// accurate` when the error against the reference (position, else outputs) changed by more
// than a factor kAccuracyFactor; `same accuracy`; `no error` when a side has none.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "harness/result_summary.h"

namespace CLI {
class App;
}

namespace mbb {

/// A factor 2 in the error (0.3 significant digits): the smallest change a real cause
/// makes (halving h of a first-order method); round-off differences of step control
/// between builds move errors by far less.
constexpr double kAccuracyFactor = 2.0;

struct CompareOptions {
  std::string dir_a, dir_b;
  std::string alpha = "0.05", min_change = "0.05";  // as given; parsed by RunCompare
  /// Pair runs by problem and method configuration alone, ignoring h, rtol and atol (the
  /// same runs at another step or tolerance); otherwise those must be equal too.
  bool ignore_settings = false;
};

/// One pair of runs (or a run found on one side only).
struct ComparedRun {
  std::string problem, configuration, settings_a, settings_b;
  std::string file_a, file_b;  // "" on the side that lacks it
  std::optional<double> median_a, median_b, p_value;
  int repeats_a = 0, repeats_b = 0;
  std::string timing, accuracy;  // the verdicts of the header comment
  std::optional<double> error_a, error_b;
};

struct Comparison {
  std::vector<ComparedRun> runs;       // paired runs first, then those on one side only
  std::vector<std::string> ambiguous;  // keys with several runs on a side (not compared)
  int paired = 0, slower = 0, faster = 0, less_accurate = 0, status_changed = 0;
};

/// Pairs `a` with `b` and judges each pair (alpha, min_change as in the header comment).
Comparison CompareResultSets(const std::vector<ResultSummary>& a,
                             const std::vector<ResultSummary>& b, double alpha, double min_change,
                             bool ignore_settings);

/// Adds the `compare` subcommand with its options bound to `o`.
CLI::App* AddCompareCommand(CLI::App& app, CompareOptions& o);

/// Reads both directories, prints the table and a summary line; exit 0 when no run got
/// significantly slower, less accurate or changed status, 1 otherwise (and when no run is in
/// both, or a directory holds unreadable results); InputError on bad input.
int RunCompare(const CompareOptions& o);

}  // namespace mbb
