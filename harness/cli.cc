#include "harness/cli.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <mutex>
#include <thread>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cmath>

#include "harness/check_command.h"
#include "harness/compare_command.h"
#include "harness/context.h"
#include "harness/export.h"
#include "harness/fastest.h"
#include "harness/file_names.h"
#include "harness/json_io.h"
#include "harness/merge_command.h"
#include "harness/reference_maker.h"
#include "harness/report.h"
#include "harness/report_analysis.h"
#include "harness/runner.h"
#include "harness/shard_manifest.h"
#include "harness/stability.h"

namespace mbb {

namespace fs = std::filesystem;

namespace {

constexpr int kExitOk = 0;
constexpr int kExitRunsFailed = 1;
constexpr int kExitBadInput = 2;

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

// More threads than this only oversubscribe the machine (and a huge count aborted in
// std::thread); the limit is far above any core count this suite runs on.
constexpr long kMaxJobs = 256;

// The options run, stability and reference share, as given (numbers still text).
struct CommonOptions {
  std::string problem, model, method, h, t_end, out;
  std::vector<std::string> params, sets;
  bool allow_unused = false;
};

void AddProblemOptions(CLI::App* cmd, CommonOptions& o) {
  cmd->add_option("-p,--problem", o.problem, "catalogue problem id (mbbench list problems)");
  cmd->add_option("--model", o.model, "JSON model file instead of -p (docs/model-format.md)");
  cmd->add_option("--param", o.params, "problem parameter key=value (repeatable)")
      ->type_name("K=V")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  cmd->add_option("--t-end", o.t_end, "end time, s (default: the problem's horizon)")
      ->type_name("T");
}

void AddMethodOptions(CLI::App* cmd, CommonOptions& o) {
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

struct RunOptions {
  RunSpec spec;
  std::string out = "results/latest";
  bool has_problem = false, has_method = false;
  bool time_limit_given = false;  // --time-limit (else --all-methods uses its default)
};

// The time limit (CPU time of the run's thread) of one run under --all-methods unless --time-limit
// is given: the grid of every method on every problem then finishes in minutes on two cores, a cell
// that needs longer records `failed` with the time reached (docs/reports.md).
constexpr double kAllMethodsTimeLimit = 20.0;

// --time-limit SECONDS: > 0 and finite (InputError naming the option otherwise).
double TimeLimit(const std::string& text) {
  const double limit = PositiveNumber(text, "--time-limit");
  if (!std::isfinite(limit)) throw InputError("--time-limit " + text + ": must be finite");
  return limit;
}

// Turns the common options into a RunSpec; throws InputError on a malformed value.
RunOptions ToRunOptions(const CommonOptions& c, const std::string& default_out) {
  RunOptions o;
  o.out = c.out.empty() ? default_out : c.out;
  o.spec.problem = c.problem;
  o.spec.model_file = c.model;
  o.spec.method = c.method;
  o.has_problem = !c.problem.empty() || !c.model.empty();
  o.has_method = !c.method.empty();
  if (!c.problem.empty() && !c.model.empty())
    throw InputError("give either -p PROBLEM or --model FILE, not both");
  for (const auto& a : c.params) o.spec.problem_parameters.SetFromAssignment(a, "--param");
  for (const auto& a : c.sets) o.spec.settings.SetFromAssignment(a, "--set");
  if (!c.h.empty()) {
    if (o.spec.settings.Has("h")) throw InputError("--h and --set h=: give the step once");
    o.spec.settings.Set("h", c.h);
  }
  if (!c.t_end.empty()) {
    o.spec.t_end = Number(c.t_end, "--t-end");
    if (!(o.spec.t_end > 0.0)) throw InputError("--t-end = " + c.t_end + ": must be > 0");
  }
  o.spec.allow_unused = c.allow_unused;
  return o;
}

std::string Fmt(const char* format, double x) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, format, x);
  return buffer;
}

std::string Cell(const std::optional<double>& x, const char* format = "%.2e") {
  return x ? Fmt(format, *x) : std::string("-");
}

// The settings of a run in the table: the step or the tolerance that was used and the
// method's non-default parameters, so the rows of a sweep say what differs.
std::string SettingsCell(const RunRecord& r) {
  std::string s;
  if (r.h && !r.rtol)
    s = "h=" + Fmt("%.3g", *r.h);
  else if (r.rtol)
    s = "rtol=" + Fmt("%.3g", *r.rtol);
  const std::string parameters = NonDefaultParameters(r.method_id, r.method_parameters);
  if (!parameters.empty()) s += (s.empty() ? "" : " ") + parameters;
  return s.empty() ? "-" : s;
}

// Column widths of the run table: the longest problem id, method name and settings among the
// rows, so that no row shifts the columns after it.
struct TableWidths {
  int problem = 7, method = 6, settings = 8;
};

TableWidths WidthsOf(const std::vector<IndexEntry>& index, const std::vector<RunRecord>& records,
                     const std::vector<char>& have_record) {
  TableWidths w;
  for (size_t i = 0; i < index.size(); ++i) {
    w.problem = std::max(w.problem, static_cast<int>(index[i].problem.size()));
    w.method = std::max(w.method, static_cast<int>(index[i].method.size()));
    if (have_record[i])
      w.settings = std::max(w.settings, static_cast<int>(SettingsCell(records[i]).size()));
  }
  return w;
}

void PrintTableHeader(const TableWidths& w) {
  std::printf("%-*s %-*s %-*s %-14s %9s %10s %10s %10s %10s\n", w.problem, "problem", w.method,
              "method", w.settings, "settings", "status", "steps", "wall[s]", "energy",
              "constraint", "error");
  std::printf("%-*s %-*s %-*s %-14s %9s %10s %10s %10s %10s\n", w.problem, "", w.method, "",
              w.settings, "", "", "", "(median)", "rel.drift", "|Phi|max", "rel.max[-]");
}

void PrintTableRow(const RunRecord& r, const TableWidths& w) {
  std::optional<double> wall, err;
  if (r.wall_time) wall = r.wall_time->median;
  if (r.metrics.error) err = r.metrics.error->position_max_rel;
  const bool ran = r.status == RunStatus::kOk || r.metrics.samples > 0;
  std::printf("%-*s %-*s %-*s %-14s %9ld %10s %10s %10s %10s\n", w.problem, r.problem_id.c_str(),
              w.method, r.method_id.c_str(), w.settings, SettingsCell(r).c_str(),
              ToString(r.status), r.counters.steps, Cell(wall, "%.3g").c_str(),
              ran ? Cell(r.metrics.energy_max_rel_drift).c_str() : "-",
              ran ? Cell(r.metrics.position_residual_max).c_str() : "-", Cell(err).c_str());
  if (r.status != RunStatus::kOk && !r.message.empty())
    std::printf("    -> %s\n", r.message.c_str());
  for (size_t k = 0; k < r.warnings.size(); ++k)  // the problem's too (a moved initial state)
    std::printf("    -> warning: %s\n", r.warnings[k].c_str());
  std::fflush(stdout);
}

std::string WriteRecord(const RunRecord& record, const std::string& dir, const std::string& stem) {
  fs::create_directories(dir);
  std::string series_file;
  if (!record.series.empty()) {
    series_file = stem + ".series.csv";
    WriteFileAtomically(dir + "/" + series_file, SeriesToCsv(record, record.output_names));
  }
  const std::string file = stem + ".json";
  WriteFileAtomically(dir + "/" + file, RunRecordToJson(record, series_file));
  return file;
}

bool Succeeded(RunStatus s) { return s == RunStatus::kOk || s == RunStatus::kNotApplicable; }

// What a method promises, in a few characters: constraint levels kept (P, V, A) and E for a
// bounded energy error.
std::string PromisedLevels(const MethodPromises& p) {
  std::string s;
  if (p.satisfies_position) s += "P";
  if (p.satisfies_velocity) s += "V";
  if (p.satisfies_acceleration) s += "A";
  if (p.bounded_energy_error) s += "E";
  return s.empty() ? "-" : s;
}

// The default mode's step control, as `mbbench list methods` has always shown it.
const char* StepControlLabel(const MethodEntry& e) {
  switch (e.step.ModeFor(ParameterSet(), e.parameters)) {
    case StepMode::kFixed:
      return "fixed";
    case StepMode::kAdaptive:
    case StepMode::kAdaptiveFromH:
      return "adaptive";
    case StepMode::kAdaptiveOrFixed:
      return "adapt|h";
  }
  return "?";
}

int CmdList(const std::string& what) {
  if (what != "methods") {
    int width = 7;
    for (const auto& e : ProblemCatalogue()) width = std::max(width, static_cast<int>(e.id.size()));
    std::printf("%-*s %4s %4s %4s  %-9s %-18s %s\n", width, "problem", "n", "m", "dof", "reference",
                "source", "summary");
    for (const auto& e : ProblemCatalogue()) {
      const Problem p = BuildProblem(e.id, ParameterSet());
      const RunRecord shape = DescribeRun({p, &FindMethod("ida"), {}, {}, {}, {}});
      std::printf("%-*s %4d %4d %4d  %-9s %-18s %s\n", width, e.id.c_str(), shape.n, shape.m,
                  shape.dof, FindAnyReference(p) ? "yes" : "no", e.source.c_str(),
                  e.summary.c_str());
    }
  }
  if (what == "all") std::printf("\n");
  if (what != "problems") {
    int width = 6;
    for (const auto& e : MethodRegistry()) width = std::max(width, static_cast<int>(e.name.size()));
    std::printf("%-*s %-8s %5s %-5s %s\n", width, "method", "step", "order", "keeps", "source");
    std::printf("%-*s %-8s %5s %-5s %s\n", width, "", "", "", "", "  summary; parameters");
    for (const auto& e : MethodRegistry()) {
      const MethodPromises& promise = e.promises;
      std::printf("%-*s %-8s %5s %-5s %s\n", width, e.name.c_str(), StepControlLabel(e),
                  promise.order > 0 ? std::to_string(promise.order).c_str() : "-",
                  PromisedLevels(promise).c_str(), e.source.c_str());
      std::printf("    %s\n", e.summary.c_str());
      for (const auto& p : e.parameters) {
        std::string choices;
        for (const auto& c : p.choices) choices += (choices.empty() ? " {" : "|") + c;
        if (!choices.empty()) choices += "}";
        std::printf("    %s=%s%s  %s\n", p.name.c_str(), p.default_value.c_str(), choices.c_str(),
                    p.description.c_str());
      }
    }
    std::printf(
        "\nkeeps: constraint levels held at every step (P position, V velocity, A "
        "acceleration), E a bounded energy error; order: at a fixed step (the "
        "conformance test checks both: tests/test_conformance.cc)\n");
  }
  return kExitOk;
}

// A temporary file of WriteFileAtomically (NAME.tmp.PID.N) whose writer is gone: a run
// interrupted between writing and renaming (SIGINT during a series write) left it. Removed
// when the next batch takes the directory's lock, so a resumed directory holds results only.
void RemoveStaleTemporaries(const std::string& dir) {
  std::error_code ec;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    const size_t tmp = name.rfind(".tmp.");
    if (tmp == std::string::npos) continue;
    const std::string tail = name.substr(tmp + 5);  // PID.N
    const size_t dot = tail.find('.');
    if (dot == std::string::npos || dot == 0 || dot + 1 == tail.size() ||
        tail.find_first_not_of("0123456789.") != std::string::npos ||
        tail.find('.', dot + 1) != std::string::npos)
      continue;
    const long pid = std::strtol(tail.substr(0, dot).c_str(), nullptr, 10);
    if (pid <= 0 || pid == ::getpid() || ::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH)
      continue;  // its writer may still be running
    if (fs::remove(entry.path(), ec))
      std::fprintf(stderr, "removed %s: a temporary file whose writer (pid %ld) is gone\n",
                   entry.path().c_str(), pid);
  }
}

// Holds an exclusive lock on DIR/.mbbench.lock while a batch writes into DIR: a second
// mbbench on the same directory waits, then resumes from the first one's results (a sweep)
// instead of redoing its runs or interleaving two index files.
class DirectoryLock {
 public:
  explicit DirectoryLock(const std::string& dir) {
    const std::string path = dir + "/.mbbench.lock";
    fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0) throw InputError("--out " + dir + ": cannot create " + path);
    if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
      std::fprintf(stderr, "waiting for another mbbench writing into %s ...\n", dir.c_str());
      ::flock(fd_, LOCK_EX);
    }
    RemoveStaleTemporaries(dir);
  }
  ~DirectoryLock() { ::close(fd_); }  // closing releases the lock
  DirectoryLock(const DirectoryLock&) = delete;
  DirectoryLock& operator=(const DirectoryLock&) = delete;

 private:
  int fd_ = -1;
};

// Runs specs on `jobs` threads; each finished result is written at once.
struct BatchItem {
  RunSpec spec;
  std::string stem;
};

// Progress lines go to stderr when it is a terminal, or anywhere with --progress.
bool ShowProgress(bool asked) { return asked || ::isatty(STDERR_FILENO); }

int RunBatch(const std::vector<BatchItem>& items, const std::string& dir, const std::string& name,
             int jobs, bool resume, bool progress) {
  for (const auto& item : items) RequireSafeName(item.stem, "result file name");
  PrepareOutputDirectory(dir);
  const DirectoryLock lock(dir);
  std::vector<IndexEntry> index(items.size());
  std::vector<RunRecord> records(items.size());
  std::vector<char> have_record(items.size(), 0);
  std::vector<std::string> rerun_reasons(items.size());
  std::atomic<size_t> next{0};
  std::atomic<int> finished{0};
  std::atomic<bool> any_failed{false};
  std::mutex print_mutex;
  const auto start = std::chrono::steady_clock::now();

  auto worker = [&] {
    for (size_t i = next++; i < items.size(); i = next++) {
      const BatchItem& item = items[i];
      IndexEntry& entry = index[i];
      entry.problem = item.spec.model_file.empty() ? item.spec.problem : item.spec.model_file;
      entry.method = item.spec.method;
      entry.file = item.stem + ".json";
      const std::string path = dir + "/" + entry.file;
      std::string rerun_reason;
      try {
        RunSpec spec = item.spec;
        spec.progress = progress;
        const ResolvedRun resolved = ResolveRun(spec);
        const std::string configuration = ConfigurationKey(DescribeRun(resolved), spec);
        entry.configuration_hash = ConfigurationHash(configuration);
        if (resume) {
          // Reuse a stored result only when it was computed for exactly this configuration
          // (not merely under this file name: the experiment may have been edited since).
          const StoredResult stored = ReadStoredResult(path);
          if (!stored.status.empty() && stored.configuration == configuration) {
            entry.status = stored.status;
            entry.message = "kept from an earlier run (same configuration)";
            if (stored.status == "failed" || stored.status == "unstable") any_failed = true;
            ++finished;
            continue;
          }
          if (!stored.status.empty())
            rerun_reason =
                "rerun: " + DescribeConfigurationChange(stored.configuration, configuration);
          else if (!stored.unreadable.empty())  // named, then overwritten by the rerun
            rerun_reason = "rerun: the stored result is unreadable: " + stored.unreadable;
        }
        RunRecord record = Execute(resolved, spec);
        record.configuration = configuration;
        WriteRecord(record, dir, item.stem);
        entry.status = ToString(record.status);
        entry.message = rerun_reason.empty()     ? record.message
                        : record.message.empty() ? rerun_reason
                                                 : rerun_reason + "; " + record.message;
        if (!Succeeded(record.status)) any_failed = true;
        records[i] = std::move(record);
        rerun_reasons[i] = rerun_reason;
        have_record[i] = 1;
      } catch (const InputError& e) {
        entry.status = "invalid";
        entry.message = e.what();
        any_failed = true;
      } catch (const std::exception& e) {  // e.g. the disk filled: this run fails, not the batch
        entry.status = ToString(RunStatus::kFailed);
        entry.message = std::string("could not finish or write the result: ") + e.what();
        any_failed = true;
      }
      const int done = ++finished;
      std::lock_guard<std::mutex> lock(print_mutex);
      const double elapsed =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      std::fprintf(stderr, "[%d/%zu %6.1fs] %s %s: %s\n", done, items.size(), elapsed,
                   entry.problem.c_str(), entry.method.c_str(), entry.status.c_str());
    }
  };
  std::vector<std::thread> threads;
  for (int k = 0; k < std::max(1, jobs); ++k) threads.emplace_back(worker);
  for (auto& t : threads) t.join();

  for (auto& entry : index) AddResultToIndexEntry(dir, entry);
  WriteFileAtomically(dir + "/index.json", IndexToJson(name, index));
  const TableWidths widths = WidthsOf(index, records, have_record);
  PrintTableHeader(widths);
  for (size_t i = 0; i < items.size(); ++i) {
    if (have_record[i]) {
      PrintTableRow(records[i], widths);
      if (!rerun_reasons[i].empty()) std::printf("    -> %s\n", rerun_reasons[i].c_str());
    } else {
      std::printf("%-*s %-*s %-*s %-14s %s\n", widths.problem, index[i].problem.c_str(),
                  widths.method, index[i].method.c_str(), widths.settings, "",
                  index[i].status.c_str(), index[i].message.c_str());
    }
  }
  std::printf("results: %s/ (index.json + one JSON per run)\n", dir.c_str());
  return any_failed ? kExitRunsFailed : kExitOk;
}

// --all-methods: every registered method on every catalogue problem (or on -p PROBLEM) at the
// problem's default step or the default tolerances; a method that cannot run a problem
// records not_applicable with its reason. The report's first table is this grid.
int RunAllMethods(RunOptions o, int jobs, bool progress) {
  if (o.has_method) throw InputError("run: --all-methods and -m: give one of them");
  if (!o.spec.model_file.empty())
    throw InputError("run: --all-methods works on -p or the catalogue");
  // The grid must finish in minutes: a cell slower than this records `failed` (time limit).
  if (!o.time_limit_given) o.spec.time_limit_s = kAllMethodsTimeLimit;
  std::vector<std::string> problems;
  if (o.has_problem)
    problems.push_back(o.spec.problem);
  else
    for (const auto& entry : ProblemCatalogue()) problems.push_back(entry.id);
  std::vector<BatchItem> items;
  for (const auto& problem : problems)
    for (const auto& method : MethodRegistry()) {
      BatchItem item{o.spec, problem + "_" + method.name};
      item.spec.problem = problem;
      item.spec.method = method.name;
      items.push_back(item);
    }
  return RunBatch(items, o.out, "all methods", jobs, false, ShowProgress(progress));
}

int CmdRun(const CommonOptions& common, bool series, const std::string& repeats,
           const std::string& jobs_text, bool progress, bool all_methods,
           const std::string& time_limit) {
  RunOptions o = ToRunOptions(common, "results/latest");
  o.spec.series = series;
  if (!time_limit.empty()) {
    o.spec.time_limit_s = TimeLimit(time_limit);
    o.time_limit_given = true;
  }
  if (!repeats.empty()) o.spec.repeats = Count(repeats, "--repeats", 0, 1000);
  const int jobs = jobs_text.empty() ? 1 : Count(jobs_text, "--jobs", 1, kMaxJobs);
  if (all_methods) return RunAllMethods(o, jobs, progress);
  if (!o.has_problem) {
    // The embedded default catalogue: every problem with its default methods.
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
  std::vector<std::string> methods;
  if (o.has_method) {
    methods.push_back(o.spec.method);
  } else {
    methods = BuildSpecProblem(o.spec).default_methods;
  }
  if (!o.spec.model_file.empty()) {
    o.spec.problem = BuildSpecProblem(o.spec).id;  // names the result files
  }
  std::vector<BatchItem> items;
  for (const auto& method : methods) {
    BatchItem item{o.spec, o.spec.problem + "_" + method};
    item.spec.method = method;
    ResolveRun(item.spec);  // bad input exits 2 before anything runs
    items.push_back(item);
  }
  return RunBatch(items, o.out, o.spec.problem, jobs, false, ShowProgress(progress));
}

int CmdStability(const CommonOptions& common, StabilityOptions s) {
  RunOptions o = ToRunOptions(common, "results/stability");
  if (!o.has_problem || !o.has_method)
    throw InputError("stability: needs -p PROBLEM and -m METHOD");
  s.on_trial = [](const StabilityTrial& t) {
    std::fprintf(stderr, "  h = %-12.6g %s\n", t.h,
                 t.status == RunStatus::kOk ? "stable" : "unstable");
  };
  const std::string problem_name =
      o.spec.model_file.empty() ? o.spec.problem : BuildSpecProblem(o.spec).id;
  const std::string stem = problem_name + "_" + o.spec.method;
  RequireSafeName(stem, "result file name");
  PrepareOutputDirectory(o.out);  // before the search: a bad --out is found at once
  const StabilityRecord record = SearchStabilityLimit(o.spec, s);
  const std::string path = o.out + "/" + stem + ".stability.json";
  WriteFileAtomically(path, StabilityRecordToJson(record));
  std::printf(
      "%s %s: h_max_stable = %s, h_min_unstable = %s (criterion %s, horizon %g s)\n",
      o.spec.problem.c_str(), o.spec.method.c_str(), Cell(record.h_max_stable, "%.6g").c_str(),
      Cell(record.h_min_unstable, "%.6g").c_str(), record.criterion.c_str(), record.base.t_end);
  if (!record.message.empty()) std::printf("  %s\n", record.message.c_str());
  for (const std::string& note : record.notes) std::printf("  note: %s\n", note.c_str());
  std::printf("result: %s\n", path.c_str());
  return kExitOk;
}

int CmdSweep(const std::string& file, const std::string& jobs_text, const std::string& shard_text,
             std::string out, bool force, const std::string& max_runs_text, bool progress,
             const std::string& time_limit) {
  const size_t max_runs =
      max_runs_text.empty() ? kDefaultMaxRuns : Count(max_runs_text, "--max-runs", 1, 100'000'000);
  const int jobs = jobs_text.empty() ? 1 : Count(jobs_text, "--jobs", 1, kMaxJobs);
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
    if (!time_limit.empty()) items.back().spec.time_limit_s = TimeLimit(time_limit);
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

// Runs the figure recipes of one paper (or all) from the source tree, with MBBENCH pointing
// at this executable and MBBENCH_FIGURES_OUT at <working directory>/results/figures: the
// recipes write to ${MBBENCH_FIGURES_OUT}/<paper>/, so the figures land where the user is,
// not in the source tree. The recipes are scripts: each states what it regenerates.
int CmdFigures(const std::string& paper) {
  const fs::path dir = fs::path(MBBENCH_SOURCE_DIR) / "scripts" / "figures";
  std::vector<fs::path> scripts;
  if (fs::is_directory(dir))
    for (const auto& e : fs::directory_iterator(dir)) {
      const std::string name = e.path().filename().string();
      if (e.path().extension() == ".sh" &&
          (paper == "all" ? name.rfind("paper", 0) == 0 : name.rfind("paper" + paper, 0) == 0))
        scripts.push_back(e.path());
    }
  std::sort(scripts.begin(), scripts.end());
  if (scripts.empty())
    throw InputError("figures: no recipe for paper '" + paper + "' in " + dir.string());
  const std::string self = fs::read_symlink("/proc/self/exe").string();
  const std::string out = (fs::current_path() / "results" / "figures").string();
  fs::create_directories(out);
  std::fprintf(stderr, "figures: writing under %s\n", out.c_str());
  int failures = 0;
  for (const auto& script : scripts) {
    std::fprintf(stderr, "figures: %s\n", script.filename().c_str());
    const std::string command = "cd '" + std::string(MBBENCH_SOURCE_DIR) + "' && MBBENCH='" + self +
                                "' MBBENCH_FIGURES_OUT='" + out + "' bash '" + script.string() +
                                "'";
    if (std::system(command.c_str()) != 0) {
      std::fprintf(stderr, "figures: %s failed\n", script.filename().c_str());
      ++failures;
    }
  }
  // Then each paper's reproduction page (index.html, README.md) from its manifest,
  // scripts/figures/pages/NNN.json, with verdicts computed from the runs just written.
  std::vector<std::string> papers;
  for (const auto& script : scripts) {
    const std::string id = script.filename().string().substr(5, 3);
    if (std::find(papers.begin(), papers.end(), id) == papers.end()) papers.push_back(id);
  }
  for (const auto& id : papers) {
    if (!fs::exists(dir / "pages" / (id + ".json"))) continue;
    const std::string command = "cd '" + std::string(MBBENCH_SOURCE_DIR) + "' && python3 '" +
                                (dir / "page.py").string() + "' '" + id + "' '" + out + "/" + id +
                                "'";
    if (std::system(command.c_str()) != 0) {
      std::fprintf(stderr, "figures: page for %s failed\n", id.c_str());
      ++failures;
    }
  }
  return failures == 0 ? kExitOk : kExitRunsFailed;
}

int CmdReference(const CommonOptions& common, const std::string& samples_text) {
  RunOptions o = ToRunOptions(common, "");
  const int samples = samples_text.empty() ? 100 : Count(samples_text, "--samples", 2, 1'000'000);
  if (!o.has_problem) throw InputError("reference: needs -p PROBLEM or --model FILE");
  const TabulatedReference ref = MakeReference(o.spec, samples);
  RequireSafeName(ref.problem, "problem id");
  std::string dir;
  if (!o.spec.model_file.empty()) {
    // A model file's reference: keyed by the file's content hash, in the user reference
    // directory ($MBBENCH_REFERENCE_DIR / --reference-dir, else under $XDG_DATA_HOME or
    // ~/.local/share), where runs on the same file find it from any working directory.
    dir = UserReferenceDirectory() + "/models/" + ModelFileHash(o.spec.model_file);
  } else {
    // Into $MBBENCH_REFERENCE_DIR when set, else ./reference/<problem>/ under the working
    // directory (never the source tree of the binary); runs find it with
    // MBBENCH_REFERENCE_DIR=$PWD/reference (docs/reports.md). Run from the source tree, this
    // is the suite's own reference directory.
    const char* env = std::getenv("MBBENCH_REFERENCE_DIR");
    dir = (env != nullptr ? std::string(env) : (fs::current_path() / "reference").string()) + "/" +
          ref.problem;
  }
  std::error_code error;
  fs::create_directories(dir, error);
  if (error) throw InputError("reference: cannot create " + dir + " (" + error.message() + ")");
  WriteReferenceEntry(dir + "/reference.json", ref);
  std::printf("%s: %zu samples to t = %g, methods differ by %.2e, %g digits claimed\nwritten: %s\n",
              ref.problem.c_str(), ref.reference.times.size(), ref.reference.t_max,
              ref.max_difference, ref.reference.digits, (dir + "/reference.json").c_str());
  return kExitOk;
}

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
  app.footer("Run 'mbbench COMMAND --help' for the options of a command.");
  // --reference-dir DIR, before or after the command (fallthrough: set before the
  // subcommands, which inherit it): the same as MBBENCH_REFERENCE_DIR
  // (searched first for references; `reference` writes there).
  std::string reference_dir;
  app.add_option("--reference-dir", reference_dir,
                 "reference directory searched first and written by `reference` (the same as "
                 "MBBENCH_REFERENCE_DIR)")
      ->type_name("DIR");
  app.fallthrough();
  bool version = false;
  app.add_flag("--version", version,
               "print the version, the git commit and the hash of the reference data in use");
  app.require_subcommand(0, 1);

  std::string list_what = "all";
  CLI::App* list = app.add_subcommand("list", "list problems (n, m, DOF, reference) and methods");
  list->add_option("what", list_what, "what to list")
      ->check(CLI::IsMember({"all", "problems", "methods"}));

  CommonOptions run_options;
  bool series = false;
  std::string repeats, run_jobs;
  CLI::App* run = app.add_subcommand(
      "run",
      "run one problem with one method (or its default methods); with no -p and no "
      "--model, the embedded default catalogue");
  AddProblemOptions(run, run_options);
  AddMethodOptions(run, run_options);
  run->add_option("--out", run_options.out, "result directory (default results/latest)");
  run->add_flag("--series", series, "also write the time series (CSV) of every run");
  run->add_option("--repeats", repeats, "timed repeats after the instrumented run (default 5)")
      ->type_name("K");
  run->add_option("--jobs", run_jobs, "runs in parallel (default 1)")->type_name("N");
  std::string run_time_limit, sweep_time_limit;
  run->add_option("--time-limit", run_time_limit,
                  "limit of each run, s of CPU time of its thread: a run that reaches it ends "
                  "failed (default "
                  "none; 20 with --all-methods)")
      ->type_name("SECONDS");
  bool run_progress = false, sweep_progress = false, all_methods = false;
  run->add_flag("--all-methods", all_methods,
                "every registered method on every problem (or on -p PROBLEM) at its default "
                "step or tolerance; not_applicable cells record why");
  run->add_flag("--progress", run_progress,
                "progress lines on stderr even when it is not a terminal (at most one per 2 s)");

  CommonOptions stability_options;
  StabilityOptions stability_search;
  std::string h_min, h_max, factor, bound, precision;
  CLI::App* stability = app.add_subcommand(
      "stability", "largest stable fixed step of a method on a problem (docs/stability.md)");
  AddProblemOptions(stability, stability_options);
  AddMethodOptions(stability, stability_options);
  stability->add_option("--out", stability_options.out,
                        "result directory (default results/stability)");
  stability->add_option("--h-min", h_min, "lower end of the search bracket, s")->type_name("A");
  stability->add_option("--h-max", h_max, "upper end of the search bracket, s")->type_name("B");
  stability->add_option("--criterion", stability_search.criterion, "growth, finite or bound")
      ->check(CLI::IsMember({"growth", "finite", "bound"}));
  stability->add_option("--factor", factor, "growth factor of the growth criterion");
  stability->add_option("--bound", bound, "bound of the bound criterion");
  stability->add_option("--precision", precision, "relative precision of the bisection");

  std::string sweep_file, sweep_jobs, shard, sweep_out, max_runs;
  bool force = false;
  CLI::App* sweep = app.add_subcommand("sweep", "run every run of an experiment file");
  sweep->add_option("experiment", sweep_file, "experiment JSON file")->required();
  sweep->add_option("--jobs", sweep_jobs, "runs in parallel (default 1)")->type_name("N");
  sweep->add_option("--shard", shard, "run only slice K of N (0 <= K < N), for a cluster")
      ->type_name("K/N");
  sweep->add_option("--out", sweep_out, "result directory (default results/<name>)");
  sweep->add_flag("--force", force, "rerun runs whose results exist");
  sweep
      ->add_option(
          "--time-limit", sweep_time_limit,
          "limit of each run, s of CPU time of its thread: a run that reaches it ends failed "
          "(default none)")
      ->type_name("SECONDS");
  sweep->add_option("--max-runs", max_runs, "refuse an experiment of more runs (default 10000)")
      ->type_name("N");
  sweep->add_flag("--progress", sweep_progress,
                  "progress lines on stderr even when it is not a terminal (at most one per 2 s)");

  CheckOptions check_options;
  std::string check_jobs;
  CLI::App* check = app.add_subcommand(
      "check", "rerun (or read from --against) every baseline result and compare");
  check->add_option("--baseline", check_options.baseline_dir, "baseline directory")->required();
  check->add_option("--against", check_options.against,
                    "compare the results in this directory instead of rerunning (the files "
                    "both have)");
  check->add_option("--jobs", check_jobs, "baselines rerun in parallel (default 1)")
      ->type_name("N");
  check->add_flag("--update", check_options.update,
                  "rerun every baseline and overwrite it with the new result");
  check->add_option("--reason", check_options.reason,
                    "why the baselines change (with --update; kept in the baseline index)");
  check->add_flag("--strict-configuration", check_options.strict_configuration,
                  "count a baseline run with different settings as a change (exit 1)");

  std::string paper;
  CLI::App* figures = app.add_subcommand(
      "figures", "reproduce a paper's figures and tables (scripts/figures/paper<PAPER>*.sh)");
  figures->add_option("paper", paper, "paper number (000, 001, ...) or 'all'")->required();

  std::string report_dir;
  CLI::App* report =
      app.add_subcommand("report", "report.md + report.html with work-precision plots");
  report->add_option("directory", report_dir, "results directory")->required();
  std::string report_error = "max";
  report
      ->add_option("--error", report_error,
                   "error the plots draw: max (position, default), output, energy; final and "
                   "l2 are not recorded in results")
      ->type_name("MEASURE");

  std::string export_dir, export_out;
  bool export_csv = false, export_json = false;
  CLI::App* export_cmd = app.add_subcommand(
      "export", "every result under a directory as one tidy table (CSV or JSON) for pandas/Matlab");
  export_cmd->add_option("directory", export_dir, "results directory")->required();
  export_cmd->add_flag("--csv", export_csv, "write DIR/results.csv");
  export_cmd->add_flag("--json", export_json, "write DIR/results.json (an array of rows)");
  export_cmd->add_option("--out", export_out, "write to this file instead");

  CommonOptions reference_options;
  std::string samples;
  CLI::App* reference = app.add_subcommand(
      "reference",
      "(re)make the suite's own reference (-p) or a model file's (--model, keyed by its content "
      "hash): odeint-dopri5 vs arkode-erk, rtol 1e-13");
  AddProblemOptions(reference, reference_options);
  reference->add_option("--samples", samples, "number of samples (default 100)")->type_name("K");

  FastestOptions fastest_options;
  CLI::App* fastest = AddFastestCommand(app, fastest_options);
  CompareOptions compare_options;
  CLI::App* compare = AddCompareCommand(app, compare_options);

  MergeOptions merge_options;
  CLI::App* merge = AddMergeCommand(app, merge_options);

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

  try {
    RefuseEmptyValues(app);
    if (!reference_dir.empty()) {
      if (!fs::is_directory(reference_dir) && !reference->parsed())
        throw InputError("--reference-dir " + reference_dir + ": not a directory");
      ::setenv("MBBENCH_REFERENCE_DIR", reference_dir.c_str(), 1);
    }
    if (version) {
      const RunContext& c = CurrentContext();
      const std::string dir = ReferenceDirectory();
      std::printf("mbbench %s\ncommit %s%s\nreference data %s (%s)\n", c.suite_version.c_str(),
                  c.git_commit.c_str(), c.git_dirty ? " (dirty)" : "", ReferenceDataHash().c_str(),
                  dir.empty() ? "no reference directory found" : dir.c_str());
      return kExitOk;
    }
    if (app.get_subcommands().empty())
      throw InputError("a command is required (run 'mbbench --help' for the commands)");
    if (list->parsed()) return CmdList(list_what);
    if (run->parsed())
      return CmdRun(run_options, series, repeats, run_jobs, run_progress, all_methods,
                    run_time_limit);
    if (stability->parsed()) {
      if (!h_min.empty()) stability_search.h_min = PositiveNumber(h_min, "--h-min");
      if (!h_max.empty()) stability_search.h_max = PositiveNumber(h_max, "--h-max");
      if (!factor.empty()) stability_search.factor = Number(factor, "--factor");
      if (!bound.empty()) stability_search.bound = Number(bound, "--bound");
      if (!precision.empty())
        stability_search.relative_precision = Number(precision, "--precision");
      return CmdStability(stability_options, stability_search);
    }
    if (sweep->parsed())
      return CmdSweep(sweep_file, sweep_jobs, shard, sweep_out, force, max_runs, sweep_progress,
                      sweep_time_limit);
    if (check->parsed()) {
      if (!check_jobs.empty()) check_options.jobs = Count(check_jobs, "--jobs", 1, kMaxJobs);
      return RunCheck(check_options);
    }
    if (figures->parsed()) return CmdFigures(paper);
    if (report->parsed()) return CmdReport(report_dir, report_error);
    if (export_cmd->parsed()) return CmdExport(export_dir, export_csv, export_json, export_out);
    if (reference->parsed()) return CmdReference(reference_options, samples);
    if (fastest->parsed()) return CmdFastest(fastest_options);
    if (merge->parsed()) return CmdMerge(merge_options);
    if (compare->parsed()) return RunCompare(compare_options);
    throw InputError("no command");  // unreachable: checked above
  } catch (const InputError& e) {
    std::fprintf(stderr, "mbbench: error: %s\n", e.what());
    return kExitBadInput;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "mbbench: error: %s\n", e.what());
    return kExitRunsFailed;
  }
}

}  // namespace mbb
