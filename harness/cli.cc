// The mbbench command line: the global options (--reference-dir, --version), the table of
// commands (commands.h), parsing and the exit codes. The commands themselves live in
// command_*.cc.
#include "harness/cli.h"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "harness/cli_options.h"
#include "harness/commands.h"
#include "harness/context.h"
#include "harness/reference_store.h"

namespace mbb {

namespace fs = std::filesystem;

namespace {

// CLI11's words for a first argument that names no command ("A subcommand is required")
// do not say which word was wrong: name it and the commands there are.
std::string ParseErrorMessage(CLI::App& app, const std::vector<std::string>& argv,
                              const CLI::ParseError& e) {
  if (argv.empty() || argv[0].empty() || argv[0][0] == '-') return e.what();
  std::string known;
  for (const CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
    if (sub->check_name(argv[0])) return e.what();
    known += (known.empty() ? "" : ", ") + sub->get_name();
  }
  return "unknown command '" + argv[0] + "' (commands: " + known + ")";
}

// An option given with an empty value (`--out ''`) is a mistake, not a request for the
// default: refused, naming the option, for every option of the command that was run.
void RefuseEmptyValues(const CLI::App& app) {
  for (const CLI::App* sub : app.get_subcommands()) {
    for (const CLI::Option* option : sub->get_options()) {
      if (option->count() == 0 || option->get_expected_min() == 0) continue;  // not given; flags
      for (const std::string& value : option->results())
        if (value.empty())
          throw InputError(sub->get_name() + " " + option->get_name() +
                           ": empty value (leave the option out for its default)");
    }
  }
}

// The global options: --reference-dir DIR, before or after the command (fallthrough: set
// before the subcommands, which inherit it), the same as MBBENCH_REFERENCE_DIR (searched
// first for references; `reference` writes there); --version.
struct GlobalOptions {
  std::string reference_dir;
  bool version = false;
};

void AddGlobalOptions(CLI::App& app, GlobalOptions& o) {
  app.footer("Run 'mbbench COMMAND --help' for the options of a command.");
  app.add_option("--reference-dir", o.reference_dir,
                 "reference directory searched first and written by `reference` (the same as "
                 "MBBENCH_REFERENCE_DIR)")
      ->type_name("DIR");
  app.fallthrough();
  app.add_flag("--version", o.version,
               "print the version, the git commit and the hash of the reference data in use");
  app.require_subcommand(0, 1);
}

int PrintVersion() {
  const RunContext& c = CurrentContext();
  const std::string dir = ReferenceDirectory();
  std::printf("mbbench %s\ncommit %s%s\nreference data %s (%s)\n", c.suite_version.c_str(),
              c.git_commit.c_str(), c.git_dirty ? " (dirty)" : "", ReferenceDataHash().c_str(),
              dir.empty() ? "no reference directory found" : dir.c_str());
  return kExitOk;
}

// Parses argv; the exit code when parsing ends the program (help, a parse error), else -1.
int Parse(CLI::App& app, const std::vector<std::string>& argv) {
  if (argv.size() == 1 && argv[0] == "help") {  // the old spelling of --help
    std::fputs(app.help().c_str(), stdout);
    return kExitOk;
  }
  try {
    std::vector<std::string> reversed(argv.rbegin(), argv.rend());  // CLI11 pops from the back
    app.parse(reversed);
  } catch (const CLI::CallForHelp&) {
    std::fputs(app.help().c_str(), stdout);
    return kExitOk;
  } catch (const CLI::CallForAllHelp&) {
    std::fputs(app.help("", CLI::AppFormatMode::All).c_str(), stdout);
    return kExitOk;
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "mbbench: error: %s\n%s", ParseErrorMessage(app, argv, e).c_str(),
                 argv.empty() ? app.help().c_str() : "run 'mbbench --help' for usage\n");
    return kExitBadInput;
  }
  return -1;
}

// Runs the parsed command; InputError for bad input.
int Dispatch(const CLI::App& app, const GlobalOptions& global,
             const std::vector<Command>& commands) {
  RefuseEmptyValues(app);
  if (!global.reference_dir.empty()) {
    if (!fs::is_directory(global.reference_dir) && !app.got_subcommand("reference"))
      throw InputError("--reference-dir " + global.reference_dir + ": not a directory");
    ::setenv("MBBENCH_REFERENCE_DIR", global.reference_dir.c_str(), 1);
  }
  if (global.version) return PrintVersion();
  for (const Command& command : commands)
    if (command.app->parsed()) return command.run();
  throw InputError("a command is required (run 'mbbench --help' for the commands)");
}

}  // namespace

// One CLI11 subcommand per command; each option is listed by `mbbench COMMAND --help`.
// Options keep their values as text and are parsed by the commands, so every message names
// the option in our words and "1/12" fractions work everywhere.
int RunCli(const std::vector<std::string>& argv) {
  CLI::App app{
      "mbbench: benchmarks and verifies time integrators for constrained multibody "
      "systems.\nExit codes: 0 ok, 1 a run failed or was unstable, 2 bad usage or bad "
      "input.",
      "mbbench"};
  GlobalOptions global;
  AddGlobalOptions(app, global);
  // In the order `mbbench --help` lists them.
  const std::vector<Command> commands = {
      ListCommand(app),      RunCommand(app),     StabilityCommand(app), SweepCommand(app),
      CheckCommand(app),     FiguresCommand(app), ReportCommand(app),    ExportCommand(app),
      ReferenceCommand(app), FastestCommand(app), CompareCommand(app),   MergeCommand(app)};
  if (const int code = Parse(app, argv); code >= 0) return code;
  try {
    return Dispatch(app, global, commands);
  } catch (const InputError& e) {
    std::fprintf(stderr, "mbbench: error: %s\n", e.what());
    return kExitBadInput;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "mbbench: error: %s\n", e.what());
    return kExitRunsFailed;
  }
}

}  // namespace mbb
