#include "harness/cli_options.h"

#include <CLI/CLI.hpp>
#include <cmath>

namespace mbb {

// Numbers on the command line go through ParseNumber (decimals and "a/b" fractions) so the
// messages name the option; counts must be whole numbers within [lo, hi].
double Number(const std::string& text, const std::string& option) {
  return ParseNumber(text, option);
}

double PositiveNumber(const std::string& text, const std::string& option) {
  const double x = ParseNumber(text, option);
  if (!(x > 0.0)) throw InputError(option + " = " + text + ": must be > 0");
  return x;
}

int Count(const std::string& text, const std::string& option, long lo, long hi) {
  const double x = ParseNumber(text, option);
  if (x != std::floor(x) || x < static_cast<double>(lo) || x > static_cast<double>(hi))
    throw InputError(option + " = " + text + ": must be a whole number from " + std::to_string(lo) +
                     " to " + std::to_string(hi));
  return static_cast<int>(x);
}

int Jobs(const std::string& text) { return text.empty() ? 1 : Count(text, "--jobs", 1, kMaxJobs); }

void AddProblemOptions(CLI::App* cmd, ProblemOptions& o, bool several) {
  if (several)
    cmd->add_option("-p,--problem", o.problems,
                    "catalogue problem id (mbbench list problems); repeatable")
        ->expected(1)
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  else
    cmd->add_option("-p,--problem", o.problem, "catalogue problem id (mbbench list problems)");
  cmd->add_option("--model", o.model, "JSON model file instead of -p (docs/model-format.md)");
  cmd->add_option("--param", o.params, "problem parameter key=value (repeatable)")
      ->type_name("K=V")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  cmd->add_option("--t-end", o.t_end, "end time, s (default: the problem's horizon)")
      ->type_name("T");
}

void AddMethodOptions(CLI::App* cmd, CommonOptions& o, bool several) {
  if (several)
    cmd->add_option("-m,--method", o.methods, "method name (mbbench list methods); repeatable")
        ->expected(1)
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  else
    cmd->add_option("-m,--method", o.method, "method name (mbbench list methods)");
  cmd->add_option("--set", o.sets,
                  "method parameter or setting key=value: h, rtol, atol, scheme=..., "
                  "formulation=... (repeatable)")
      ->type_name("K=V")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  cmd->add_option("--h", o.h, "fixed step size, s (the same as --set h=H)")->type_name("H");
  cmd->add_flag("--allow-unused", o.allow_unused,
                "accept a setting the method does not use (recorded as a warning)");
}

double TimeLimit(const std::string& text) {
  const double limit = PositiveNumber(text, "--time-limit");
  if (!std::isfinite(limit)) throw InputError("--time-limit " + text + ": must be finite");
  return limit;
}

void ApplyProblemOptions(const ProblemOptions& p, RunSpec& spec) {
  spec.problem = p.problem;
  spec.model_file = p.model;
  if (!p.problem.empty() && !p.model.empty())
    throw InputError("give either -p PROBLEM or --model FILE, not both");
  for (const auto& a : p.params) spec.problem_parameters.SetFromAssignment(a, "--param");
  if (!p.t_end.empty()) {
    spec.t_end = Number(p.t_end, "--t-end");
    if (!(spec.t_end > 0.0)) throw InputError("--t-end = " + p.t_end + ": must be > 0");
  }
}

RunOptions ToRunOptions(const CommonOptions& c, const std::string& default_out) {
  RunOptions o;
  o.out = c.out.empty() ? default_out : c.out;
  o.spec.method = c.method;
  o.has_problem = !c.problem.empty() || !c.model.empty();
  o.has_method = !c.method.empty();
  ApplyProblemOptions(c, o.spec);
  ParameterSet sets;
  for (const auto& a : c.sets) sets.SetFromAssignment(a, "--set");
  o.spec.SetFromText(sets, "--set");
  if (!c.h.empty()) {
    if (o.spec.settings.h) throw InputError("--h and --set h=: give the step once");
    o.spec.SetFromText("h", c.h, "--h");
  }
  o.spec.allow_unused = c.allow_unused;
  return o;
}

}  // namespace mbb
