// `mbbench report DIR` (report.md and report.html, report.h) and `mbbench export DIR` (every
// result as one CSV or JSON table, export.h): both read every result under DIR back.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>

#include "harness/atomic_file.h"
#include "harness/cli_options.h"
#include "harness/commands.h"
#include "harness/compare_command.h"
#include "harness/export.h"
#include "harness/file_names.h"
#include "harness/report.h"

namespace mbb {

namespace {

// Names the files a report or export read but did not use, on stderr.
void PrintReadProblems(const std::vector<UnreadableResult>& unreadable,
                       const std::vector<UnreadableResult>& skipped) {
  for (const auto& s : skipped)
    std::fprintf(stderr, "mbbench: warning: %s: %s\n", s.file.c_str(), s.reason.c_str());
  for (const auto& u : unreadable)
    std::fprintf(stderr, "mbbench: error: unreadable result %s: %s\n", u.file.c_str(),
                 u.reason.c_str());
}

// Every unreadable .json file is named on stderr and makes the exit code 1 (after the
// report of the readable ones is written): a truncated result must not go unnoticed. A JSON
// file that is not a result (an array, another schema) is named as skipped (a warning).
int CmdReport(const std::string& dir, const std::string& error_measure) {
  RequireDirectory(dir, "report:");
  std::vector<UnreadableResult> unreadable, skipped;
  const int count = WriteReport(dir, unreadable, &skipped, error_measure);
  std::printf("%d results -> %s/report.md, %s/report.html\n", count, dir.c_str(), dir.c_str());
  PrintReadProblems(unreadable, skipped);
  return count > 0 && unreadable.empty() ? kExitOk : kExitRunsFailed;
}

// Every result under DIR as one table: DIR/results.csv or DIR/results.json, or --out FILE.
// The output file is proved writable before anything is read.
int CmdExport(const std::string& dir, bool csv, bool as_json, std::string out) {
  if (csv == as_json) throw InputError("export: give exactly one of --csv and --json");
  RequireDirectory(dir, "export:");
  if (out.empty()) out = dir + (csv ? "/results.csv" : "/results.json");
  RequireWritableFile(out, "export --out");
  std::vector<UnreadableResult> unreadable, skipped;
  const std::vector<ResultSummary> rows = ReadResultSummaries(dir, &unreadable, &skipped);
  WriteFileAtomically(out, csv ? ResultsToCsv(rows) : ResultsToJsonTable(rows));
  std::printf("%zu results -> %s\n", rows.size(), out.c_str());
  PrintReadProblems(unreadable, skipped);
  return unreadable.empty() ? kExitOk : kExitRunsFailed;
}

struct ExportCommandOptions {
  std::string dir, out;
  bool csv = false, json = false;
};

}  // namespace

struct ReportCommandOptions {
  std::string dir, error = "max";
};

Command ReportCommand(CLI::App& app) {
  auto o = std::make_shared<ReportCommandOptions>();
  CLI::App* report =
      app.add_subcommand("report", "report.md + report.html with work-precision plots");
  report->add_option("directory", o->dir, "results directory")->required();
  report
      ->add_option("--error", o->error,
                   "error the plots draw: max (position, default), output, energy; final and "
                   "l2 are not recorded in results")
      ->type_name("MEASURE");
  return {report, [o] { return CmdReport(o->dir, o->error); }};
}

Command CompareCommand(CLI::App& app) {
  auto o = std::make_shared<CompareOptions>();
  return {AddCompareCommand(app, *o), [o] { return RunCompare(*o); }};
}

Command ExportCommand(CLI::App& app) {
  auto o = std::make_shared<ExportCommandOptions>();
  CLI::App* export_cmd = app.add_subcommand(
      "export", "every result under a directory as one tidy table (CSV or JSON) for pandas/Matlab");
  export_cmd->add_option("directory", o->dir, "results directory")->required();
  export_cmd->add_flag("--csv", o->csv, "write DIR/results.csv");
  export_cmd->add_flag("--json", o->json, "write DIR/results.json (an array of rows)");
  export_cmd->add_option("--out", o->out, "write to this file instead");
  return {export_cmd, [o] { return CmdExport(o->dir, o->csv, o->json, o->out); }};
}

}  // namespace mbb
