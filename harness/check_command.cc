#include "harness/check_command.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <thread>

#include "harness/json_io.h"
#include "harness/paper_claims.h"
#include "harness/regression.h"
#include "harness/runner.h"
#include "harness/stability.h"

namespace mbb {

namespace fs = std::filesystem;

namespace {

std::string Exact(double x) {
  char buffer[40];
  std::snprintf(buffer, sizeof buffer, "%.17g", x);
  return buffer;
}

// The run a baseline records, as a spec: its problem, parameters, method and settings.
RunSpec BaselineSpec(const BaselineValues& baseline) {
  RunSpec spec;
  spec.problem = baseline.problem;
  spec.problem_parameters = ParameterSet(baseline.problem_parameters);
  spec.method = baseline.method;
  spec.settings = ParameterSet(baseline.method_parameters);
  if (baseline.h) spec.settings.Set("h", Exact(*baseline.h));
  if (baseline.rtol) spec.settings.Set("rtol", Exact(*baseline.rtol));
  if (baseline.atol) spec.settings.Set("atol", Exact(*baseline.atol));
  spec.t_end = baseline.t_end;
  spec.repeats = 0;  // the check reports timings nowhere: it never judges them
  return spec;
}

// The search a stability baseline records, as a spec and options.
RunSpec StabilitySpec(const StabilityBaselineValues& baseline, StabilityOptions* options) {
  RunSpec spec;
  spec.problem = baseline.problem;
  spec.problem_parameters = ParameterSet(baseline.problem_parameters);
  spec.method = baseline.method;
  spec.settings = ParameterSet(baseline.method_parameters);
  spec.t_end = baseline.t_end;
  spec.repeats = 0;
  options->h_min = baseline.h_min;
  options->h_max = baseline.h_max;
  options->relative_precision = baseline.relative_precision;
  options->criterion = baseline.criterion;
  if (baseline.factor > 0.0) options->factor = baseline.factor;
  if (baseline.bound > 0.0) options->bound = baseline.bound;
  return spec;
}

std::string ReadText(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// What the check concluded for one baseline file, and the document the claims are judged on.
struct CheckOutcome {
  enum class Kind { kUnchanged, kChanged, kConfiguration, kMissing } kind = Kind::kUnchanged;
  std::vector<std::string> lines;
  std::string document;        // the rerun (or --against) document; empty if missing
  bool rerun_refused = false;  // the rerun threw (the baseline is kept as it is)
};

void Conclude(CheckOutcome& outcome, const std::vector<std::string>& differences,
              const std::vector<RegressionFinding>& findings) {
  if (!differences.empty()) {
    outcome.kind = CheckOutcome::Kind::kConfiguration;
    outcome.lines = differences;
    return;
  }
  for (const auto& f : findings) outcome.lines.push_back(f.what);
  if (!outcome.lines.empty()) outcome.kind = CheckOutcome::Kind::kChanged;
}

CheckOutcome CheckResult(const std::string& file, const CheckOptions& o) {
  CheckOutcome outcome;
  const BaselineValues baseline = ReadBaselineValues(file);
  BaselineValues current;
  if (!o.against.empty()) {
    const std::string other = o.against + "/" + baseline.file;
    if (!fs::exists(other)) {
      outcome.kind = CheckOutcome::Kind::kMissing;
      return outcome;
    }
    current = ReadBaselineValues(other);
    outcome.document = ReadText(other);
  } else {
    const RunSpec spec = BaselineSpec(baseline);
    const ResolvedRun resolved = ResolveRun(spec);
    RunRecord record = Execute(resolved, spec);
    // An updated baseline keeps its configuration key, as a sweep writes it (json_io.h).
    record.configuration = ConfigurationKey(DescribeRun(resolved), spec);
    outcome.document = RunRecordToJson(record);
    if (o.update) {
      WriteFileAtomically(file, outcome.document);
      return outcome;
    }
    current = BaselineValuesOf(record);
  }
  Conclude(outcome, ConfigurationDifferences(baseline, current),
           CompareWithBaseline(baseline, current));
  return outcome;
}

CheckOutcome CheckStability(const std::string& file, const CheckOptions& o) {
  CheckOutcome outcome;
  const StabilityBaselineValues baseline = ReadStabilityBaselineValues(file);
  StabilityBaselineValues current;
  if (!o.against.empty()) {
    const std::string other = o.against + "/" + baseline.file;
    if (!fs::exists(other)) {
      outcome.kind = CheckOutcome::Kind::kMissing;
      return outcome;
    }
    current = ReadStabilityBaselineValues(other);
    outcome.document = ReadText(other);
  } else {
    StabilityOptions options;
    const StabilityRecord record = SearchStabilityLimit(StabilitySpec(baseline, &options), options);
    outcome.document = StabilityRecordToJson(record);
    if (o.update) {
      WriteFileAtomically(file, outcome.document);
      return outcome;
    }
    current = StabilityBaselineValuesOf(record);
  }
  Conclude(outcome, StabilityConfigurationDifferences(baseline, current),
           CompareStabilityLimits(baseline, current));
  return outcome;
}

IndexEntry IndexLine(const std::string& file, const std::string& problem, const std::string& method,
                     const std::string& status, const std::string& reason) {
  IndexEntry entry;
  entry.file = file;
  entry.problem = problem;
  entry.method = method;
  entry.status = status;
  entry.message = reason;
  return entry;
}

bool IsStabilityDocument(const std::string& file) {
  return ReadDocumentSchema(file) == kStabilitySchema;
}

// Reads every baseline once before running any: a malformed one is bad input (exit 2) now.
void ValidateBaselines(const std::vector<std::string>& files) {
  for (const auto& file : files) {
    if (IsStabilityDocument(file))
      ReadStabilityBaselineValues(file);
    else
      ReadBaselineValues(file);
  }
}

// Each claim names a baseline of its tier; a claim on a file that is not there is bad input.
void ValidateClaims(const std::vector<PaperClaim>& claims, const std::string& dir,
                    const std::string& claims_file) {
  for (const auto& claim : claims)
    if (!fs::exists(fs::path(dir) / claim.baseline))
      throw InputError(claims_file + ": claim " + claim.id + ": baseline '" + claim.baseline +
                       "' is not in " + dir);
}

// Judges the claims on the new documents; returns how many do not hold.
int JudgeClaims(const std::vector<PaperClaim>& claims, const std::vector<std::string>& files,
                const std::vector<CheckOutcome>& outcomes) {
  int failing = 0;
  for (const auto& claim : claims) {
    size_t i = 0;
    while (i < files.size() && fs::path(files[i]).filename() != claim.baseline) ++i;
    if (i == files.size() || outcomes[i].document.empty()) {
      std::printf("claim %s: not judged (%s not available)\n", claim.id.c_str(),
                  claim.baseline.c_str());
      continue;
    }
    const ClaimVerdict verdict = JudgeClaim(claim, outcomes[i].document);
    failing += !verdict.holds;
    std::printf("claim %s\n", verdict.line.c_str());
  }
  return failing;
}

}  // namespace

int RunCheck(const CheckOptions& o) {
  const std::string& baseline_dir = o.baseline_dir;
  if (!fs::is_directory(baseline_dir))
    throw InputError("--baseline " + baseline_dir + ": not a directory");
  if (!o.against.empty() && !fs::is_directory(o.against))
    throw InputError("--against " + o.against + ": not a directory");
  if (o.update && !o.against.empty()) throw InputError("check: --update reruns; drop --against");
  if (o.update && o.reason.empty())
    throw InputError("check --update: say why with --reason TEXT (kept in the baseline index)");
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(baseline_dir)) {
    const std::string name = e.path().filename().string();
    if (e.path().extension() == ".json" && name != "index.json" && name != kClaimsFileName)
      files.push_back(e.path().string());
  }
  std::sort(files.begin(), files.end());
  if (files.empty()) throw InputError("--baseline " + baseline_dir + ": no result files");
  ValidateBaselines(files);
  const std::string claims_file = (fs::path(baseline_dir) / kClaimsFileName).string();
  std::vector<PaperClaim> claims;
  if (fs::exists(claims_file)) {
    claims = ReadPaperClaims(claims_file);
    ValidateClaims(claims, baseline_dir, claims_file);
  }

  std::vector<CheckOutcome> outcomes(files.size());
  std::atomic<size_t> next{0};
  std::atomic<int> done{0};
  std::mutex print_mutex;
  const auto start = std::chrono::steady_clock::now();
  auto worker = [&] {
    for (size_t i = next++; i < files.size(); i = next++) {
      const auto t0 = std::chrono::steady_clock::now();
      // A baseline whose rerun is refused (a parameter the build no longer accepts) is a
      // change of that baseline, not the end of the check: the other baselines and their
      // paper claims are still judged.
      try {
        outcomes[i] =
            IsStabilityDocument(files[i]) ? CheckStability(files[i], o) : CheckResult(files[i], o);
      } catch (const std::exception& e) {
        outcomes[i] = CheckOutcome{};
        outcomes[i].kind = CheckOutcome::Kind::kChanged;
        outcomes[i].rerun_refused = true;
        outcomes[i].lines.push_back(std::string("rerun refused: ") + e.what());
      }
      const auto now = std::chrono::steady_clock::now();
      static const char* kWords[] = {"unchanged", "CHANGED", "different configuration",
                                     "missing in --against"};
      std::lock_guard<std::mutex> lock(print_mutex);
      std::printf("[%d/%zu %6.1fs] %-50s %s (%.1f s)\n", ++done, files.size(),
                  std::chrono::duration<double>(now - start).count(),
                  fs::path(files[i]).filename().c_str(),
                  o.update ? "updated" : kWords[static_cast<int>(outcomes[i].kind)],
                  std::chrono::duration<double>(now - t0).count());
      for (const auto& line : outcomes[i].lines) std::printf("    %s\n", line.c_str());
      std::fflush(stdout);  // a line per baseline as it finishes, also into a file or pipe
    }
  };
  std::vector<std::thread> threads;
  for (int k = 0; k < std::max(1, o.jobs); ++k) threads.emplace_back(worker);
  for (auto& t : threads) t.join();
  const int failing_claims = JudgeClaims(claims, files, outcomes);

  if (o.update) {
    std::vector<IndexEntry> index;
    for (const auto& file : files) {
      if (IsStabilityDocument(file)) {
        const StabilityBaselineValues b = ReadStabilityBaselineValues(file);
        index.push_back(IndexLine(b.file, b.problem, b.method, "stability", o.reason));
      } else {
        const BaselineValues b = ReadBaselineValues(file);
        index.push_back(IndexLine(b.file, b.problem, b.method, b.status, o.reason));
      }
    }
    WriteFileAtomically(baseline_dir + "/index.json", IndexToJson("baselines: " + o.reason, index));
    std::printf("%zu baselines updated (reason recorded in %s/index.json)\n", files.size(),
                baseline_dir.c_str());
    if (failing_claims > 0)
      std::printf("%d paper claim(s) no longer hold on the updated baselines\n", failing_claims);
    const auto refused = std::count_if(outcomes.begin(), outcomes.end(),
                                       [](const CheckOutcome& c) { return c.rerun_refused; });
    if (refused > 0)
      std::printf("%ld baseline(s) not updated: the rerun was refused\n",
                  static_cast<long>(refused));
    return failing_claims > 0 || refused > 0 ? 1 : 0;
  }
  int changed = 0, configuration = 0, missing = 0;
  for (const auto& outcome : outcomes) {
    changed += outcome.kind == CheckOutcome::Kind::kChanged;
    configuration += outcome.kind == CheckOutcome::Kind::kConfiguration;
    missing += outcome.kind == CheckOutcome::Kind::kMissing;
  }
  if (!o.against.empty()) {  // results in --against that no baseline covers
    std::vector<std::string> extra;
    for (const auto& e : fs::directory_iterator(o.against))
      if (e.path().extension() == ".json" && e.path().filename() != "index.json" &&
          !fs::exists(fs::path(baseline_dir) / e.path().filename()))
        extra.push_back(e.path().filename().string());
    std::sort(extra.begin(), extra.end());
    for (const auto& name : extra) std::printf("not in the baselines: %s\n", name.c_str());
  }
  std::printf(
      "%zu baselines: %d changed, %d with a different configuration%s, %d missing in "
      "--against",
      files.size(), changed, configuration,
      o.strict_configuration ? " (counted as changes)" : " (not compared)", missing);
  if (!claims.empty())
    std::printf("; %zu paper claims, %d not holding", claims.size(), failing_claims);
  std::printf("\n");
  const bool failed =
      changed > 0 || failing_claims > 0 || (o.strict_configuration && configuration > 0);
  return failed ? 1 : 0;
}

}  // namespace mbb
