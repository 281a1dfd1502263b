// `mbbench check` (check_command.h: reruns or reads every baseline of a tier and compares) and
// `mbbench fastest` (fastest.h: the cheapest configuration of each method meeting criteria).
#include <CLI/CLI.hpp>
#include <memory>

#include "harness/check_command.h"
#include "harness/cli_options.h"
#include "harness/commands.h"
#include "harness/fastest.h"

namespace mbb {

namespace {
struct CheckCommandOptions {
  CheckOptions check;
  std::string jobs;
};
}  // namespace

Command CheckCommand(CLI::App& app) {
  auto o = std::make_shared<CheckCommandOptions>();
  CheckOptions& check_options = o->check;
  CLI::App* check = app.add_subcommand(
      "check", "rerun (or read from --against) every baseline result and compare");
  check->add_option("--baseline", check_options.baseline_dir, "baseline directory")->required();
  check->add_option("--against", check_options.against,
                    "compare the results in this directory instead of rerunning (the files "
                    "both have)");
  check->add_option("--jobs", o->jobs, "baselines rerun in parallel (default 1)")->type_name("N");
  check->add_flag("--update", check_options.update,
                  "rerun every baseline and overwrite it with the new result");
  check->add_option("--reason", check_options.reason,
                    "why the baselines change (with --update; kept in the baseline index)");
  check->add_flag("--strict-configuration", check_options.strict_configuration,
                  "count a baseline run with different settings as a change (exit 1)");
  return {check, [o] {
            CheckOptions options = o->check;
            if (!o->jobs.empty()) options.jobs = Jobs(o->jobs);
            return RunCheck(options);
          }};
}

Command FastestCommand(CLI::App& app) {
  auto o = std::make_shared<FastestOptions>();
  return {AddFastestCommand(app, *o), [o] { return CmdFastest(*o); }};
}

}  // namespace mbb
