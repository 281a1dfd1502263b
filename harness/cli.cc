#include "harness/cli.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <mutex>
#include <thread>

#include "harness/json_io.h"
#include "harness/reference_maker.h"
#include "harness/regression.h"
#include "harness/report.h"
#include "harness/runner.h"
#include "harness/stability.h"

namespace mbb {

namespace fs = std::filesystem;

namespace {

constexpr int kExitOk = 0;
constexpr int kExitRunsFailed = 1;
constexpr int kExitBadInput = 2;

const char* kUsage =
    "usage:\n"
    "  mbbench list [problems|methods]\n"
    "  mbbench run [-p PROBLEM | --model FILE.json] [-m METHOD] [--param k=v ...]\n"
    "              [--set k=v ...] [--h H]\n"
    "              [--t-end T] [--out DIR] [--series] [--repeats K]\n"
    "      with no -p: the embedded default catalogue (every problem, its default methods)\n"
    "  mbbench stability -p PROBLEM -m METHOD [--param k=v ...] [--set k=v ...]\n"
    "              [--h-min A] [--h-max B] [--t-end T] [--criterion growth|finite|bound]\n"
    "              [--factor F] [--bound B] [--precision P] [--out DIR]\n"
    "  mbbench sweep EXPERIMENT.json [--jobs N] [--shard K/N] [--out DIR] [--force]\n"
    "  mbbench check --baseline DIR [--against DIR]\n"
    "      rerun (or read from --against) every baseline result and compare\n"
    "  mbbench figures PAPER|all   (runs scripts/figures/paper<PAPER>*.sh: data, plots,\n"
    "                               tables under results/figures/<PAPER>/)\n"
    "  mbbench report DIR     (report.md + report.html with work-precision plots)\n"
    "  mbbench reference -p PROBLEM [--param k=v ...] [--samples K] [--t-end T]\n"
    "      (re)make the suite's own reference: odeint-dopri5 vs arkode-erk, rtol 1e-13\n"
    "exit codes: 0 ok, 1 a run failed or was unstable, 2 bad usage or bad input\n";

// Minimal argument cursor: options take their value from the next argument.
class Args {
 public:
  explicit Args(const std::vector<std::string>& a) : a_(a) {}
  bool done() const { return i_ >= a_.size(); }
  const std::string& next() { return a_[i_++]; }
  std::string value(const std::string& option) {
    if (done()) throw InputError(option + ": missing value");
    return next();
  }
  double number(const std::string& option) { return ParseNumber(value(option), option); }
  /// For commands that take no options after their positional arguments: a stray argument
  /// (e.g. `figures 000 --out DIR`) is an error, not silently ignored.
  void ExpectNoMore(const std::string& command) {
    if (!done()) throw InputError(command + ": unexpected argument '" + next() + "'");
  }

 private:
  const std::vector<std::string>& a_;
  size_t i_ = 0;
};

struct RunOptions {
  RunSpec spec;
  std::string out = "results/latest";
  bool has_problem = false, has_method = false;
};

// Parses the options shared by run and stability. Returns false for an unknown option so
// the caller can try its own.
bool ParseCommonOption(const std::string& arg, Args& args, RunOptions& o) {
  if (arg == "-p" || arg == "--problem") {
    o.spec.problem = args.value(arg);
    o.has_problem = true;
  } else if (arg == "-m" || arg == "--method") {
    o.spec.method = args.value(arg);
    o.has_method = true;
  } else if (arg == "--param") {
    o.spec.problem_parameters.SetFromAssignment(args.value(arg), "--param");
  } else if (arg == "--set") {
    o.spec.settings.SetFromAssignment(args.value(arg), "--set");
  } else if (arg == "--h") {
    o.spec.settings.Set("h", args.value(arg));
  } else if (arg == "--t-end") {
    o.spec.t_end = args.number(arg);
    if (!(o.spec.t_end > 0.0)) throw InputError("--t-end: must be > 0");
  } else if (arg == "--out") {
    o.out = args.value(arg);
  } else if (arg == "--model") {
    o.spec.model_file = args.value(arg);
    o.has_problem = true;
  } else {
    return false;
  }
  return true;
}

std::string Fmt(const char* format, double x) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, format, x);
  return buffer;
}

std::string Cell(const std::optional<double>& x, const char* format = "%.2e") {
  return x ? Fmt(format, *x) : std::string("-");
}

void PrintTableHeader() {
  std::printf("%-22s %-15s %-14s %9s %10s %10s %10s %10s\n", "problem", "method", "status", "steps",
              "wall[s]", "energy", "constraint", "error");
  std::printf("%-22s %-15s %-14s %9s %10s %10s %10s %10s\n", "", "", "", "", "(median)",
              "rel.drift", "|Phi|max", "rel.max");
}

void PrintTableRow(const RunRecord& r) {
  std::optional<double> wall, err;
  if (r.wall_time) wall = r.wall_time->median;
  if (r.metrics.error) err = r.metrics.error->position_max_rel;
  const bool ran = r.status == RunStatus::kOk || r.metrics.samples > 0;
  std::printf("%-22s %-15s %-14s %9ld %10s %10s %10s %10s\n", r.problem_id.c_str(),
              r.method_id.c_str(), ToString(r.status), r.counters.steps, Cell(wall, "%.3g").c_str(),
              ran ? Cell(r.metrics.energy_max_rel_drift).c_str() : "-",
              ran ? Cell(r.metrics.position_residual_max).c_str() : "-", Cell(err).c_str());
  if (r.status != RunStatus::kOk && !r.message.empty())
    std::printf("    -> %s\n", r.message.c_str());
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

int CmdList(Args& args) {
  const std::string what = args.done() ? "all" : args.next();
  args.ExpectNoMore("list");
  if (what != "all" && what != "problems" && what != "methods")
    throw InputError("list: expected 'problems' or 'methods', got '" + what + "'");
  if (what != "methods") {
    std::printf("%-22s %4s %4s %4s  %-9s %-18s %s\n", "problem", "n", "m", "dof", "reference",
                "source", "summary");
    for (const auto& e : ProblemCatalogue()) {
      const Problem p = BuildProblem(e.id, ParameterSet());
      const RunRecord shape = DescribeRun({p, &FindMethod("ida"), {}, {}});
      std::printf("%-22s %4d %4d %4d  %-9s %-18s %s\n", e.id.c_str(), shape.n, shape.m, shape.dof,
                  FindAnyReference(p) ? "yes" : "no", e.source.c_str(), e.summary.c_str());
    }
  }
  if (what == "all") std::printf("\n");
  if (what != "problems") {
    std::printf("%-15s %-6s %-6s %s\n", "method", "h", "tol", "summary");
    for (const auto& e : MethodRegistry()) {
      std::printf("%-15s %-6s %-6s %s\n", e.name.c_str(), e.uses_step_size ? "yes" : "-",
                  e.uses_tolerances      ? "yes"
                  : e.uses_tolerances_if ? "opt"
                                         : "-",
                  e.summary.c_str());
      for (const auto& p : e.parameters) {
        std::string choices;
        for (const auto& c : p.choices) choices += (choices.empty() ? " {" : "|") + c;
        if (!choices.empty()) choices += "}";
        std::printf("    %s=%s%s  %s\n", p.name.c_str(), p.default_value.c_str(), choices.c_str(),
                    p.description.c_str());
      }
    }
  }
  return kExitOk;
}

// Runs specs on `jobs` threads; each finished result is written at once.
struct BatchItem {
  RunSpec spec;
  std::string stem;
};

int RunBatch(const std::vector<BatchItem>& items, const std::string& dir, const std::string& name,
             int jobs, bool resume) {
  fs::create_directories(dir);
  std::vector<IndexEntry> index(items.size());
  std::vector<RunRecord> records(items.size());
  std::vector<char> have_record(items.size(), 0);
  std::atomic<size_t> next{0};
  std::atomic<int> finished{0};
  std::atomic<bool> any_failed{false};
  std::mutex print_mutex;
  const auto start = std::chrono::steady_clock::now();

  auto worker = [&] {
    for (size_t i = next++; i < items.size(); i = next++) {
      const BatchItem& item = items[i];
      IndexEntry& entry = index[i];
      entry.problem = item.spec.problem;
      entry.method = item.spec.method;
      entry.file = item.stem + ".json";
      const std::string path = dir + "/" + entry.file;
      if (resume) {
        const std::string status = ReadResultStatus(path);
        if (!status.empty()) {
          entry.status = status;
          entry.message = "kept from an earlier run";
          if (status == "failed" || status == "unstable") any_failed = true;
          ++finished;
          continue;
        }
      }
      try {
        RunSpec spec = item.spec;
        spec.progress = true;
        RunRecord record = Execute(spec);
        WriteRecord(record, dir, item.stem);
        entry.status = ToString(record.status);
        entry.message = record.message;
        if (!Succeeded(record.status)) any_failed = true;
        records[i] = std::move(record);
        have_record[i] = 1;
      } catch (const InputError& e) {
        entry.status = "invalid";
        entry.message = e.what();
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

  WriteFileAtomically(dir + "/index.json", IndexToJson(name, index));
  PrintTableHeader();
  for (size_t i = 0; i < items.size(); ++i) {
    if (have_record[i]) {
      PrintTableRow(records[i]);
    } else {
      std::printf("%-22s %-15s %-14s %s\n", index[i].problem.c_str(), index[i].method.c_str(),
                  index[i].status.c_str(), index[i].message.c_str());
    }
  }
  std::printf("results: %s/ (index.json + one JSON per run)\n", dir.c_str());
  return any_failed ? kExitRunsFailed : kExitOk;
}

int CmdRun(Args& args) {
  RunOptions o;
  int jobs = 1;
  while (!args.done()) {
    const std::string arg = args.next();
    if (ParseCommonOption(arg, args, o)) continue;
    if (arg == "--series") {
      o.spec.series = true;
    } else if (arg == "--repeats") {
      o.spec.repeats = static_cast<int>(args.number(arg));
    } else if (arg == "--jobs") {
      jobs = static_cast<int>(args.number(arg));
    } else {
      throw InputError("run: unknown option '" + arg + "'\n" + kUsage);
    }
  }
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
    return RunBatch(items, o.out, "default catalogue", jobs, false);
  }
  std::vector<std::string> methods;
  if (o.has_method) {
    methods.push_back(o.spec.method);
  } else {
    methods = BuildSpecProblem(o.spec).default_methods;
  }
  if (!o.spec.model_file.empty()) {
    if (!o.spec.problem.empty()) throw InputError("run: give either -p PROBLEM or --model FILE");
    o.spec.problem = BuildSpecProblem(o.spec).id;  // names the result files
  }
  std::vector<BatchItem> items;
  for (const auto& method : methods) {
    BatchItem item{o.spec, o.spec.problem + "_" + method};
    item.spec.method = method;
    ResolveRun(item.spec);  // bad input exits 2 before anything runs
    items.push_back(item);
  }
  return RunBatch(items, o.out, o.spec.problem, jobs, false);
}

int CmdStability(Args& args) {
  RunOptions o;
  o.out = "results/stability";
  StabilityOptions s;
  while (!args.done()) {
    const std::string arg = args.next();
    if (ParseCommonOption(arg, args, o)) continue;
    if (arg == "--h-min")
      s.h_min = args.number(arg);
    else if (arg == "--h-max")
      s.h_max = args.number(arg);
    else if (arg == "--criterion")
      s.criterion = args.value(arg);
    else if (arg == "--factor")
      s.factor = args.number(arg);
    else if (arg == "--bound")
      s.bound = args.number(arg);
    else if (arg == "--precision")
      s.relative_precision = args.number(arg);
    else
      throw InputError("stability: unknown option '" + arg + "'\n" + kUsage);
  }
  if (!o.has_problem || !o.has_method)
    throw InputError("stability: needs -p PROBLEM and -m METHOD");
  s.on_trial = [](const StabilityTrial& t) {
    std::fprintf(stderr, "  h = %-12.6g %s\n", t.h,
                 t.status == RunStatus::kOk ? "stable" : "unstable");
  };
  const StabilityRecord record = SearchStabilityLimit(o.spec, s);
  fs::create_directories(o.out);
  const std::string problem_name =
      o.spec.model_file.empty() ? o.spec.problem : BuildSpecProblem(o.spec).id;
  std::string stem = problem_name + "_" + o.spec.method;
  const std::string path = o.out + "/" + stem + ".stability.json";
  WriteFileAtomically(path, StabilityRecordToJson(record));
  std::printf(
      "%s %s: h_max_stable = %s, h_min_unstable = %s (criterion %s, horizon %g s)\n",
      o.spec.problem.c_str(), o.spec.method.c_str(), Cell(record.h_max_stable, "%.6g").c_str(),
      Cell(record.h_min_unstable, "%.6g").c_str(), record.criterion.c_str(), record.base.t_end);
  if (!record.message.empty()) std::printf("  %s\n", record.message.c_str());
  std::printf("result: %s\n", path.c_str());
  return kExitOk;
}

int CmdSweep(Args& args) {
  if (args.done()) throw InputError("sweep: needs EXPERIMENT.json");
  const std::string file = args.next();
  int jobs = 1, shard = 0, shards = 1;
  std::string out;
  bool force = false;
  while (!args.done()) {
    const std::string arg = args.next();
    if (arg == "--jobs") {
      jobs = static_cast<int>(args.number(arg));
      if (jobs < 1) throw InputError("--jobs: must be >= 1");
    } else if (arg == "--shard") {
      const std::string v = args.value(arg);
      const auto slash = v.find('/');
      if (slash == std::string::npos) throw InputError("--shard '" + v + "': expected K/N");
      shard = static_cast<int>(ParseNumber(v.substr(0, slash), "--shard K"));
      shards = static_cast<int>(ParseNumber(v.substr(slash + 1), "--shard N"));
      if (shards < 1 || shard < 0 || shard >= shards)
        throw InputError("--shard '" + v + "': need 0 <= K < N");
    } else if (arg == "--out") {
      out = args.value(arg);
    } else if (arg == "--force") {
      force = true;
    } else {
      throw InputError("sweep: unknown option '" + arg + "'\n" + kUsage);
    }
  }
  const SweepFile sweep = ReadSweepFile(file);
  std::vector<BatchItem> items;
  for (size_t i = 0; i < sweep.items.size(); ++i) {
    if (static_cast<int>(i % shards) != shard) continue;  // deterministic slice
    items.push_back({sweep.items[i].spec, sweep.items[i].label});
  }
  for (const auto& item : items) {  // validate every run before running any
    try {
      ResolveRun(item.spec);
    } catch (const InputError& e) {
      throw InputError(file + ": run " + item.stem + ": " + e.what());
    }
  }
  if (out.empty()) out = "results/" + sweep.name;
  const std::string name =
      shards > 1 ? sweep.name + " shard " + std::to_string(shard) + "/" + std::to_string(shards)
                 : sweep.name;
  const std::string dir = shards > 1 ? out + "/shard-" + std::to_string(shard) : out;
  return RunBatch(items, dir, name, jobs, !force);
}

// Reruns (or reads) every baseline result and reports what changed beyond the tolerances
// of harness/regression.h. Exit 1 if anything did.
int CmdCheck(Args& args) {
  std::string baseline_dir, against;
  while (!args.done()) {
    const std::string arg = args.next();
    if (arg == "--baseline")
      baseline_dir = args.value(arg);
    else if (arg == "--against")
      against = args.value(arg);
    else
      throw InputError("check: unknown option '" + arg + "'\n" + kUsage);
  }
  if (baseline_dir.empty()) throw InputError("check: needs --baseline DIR");
  if (!fs::is_directory(baseline_dir))
    throw InputError("--baseline " + baseline_dir + ": not a directory");
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(baseline_dir))
    if (e.path().extension() == ".json" && e.path().filename() != "index.json")
      files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  if (files.empty()) throw InputError("--baseline " + baseline_dir + ": no result files");
  int failures = 0;
  for (const auto& file : files) {
    const BaselineValues baseline = ReadBaselineValues(file);
    BaselineValues current;
    if (!against.empty()) {
      current = ReadBaselineValues(against + "/" + baseline.file);
    } else {
      RunSpec spec;
      spec.problem = baseline.problem;
      spec.problem_parameters = ParameterSet(baseline.problem_parameters);
      spec.method = baseline.method;
      spec.settings = ParameterSet(baseline.method_parameters);
      if (baseline.h) spec.settings.Set("h", Fmt("%.17g", *baseline.h));
      if (baseline.rtol) spec.settings.Set("rtol", Fmt("%.17g", *baseline.rtol));
      if (baseline.atol) spec.settings.Set("atol", Fmt("%.17g", *baseline.atol));
      spec.t_end = baseline.t_end;
      spec.repeats = 0;
      current = BaselineValuesOf(Execute(spec));
    }
    const auto findings = CompareWithBaseline(baseline, current);
    std::printf("%-50s %s\n", baseline.file.c_str(), findings.empty() ? "unchanged" : "CHANGED");
    for (const auto& f : findings) std::printf("    %s\n", f.what.c_str());
    failures += findings.empty() ? 0 : 1;
  }
  std::printf("%zu baselines, %d changed\n", files.size(), failures);
  return failures == 0 ? kExitOk : kExitRunsFailed;
}

// Runs the figure recipes of one paper (or all) from the source tree, with MBBENCH pointing
// at this executable. The recipes are scripts: each states what it regenerates.
int CmdFigures(Args& args) {
  if (args.done()) throw InputError("figures: needs a paper number (000, 001, ...) or 'all'");
  const std::string paper = args.next();
  args.ExpectNoMore("figures");
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
  int failures = 0;
  for (const auto& script : scripts) {
    std::fprintf(stderr, "figures: %s\n", script.filename().c_str());
    const std::string command = "cd '" + std::string(MBBENCH_SOURCE_DIR) + "' && MBBENCH='" + self +
                                "' bash '" + script.string() + "'";
    if (std::system(command.c_str()) != 0) {
      std::fprintf(stderr, "figures: %s failed\n", script.filename().c_str());
      ++failures;
    }
  }
  return failures == 0 ? kExitOk : kExitRunsFailed;
}

int CmdReference(Args& args) {
  RunOptions o;
  int samples = 100;
  while (!args.done()) {
    const std::string arg = args.next();
    if (ParseCommonOption(arg, args, o)) continue;
    if (arg == "--samples")
      samples = static_cast<int>(args.number(arg));
    else
      throw InputError("reference: unknown option '" + arg + "'\n" + kUsage);
  }
  if (!o.has_problem) throw InputError("reference: needs -p PROBLEM");
  const TabulatedReference ref =
      MakeReference(o.spec.problem, o.spec.problem_parameters, samples, o.spec.t_end);
  const std::string dir = ReferenceDirectory() + "/" + ref.problem;
  fs::create_directories(dir);
  WriteReferenceEntry(dir + "/reference.json", ref);
  std::printf("%s: %zu samples to t = %g, methods differ by %.2e, %g digits claimed\nwritten: %s\n",
              ref.problem.c_str(), ref.reference.times.size(), ref.reference.t_max,
              ref.max_difference, ref.reference.digits, (dir + "/reference.json").c_str());
  return kExitOk;
}

}  // namespace

int RunCli(const std::vector<std::string>& argv) {
  try {
    Args args(argv);
    if (args.done()) {
      std::fputs(kUsage, stderr);
      return kExitBadInput;
    }
    const std::string command = args.next();
    if (command == "list") return CmdList(args);
    if (command == "run") return CmdRun(args);
    if (command == "stability") return CmdStability(args);
    if (command == "sweep") return CmdSweep(args);
    if (command == "reference") return CmdReference(args);
    if (command == "check") return CmdCheck(args);
    if (command == "figures") return CmdFigures(args);
    if (command == "report") {
      if (args.done()) throw InputError("report: needs a results directory");
      const std::string dir = args.next();
      args.ExpectNoMore("report");
      const int count = WriteReport(dir);
      std::printf("%d results -> %s/report.md, %s/report.html\n", count, dir.c_str(), dir.c_str());
      return count > 0 ? kExitOk : kExitRunsFailed;
    }
    if (command == "-h" || command == "--help" || command == "help") {
      std::fputs(kUsage, stdout);
      return kExitOk;
    }
    throw InputError("unknown command '" + command + "'\n" + kUsage);
  } catch (const InputError& e) {
    std::fprintf(stderr, "mbbench: error: %s\n", e.what());
    return kExitBadInput;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "mbbench: error: %s\n", e.what());
    return kExitRunsFailed;
  }
}

}  // namespace mbb
