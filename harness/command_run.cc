// `mbbench run` (one problem with one method or its default methods, the default catalogue,
// or --all-methods) and `mbbench sweep` (an experiment file, resumable, sharded): both build
// a list of runs and hand it to the batch executor (batch.h).
#include <CLI/CLI.hpp>
#include <algorithm>
#include <memory>
#include <set>

#include "harness/batch.h"
#include "harness/cli_options.h"
#include "harness/commands.h"
#include "harness/file_names.h"
#include "harness/grid_settings.h"
#include "harness/merge_command.h"
#include "harness/shard_manifest.h"
#include "harness/sweep_file.h"

namespace mbb {

namespace {

// The time limit (CPU time of the run's thread) of one run under --all-methods unless --time-limit
// is given: the grid of every method on every problem then finishes in minutes on two cores, a cell
// that needs longer records `failed` with the time reached (docs/reports.md).
constexpr double kAllMethodsTimeLimit = 20.0;

// Names given twice (`-m ida -m ida`) would write one result file twice: refused.
void RefuseRepeats(const std::vector<std::string>& names, const char* option) {
  for (size_t i = 0; i < names.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (names[i] == names[j])
        throw InputError(std::string("run: ") + option + " " + names[i] + " given twice");
}

// --all-methods: every registered method (or those -m names) on every catalogue problem (or
// those -p names) at the problem's default step or the default tolerances; a method that
// cannot run a problem records not_applicable with its reason; some cells take the grid's
// documented settings (grid_settings.h). The report's first table is this grid.
int RunAllMethods(RunOptions o, std::vector<std::string> problems,
                  const std::vector<std::string>& methods, int jobs, bool progress) {
  if (!o.spec.model_file.empty())
    throw InputError("run: --all-methods works on -p or the catalogue");
  // The grid must finish in minutes: a cell slower than this records `failed` (time limit).
  if (!o.time_limit_given) o.spec.settings.time_limit_s = kAllMethodsTimeLimit;
  if (problems.empty())
    for (const auto& entry : ProblemCatalogue()) problems.push_back(entry.id);
  for (const auto& problem : problems) FindProblem(problem);  // unknown: exit 2 now
  for (const auto& method : methods) FindMethod(method);
  std::vector<BatchItem> items;
  for (const auto& problem : problems)
    for (const auto& method : MethodRegistry()) {
      if (!methods.empty() &&
          std::find(methods.begin(), methods.end(), method.name) == methods.end())
        continue;
      BatchItem item{o.spec, problem + "_" + method.name};
      item.spec.problem = problem;
      item.spec.method = method.name;
      ApplyGridSettings(item.spec);  // the grid's documented settings of this cell
      items.push_back(item);
    }
  return RunBatch(items, o.out, "all methods", jobs, false, ShowProgress(progress));
}

// The embedded default catalogue: every problem with its default methods.
int RunDefaultCatalogue(const RunOptions& o, int jobs, bool progress) {
  if (o.has_method || !o.spec.problem_parameters.values().empty())
    throw InputError("run: -m and --param need -p PROBLEM");
  std::vector<BatchItem> items;
  for (const auto& entry : ProblemCatalogue()) {
    const Problem p = BuildProblem(entry.id, ParameterSet());
    for (const auto& method : p.default_methods) {
      BatchItem item{o.spec, entry.id + "_" + method};
      item.spec.problem = entry.id;
      item.spec.method = method;
      items.push_back(item);
    }
  }
  return RunBatch(items, o.out, "default catalogue", jobs, false, ShowProgress(progress));
}

// Every given problem (or the model file) with every given method (or its default methods);
// every run is resolved before any runs (bad input exits 2 first).
int RunProblemsWithMethods(RunOptions o, std::vector<std::string> problems,
                           const std::vector<std::string>& methods, int jobs, bool progress) {
  if (problems.empty()) problems.push_back(o.spec.problem);  // one -p, or the model file
  std::vector<BatchItem> items;
  for (const auto& problem : problems) {
    RunSpec spec = o.spec;
    spec.problem = problem;
    if (!spec.model_file.empty()) spec.problem = BuildSpecProblem(spec).id;  // names the files
    const std::vector<std::string> chosen =
        methods.empty() ? BuildSpecProblem(spec).default_methods : methods;
    for (const auto& method : chosen) {
      BatchItem item{spec, spec.problem + "_" + method};
      item.spec.method = method;
      ResolveRun(item.spec);
      items.push_back(item);
    }
  }
  const std::string name =
      problems.size() == 1 && !items.empty() ? items[0].spec.problem : std::string("run");
  return RunBatch(items, o.out, name, jobs, false, ShowProgress(progress));
}

int CmdRun(CommonOptions common, bool series, const std::string& repeats,
           const std::string& jobs_text, bool progress, bool all_methods,
           const std::string& time_limit) {
  RefuseRepeats(common.problems, "-p");
  RefuseRepeats(common.methods, "-m");
  if (common.problems.size() == 1) common.problem = common.problems[0];
  if (common.methods.size() == 1) common.method = common.methods[0];
  const bool several_problems = common.problems.size() > 1;
  RunOptions o = ToRunOptions(common, "results/latest");
  if (several_problems && !common.model.empty())
    throw InputError("give either -p PROBLEM or --model FILE, not both");
  o.spec.series = series;
  if (!time_limit.empty()) {
    o.spec.settings.time_limit_s = TimeLimit(time_limit);
    o.time_limit_given = true;
  }
  if (!repeats.empty()) o.spec.repeats = Count(repeats, "--repeats", 0, 1000);
  const int jobs = Jobs(jobs_text);
  if (all_methods) return RunAllMethods(o, common.problems, common.methods, jobs, progress);
  if (!o.has_problem && !several_problems) {
    if (!common.methods.empty()) throw InputError("run: -m and --param need -p PROBLEM");
    return RunDefaultCatalogue(o, jobs, progress);
  }
  return RunProblemsWithMethods(o, several_problems ? common.problems : std::vector<std::string>{},
                                common.methods, jobs, progress);
}

struct RunCommandOptions {
  CommonOptions common;
  bool series = false, progress = false, all_methods = false;
  std::string repeats, jobs, time_limit;
};

struct SweepCommandOptions {
  std::string file, jobs, shard, out, max_runs, time_limit;
  bool force = false, progress = false;
};

int CmdSweep(const std::string& file, const std::string& jobs_text, const std::string& shard_text,
             std::string out, bool force, const std::string& max_runs_text, bool progress,
             const std::string& time_limit) {
  const size_t max_runs =
      max_runs_text.empty() ? kDefaultMaxRuns : Count(max_runs_text, "--max-runs", 1, 100'000'000);
  const int jobs = Jobs(jobs_text);
  int shard = 0, shards = 1;
  if (!shard_text.empty()) {
    const auto slash = shard_text.find('/');
    if (slash == std::string::npos) throw InputError("--shard '" + shard_text + "': expected K/N");
    shards = Count(shard_text.substr(slash + 1), "--shard N", 1, 1'000'000);
    shard = Count(shard_text.substr(0, slash), "--shard K", 0, shards - 1);
  }
  const SweepFile sweep = ReadSweepFile(file, max_runs);
  std::vector<BatchItem> items;
  for (size_t i = 0; i < sweep.items.size(); ++i) {
    if (static_cast<int>(i % shards) != shard) continue;  // deterministic slice
    items.push_back({sweep.items[i].spec, sweep.items[i].label});
    if (!time_limit.empty()) items.back().spec.settings.time_limit_s = TimeLimit(time_limit);
  }
  for (const auto& item : items) {  // validate every run before running any
    try {
      ResolveRun(item.spec);
    } catch (const InputError& e) {
      throw InputError(file + ": run " + item.stem + ": " + e.what());
    }
  }
  if (out.empty()) {
    RequireSafeName(sweep.name, file + ": name");
    out = "results/" + sweep.name;
  }
  const std::string name =
      shards > 1 ? sweep.name + " shard " + std::to_string(shard) + "/" + std::to_string(shards)
                 : sweep.name;
  const std::string dir = shards > 1 ? out + "/shard-" + std::to_string(shard) : out;
  if (shards > 1) {  // the manifest first (a shard killed at any point says what it owed);
    // runs finished in a merged OUT are not run again (shard_manifest.h)
    std::vector<std::string> options;
    if (!time_limit.empty()) options = {"--time-limit", time_limit};
    if (!max_runs_text.empty()) options.insert(options.end(), {"--max-runs", max_runs_text});
    const std::set<std::string> merged =
        StartShard({file, &sweep, shard, shards, out, options, force});
    items.erase(std::remove_if(items.begin(), items.end(),
                               [&](const BatchItem& item) { return merged.count(item.stem) > 0; }),
                items.end());
  }
  return RunBatch(items, dir, name, jobs, !force, ShowProgress(progress));
}

}  // namespace

Command RunCommand(CLI::App& app) {
  auto o = std::make_shared<RunCommandOptions>();
  CLI::App* run = app.add_subcommand(
      "run",
      "run one problem with one method (or its default methods); with no -p and no "
      "--model, the embedded default catalogue");
  AddProblemOptions(run, o->common, /*several=*/true);
  AddMethodOptions(run, o->common, /*several=*/true);
  run->add_option("--out", o->common.out, "result directory (default results/latest)");
  run->add_flag("--series", o->series, "also write the time series (CSV) of every run");
  run->add_option("--repeats", o->repeats, "timed repeats after the instrumented run (default 5)")
      ->type_name("K");
  run->add_option("--jobs", o->jobs, "runs in parallel (default 1)")->type_name("N");
  run->add_option("--time-limit", o->time_limit,
                  "limit of each run, s of CPU time of its thread: a run that reaches it ends "
                  "failed (default "
                  "none; 20 with --all-methods)")
      ->type_name("SECONDS");
  run->add_flag("--all-methods", o->all_methods,
                "every registered method (or those -m names) on every problem (or those -p "
                "names) at its default step or tolerance; not_applicable cells record why");
  run->add_flag("--progress", o->progress,
                "progress lines on stderr even when it is not a terminal (at most one per 2 s)");
  return {run, [o] {
            return CmdRun(o->common, o->series, o->repeats, o->jobs, o->progress, o->all_methods,
                          o->time_limit);
          }};
}

Command SweepCommand(CLI::App& app) {
  auto o = std::make_shared<SweepCommandOptions>();
  CLI::App* sweep = app.add_subcommand("sweep", "run every run of an experiment file");
  sweep->add_option("experiment", o->file, "experiment JSON file")->required();
  sweep->add_option("--jobs", o->jobs, "runs in parallel (default 1)")->type_name("N");
  sweep->add_option("--shard", o->shard, "run only slice K of N (0 <= K < N), for a cluster")
      ->type_name("K/N");
  sweep->add_option("--out", o->out, "result directory (default results/<name>)");
  sweep->add_flag("--force", o->force, "rerun runs whose results exist");
  sweep
      ->add_option(
          "--time-limit", o->time_limit,
          "limit of each run, s of CPU time of its thread: a run that reaches it ends failed "
          "(default none)")
      ->type_name("SECONDS");
  sweep->add_option("--max-runs", o->max_runs, "refuse an experiment of more runs (default 10000)")
      ->type_name("N");
  sweep->add_flag("--progress", o->progress,
                  "progress lines on stderr even when it is not a terminal (at most one per 2 s)");
  return {sweep, [o] {
            return CmdSweep(o->file, o->jobs, o->shard, o->out, o->force, o->max_runs, o->progress,
                            o->time_limit);
          }};
}

Command MergeCommand(CLI::App& app) {
  auto o = std::make_shared<MergeOptions>();
  return {AddMergeCommand(app, *o), [o] { return CmdMerge(*o); }};
}

}  // namespace mbb
