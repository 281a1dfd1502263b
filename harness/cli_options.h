// What the commands of the command line share: exit codes, numbers given as text (decimals and
// "a/b" fractions, messages naming the option), and the problem and method options of run,
// stability and reference (docs/design.md "CLI").
#pragma once

#include <string>
#include <vector>

#include "harness/runner.h"

namespace CLI {
class App;
}

namespace mbb {

inline constexpr int kExitOk = 0;
inline constexpr int kExitRunsFailed = 1;
inline constexpr int kExitBadInput = 2;

/// A number given for `option` (decimals and "a/b" fractions); InputError naming the option.
double Number(const std::string& text, const std::string& option);
/// The same, which must be > 0.
double PositiveNumber(const std::string& text, const std::string& option);
/// A whole number within [lo, hi]; InputError naming the option and the range otherwise.
int Count(const std::string& text, const std::string& option, long lo, long hi);

// More threads than this only oversubscribe the machine (and a huge count aborted in
// std::thread); the limit is far above any core count this suite runs on.
inline constexpr long kMaxJobs = 256;

/// `--jobs N` as given ("" for the default of 1).
int Jobs(const std::string& text);

// The options run, stability and reference share, as given (numbers still text).
/// What names the problem of a run: -p or --model, --param, --t-end (run, stability,
/// reference and fastest alike).
struct ProblemOptions {
  std::string problem, model, t_end;
  std::vector<std::string> params;
  std::vector<std::string> problems;  // -p given several times (`run` only)
};

struct CommonOptions : ProblemOptions {
  std::string method, h, out;
  std::vector<std::string> sets;
  std::vector<std::string> methods;  // -m given several times (`run` only)
  bool allow_unused = false;
};

/// -p, --model, --param, --t-end.
/// `several`: -p is repeatable (into `problems`), as `run` takes it.
void AddProblemOptions(CLI::App* cmd, ProblemOptions& o, bool several = false);
/// -m, --set, --h, --allow-unused.
/// `several`: -m is repeatable (into `methods`), as `run` takes it.
void AddMethodOptions(CLI::App* cmd, CommonOptions& o, bool several = false);

struct RunOptions {
  RunSpec spec;
  std::string out = "results/latest";
  bool has_problem = false, has_method = false;
  bool time_limit_given = false;  // --time-limit (else --all-methods uses its default)
};

/// --time-limit SECONDS: > 0 and finite (InputError naming the option otherwise).
double TimeLimit(const std::string& text);

/// -p / --model, --param and --t-end into `spec` (InputError on a malformed value, or on both
/// -p and --model).
void ApplyProblemOptions(const ProblemOptions& p, RunSpec& spec);

/// Turns the common options into a RunSpec; throws InputError on a malformed value.
RunOptions ToRunOptions(const CommonOptions& c, const std::string& default_out);

}  // namespace mbb
