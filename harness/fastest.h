// `mbbench fastest`: for a problem and accuracy criteria, the cheapest configuration of each
// method that meets them (docs/fastest.md). A fixed-step method is searched over h, an
// adaptive one over rtol (atol = rtol * atol_ratio): from a coarse setting the search
// refines by a factor until every criterion passes, then bisects geometrically between
// the last failing and the first passing setting; it brackets by steps (no trial of more
// than twice the steps of a passing configuration, no bisection below 5 % of the steps)
// and stops on the wall-clock budget only as a last guard. The passing configuration is
// then timed (median of the repeats). A method that cannot pass gets the reason.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "harness/cli_options.h"
#include "harness/runner.h"

namespace CLI {
class App;
}

namespace mbb {

/// What the command line gives.
struct FastestOptions : ProblemOptions {
  std::string out, repeats, max_steps, bisections, budget;
  std::vector<std::string> methods, criteria, sets;
};

/// Adds the `fastest` subcommand with its options bound to `o`.
CLI::App* AddFastestCommand(CLI::App& app, FastestOptions& o);

/// Runs the search; prints the table and writes <out>/fastest_<problem>.json.
/// Returns 0 if some method passed, 1 if none did; bad input throws InputError.
int CmdFastest(const FastestOptions& o);

/// One accuracy criterion: a metric of the run record and its upper bound.
struct FastestCriterion {
  std::string name;  // energy_drift | output_error | position_error | constraint_residual
  double bound = 0.0;
};

/// The criterion's metric on a run, or empty with `why` set (no reference, ...).
std::optional<double> CriterionValue(const RunRecord& r, const std::string& name, std::string& why);

/// The names `--criterion` accepts, with what they measure.
const std::map<std::string, std::string>& FastestCriterionNames();

struct FastestTrial {
  double setting;  // h or rtol (knob)
  RunStatus status;
  bool passed;
  long steps;
  std::map<std::string, double> values;  // criterion -> metric
  std::string note;                      // failure message or the failing criterion
  std::string knob;                      // "h", "rtol" or ""
};

/// The other knob's outcome for a method searched over both h and rtol.
struct FastestAlternative {
  std::string knob;
  bool passed = false;
  std::optional<double> setting;
  long steps = 0;
  std::optional<WallTimes> time;
  std::string reason;
};

struct FastestResult {
  std::string method;
  std::string knob;  // "h", "rtol" or "" (a method with neither)
  bool passed = false;
  std::optional<double> setting;  // the cheapest passing h / rtol
  bool bracketed = false;         // a coarser setting failed (else: the coarsest tried passed)
  std::optional<double> atol;
  long steps = 0;
  std::optional<WallTimes> time;
  std::map<std::string, double> values, margins;  // margin = bound / value
  /// Why it cannot pass; when it passed, empty unless the budget stopped the bisection
  /// (then the bracket a cheaper setting may lie in).
  std::string reason;
  bool budget_spent = false;         // --budget ended the search (a last guard; docs/fastest.md)
  std::vector<FastestTrial> trials;  // every knob's, in search order
  std::vector<FastestAlternative> alternatives;  // the knobs not chosen
};

struct FastestSearch {
  RunSpec base;  // problem, parameters, settings, horizon; method set per search
  std::vector<FastestCriterion> criteria;
  int repeats = 3;
  long max_steps = 200000;  // smallest h tried: horizon / max_steps
  int bisections = 5;
  double budget_s = 30.0;    // no new trial once a method's search took this long
  double atol_ratio = 1e-2;  // atol = rtol * atol_ratio (the suite's default 1e-12 / 1e-10)
};

/// The search for one method (InputError for an unknown method or bad settings).
FastestResult SearchFastest(const FastestSearch& search, const std::string& method);

}  // namespace mbb
