#include "harness/check_command.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <system_error>
#include <utility>

#include "harness/configuration.h"
#include "harness/file_names.h"
#include "harness/json_io.h"
#include "harness/paper_claims.h"
#include "harness/parallel.h"
#include "harness/regression.h"
#include "harness/runner.h"
#include "harness/stability.h"

namespace mbb {

namespace fs = std::filesystem;

namespace {

// The run a baseline records, as a spec: its problem, parameters, method and settings.
RunSpec BaselineSpec(const BaselineValues& baseline) {
  RunSpec spec;
  spec.problem = baseline.problem;
  spec.problem_parameters = ParameterSet(baseline.problem_parameters);
  spec.method = baseline.method;
  spec.method_parameters = ParameterSet(baseline.method_parameters);
  spec.settings.h = baseline.h;
  spec.settings.rtol = baseline.rtol;
  spec.settings.atol = baseline.atol;
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
  spec.method_parameters = ParameterSet(baseline.method_parameters);
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
// kFailed: the baseline could not be checked (its document, or the --against one, does not
// resolve: an unknown problem, a bad h, a foreign or truncated document; or the rerun threw).
struct CheckOutcome {
  enum class Kind { kUnchanged, kChanged, kConfiguration, kMissing, kFailed };
  Kind kind = Kind::kUnchanged;
  std::vector<std::string> lines;
  std::string document;    // the rerun (or --against) document; empty if missing or failed
  bool bad_input = false;  // kFailed by an InputError (bad input), not by a failing rerun
};

CheckOutcome Failed(const std::string& file, const std::string& reason, bool bad_input) {
  CheckOutcome outcome;
  outcome.kind = CheckOutcome::Kind::kFailed;
  outcome.bad_input = bad_input;
  // The reason names the --against file when that one is at fault; the baseline is named here.
  outcome.lines.push_back(file + ": cannot be checked: " + reason);
  return outcome;
}

// Whether a --against file is there (a dangling link or a link loop is there, and fails to
// read with its own message; fs::exists would throw on the loop).
bool Present(const std::string& path) {
  std::error_code error;
  return fs::exists(fs::symlink_status(path, error));
}

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
    if (!Present(other)) {
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
    if (o.update) return outcome;  // written with all the others once every rerun is done
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
    if (!Present(other)) {
      outcome.kind = CheckOutcome::Kind::kMissing;
      return outcome;
    }
    current = ReadStabilityBaselineValues(other);
    outcome.document = ReadText(other);
  } else {
    StabilityOptions options;
    const StabilityRecord record = SearchStabilityLimit(StabilitySpec(baseline, &options), options);
    outcome.document = StabilityRecordToJson(record);
    if (o.update) return outcome;
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

// Reads every baseline once before running any: malformed ones are bad input (exit 2) now,
// all of them named in one message. (A baseline that parses but does not resolve, say an
// unknown problem, fails in its worker: that baseline fails, the check goes on.)
void ValidateBaselines(const std::vector<std::string>& files) {
  std::string errors;
  for (const auto& file : files) {
    try {
      if (IsStabilityDocument(file))
        ReadStabilityBaselineValues(file);
      else
        ReadBaselineValues(file);
    } catch (const InputError& e) {
      errors += (errors.empty() ? "" : "\n  ") + std::string(e.what());
    }
  }
  if (!errors.empty()) throw InputError(errors);
}

// Each claim names a baseline of its tier and a key that baseline document has; a claim on a
// file that is not there, or on a key the document does not have, is bad input.
void ValidateClaims(const std::vector<PaperClaim>& claims, const std::string& dir,
                    const std::string& claims_file) {
  for (const auto& claim : claims) {
    const fs::path baseline = fs::path(dir) / claim.baseline;
    std::error_code error;
    if (!IsSafeFileName(claim.baseline) || !fs::is_regular_file(baseline, error))
      throw InputError(claims_file + ": claim " + claim.id + ": baseline '" + claim.baseline +
                       "' is not in " + dir);
    if (!ClaimKeyPresent(claim, ReadText(baseline.string())))
      throw InputError(claims_file + ": claim " + claim.id + ": key '" + claim.key +
                       "' is not in the baseline " + claim.baseline);
  }
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
  RequireDirectory(baseline_dir, "--baseline");
  if (!o.against.empty()) RequireDirectory(o.against, "--against");
  if (o.update && !o.against.empty()) throw InputError("check: --update reruns; drop --against");
  if (o.update && o.reason.find_first_not_of(" \t\n\r\f\v") == std::string::npos)
    throw InputError("check --update: say why with --reason TEXT (kept in the baseline index; " +
                     std::string(o.reason.empty() ? "none given" : "a blank one says nothing") +
                     ")");
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
  std::atomic<int> done{0};
  std::mutex print_mutex;
  const auto start = std::chrono::steady_clock::now();
  ParallelFor(files.size(), o.jobs, [&](size_t i) {
    const auto t0 = std::chrono::steady_clock::now();
    // Each baseline on its own: one that cannot be checked fails, the others go on.
    try {
      outcomes[i] =
          IsStabilityDocument(files[i]) ? CheckStability(files[i], o) : CheckResult(files[i], o);
    } catch (const InputError& e) {
      outcomes[i] = Failed(files[i], e.what(), true);
    } catch (const std::exception& e) {
      outcomes[i] = Failed(files[i], e.what(), false);
    }
    const auto now = std::chrono::steady_clock::now();
    static const char* kWords[] = {"unchanged", "CHANGED", "different configuration",
                                   "missing in --against", "FAILED"};
    const bool failed = outcomes[i].kind == CheckOutcome::Kind::kFailed;
    std::lock_guard<std::mutex> lock(print_mutex);
    std::printf("[%d/%zu %6.1fs] %-50s %s (%.1f s)\n", ++done, files.size(),
                std::chrono::duration<double>(now - start).count(),
                fs::path(files[i]).filename().c_str(),
                o.update && !failed ? "rerun" : kWords[static_cast<int>(outcomes[i].kind)],
                std::chrono::duration<double>(now - t0).count());
    for (const auto& line : outcomes[i].lines) std::printf("    %s\n", line.c_str());
    std::fflush(stdout);  // a line per baseline as it finishes, also into a file or pipe
  });
  const int failing_claims = JudgeClaims(claims, files, outcomes);
  int failed = 0, failed_input = 0;
  for (const auto& outcome : outcomes) {
    failed += outcome.kind == CheckOutcome::Kind::kFailed;
    failed_input += outcome.kind == CheckOutcome::Kind::kFailed && outcome.bad_input;
  }

  if (o.update) {
    // All or nothing: a tier half rewritten, without its reason, is worse than the old one.
    if (failed > 0) {
      std::printf("%d of %zu baselines could not be rerun: nothing was written\n", failed,
                  files.size());
      return failed_input == failed ? 2 : 1;
    }
    std::vector<IndexEntry> index;
    std::vector<std::pair<std::string, std::string>> writes;
    for (size_t i = 0; i < files.size(); ++i) {
      const std::string& document = outcomes[i].document;
      if (IsStabilityDocument(files[i])) {
        const StabilityBaselineValues b = ParseStabilityBaselineText(document, files[i]);
        index.push_back(IndexLine(b.file, b.problem, b.method, "stability", o.reason));
      } else {
        const BaselineValues b = ParseBaselineText(document, files[i]);
        index.push_back(IndexLine(b.file, b.problem, b.method, b.status, o.reason));
      }
      writes.push_back({files[i], document});
    }
    writes.push_back({baseline_dir + "/index.json", IndexToJson("baselines: " + o.reason, index)});
    WriteFilesAtomically(writes);
    std::printf("%zu baselines updated (reason recorded in %s/index.json)\n", files.size(),
                baseline_dir.c_str());
    if (failing_claims > 0)
      std::printf("%d paper claim(s) no longer hold on the updated baselines\n", failing_claims);
    return failing_claims > 0 ? 1 : 0;
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
      "--against, %d could not be checked",
      files.size(), changed, configuration,
      o.strict_configuration ? " (counted as changes)" : " (not compared)", missing, failed);
  if (!claims.empty())
    std::printf("; %zu paper claims, %d not holding", claims.size(), failing_claims);
  std::printf("\n");
  // Exit 1 for a change, a claim that fails or a rerun that failed; 2 when the only trouble
  // is baselines (or --against files) that are bad input (docs/regression.md).
  const bool regressed = changed > 0 || failing_claims > 0 ||
                         (o.strict_configuration && configuration > 0) || failed > failed_input;
  if (regressed) return 1;
  return failed_input > 0 ? 2 : 0;
}

}  // namespace mbb
