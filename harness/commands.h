// The commands of `mbbench` (docs/design.md "CLI"). Each is a CLI11 subcommand with its
// options and the function that runs it once the command line is parsed; RunCli (cli.cc)
// lists them in one table. A new command is one more function here, its file, and its line
// in that table.
#pragma once

#include <functional>

namespace CLI {
class App;
}

namespace mbb {

struct Command {
  CLI::App* app = nullptr;   // the subcommand, with its options bound
  std::function<int()> run;  // runs it (exit code; InputError for bad input)
};

Command ListCommand(CLI::App& app);       // command_list.cc
Command RunCommand(CLI::App& app);        // command_run.cc
Command StabilityCommand(CLI::App& app);  // command_stability.cc
Command SweepCommand(CLI::App& app);      // command_run.cc
Command CheckCommand(CLI::App& app);      // command_check.cc
Command FiguresCommand(CLI::App& app);    // command_figures.cc
Command ReportCommand(CLI::App& app);     // command_report.cc
Command ExportCommand(CLI::App& app);     // command_report.cc
Command ReferenceCommand(CLI::App& app);  // command_reference.cc
Command FastestCommand(CLI::App& app);    // command_check.cc
Command CompareCommand(CLI::App& app);    // command_report.cc
Command MergeCommand(CLI::App& app);      // command_run.cc

}  // namespace mbb
