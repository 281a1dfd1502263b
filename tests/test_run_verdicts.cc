// Verdicts where a run ends (docs/reports.md, "Verdicts"): a run stopped by its time limit is a
// class of its own (failure_class, harness/failure_class.h) in the result, the export, the
// terminal table and the report, apart from numerical failures; `run` prints the report's
// verdict on each run ("ok (inaccurate: ...)") and every warning; and the report's order flag
// follows the conformance suite's rule (methods/common/observed_order.h).
#include <fcntl.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "harness/cli.h"
#include "harness/report_analysis.h"
#include "harness/report_verdicts.h"
#include "harness/result_summary.h"
#include "methods/common/observed_order.h"
#include "problems/core/parameters.h"
#include "tests/scratch_directory.h"

namespace mbb {
namespace {

namespace fs = std::filesystem;

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// Runs the CLI in-process with file descriptors 1 and 2 sent to `log`; what it printed.
std::string RunPrinting(const std::vector<std::string>& args, const fs::path& log, int* code) {
  std::fflush(stdout);
  std::fflush(stderr);
  const int saved_out = dup(1), saved_err = dup(2);
  const int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  REQUIRE(fd >= 0);
  dup2(fd, 1);
  dup2(fd, 2);
  close(fd);
  *code = RunCli(args);
  std::fflush(stdout);
  std::fflush(stderr);
  dup2(saved_out, 1);
  dup2(saved_err, 2);
  close(saved_out);
  close(saved_err);
  return ReadAll(log);
}

nlohmann::json ReadJson(const fs::path& file) { return nlohmann::json::parse(ReadAll(file)); }

// The summary of `document` written back without its failure_class key (a result of an
// earlier version), or with `value` in it.
ResultSummary Reread(nlohmann::json document, const nlohmann::json* value = nullptr) {
  document.erase("failure_class");
  if (value != nullptr) document["failure_class"] = *value;
  return ParseResultSummaryText(document.dump(), "reread.json");
}

}  // namespace

TEST_CASE("a time-limit stop is its own class in the result, export, terminal and report",
          "[verdicts]") {
  const fs::path dir = ScratchDirectory("verdicts_time_limit");
  int code = 0;
  // newmark-minimal takes thousands of steps to the stiff pendulum's horizon; a limit of 1
  // microsecond is over at the first clock read (after 16 steps): `failed` at the time limit.
  const std::string limited = RunPrinting(
      {"run", "-p", "stiff_pendulum", "--param", "form=minimal", "-m", "newmark-minimal",
       "--repeats", "0", "--time-limit", "1e-6", "--progress", "--out", (dir / "limited").string()},
      dir / "limited.log", &code);
  CHECK(code == 1);
  // RK4 at h = 3 on the minimal stiff pendulum diverges (tests/test_divergence.cc): unstable,
  // a numerical failure.
  const std::string diverged = RunPrinting(
      {"run", "-p", "stiff_pendulum", "--param", "form=minimal", "-m", "odeint-rk4", "--set", "h=3",
       "--t-end", "30", "--repeats", "0", "--out", (dir / "diverged").string()},
      dir / "diverged.log", &code);
  CHECK(code == 1);

  const nlohmann::json limited_doc =
      ReadJson(dir / "limited" / "stiff_pendulum_newmark-minimal.json");
  const nlohmann::json diverged_doc = ReadJson(dir / "diverged" / "stiff_pendulum_odeint-rk4.json");
  CHECK(limited_doc.at("status") == "failed");  // the status contract is unchanged
  CHECK(limited_doc.at("failure_class") == "time_limit");
  CHECK(diverged_doc.at("status") == "unstable");
  CHECK(diverged_doc.at("failure_class") == "numerical");

  // The terminal: the progress line, the table's status column and the count line.
  INFO(limited);
  CHECK(Contains(limited, "stiff_pendulum newmark-minimal: failed (time limit)"));
  CHECK(Contains(limited, "1 run: 1 failed (time limit)"));
  INFO(diverged);
  CHECK(Contains(diverged, "1 run: 1 unstable"));

  // A result written before the key existed: the class is derived from status and message.
  CHECK(Reread(limited_doc).failure_class == "time_limit");
  CHECK(Reread(diverged_doc).failure_class == "numerical");
  const nlohmann::json null_value = nullptr, bad_value = "slow";
  CHECK(Reread(limited_doc, &null_value).failure_class.empty());  // null as written: kept
  CHECK_THROWS_AS(Reread(limited_doc, &bad_value), InputError);

  // Export: a column of its own; report: the grid's cell and the count line.
  REQUIRE(RunCli({"export", dir.string(), "--csv"}) == 0);
  const std::string csv = ReadAll(dir / "results.csv");
  CHECK(Contains(csv.substr(0, csv.find('\n')), ",failure_class,"));
  CHECK(Contains(csv, ",time_limit,"));
  CHECK(Contains(csv, ",numerical,"));
  REQUIRE(RunCli({"report", dir.string()}) == 0);
  const std::string report = ReadAll(dir / "report.md");
  CHECK(Contains(report, "failed (time limit)"));
  CHECK(Contains(report, "2 runs: 1 failed (time limit), 1 unstable."));
}

TEST_CASE("run prints an ok run the report calls inaccurate as such, with the reason",
          "[verdicts]") {
  const fs::path dir = ScratchDirectory("verdicts_inaccurate");
  int code = 0;
  // RK4 at h = 1.2 on the minimal stiff pendulum ends ok with an energy drift of 1.2 of the
  // energy scale (tests/test_divergence.cc), above the warning threshold 0.1, and leaves the
  // reference: inaccurate.
  const std::string out = RunPrinting(
      {"run", "-p", "stiff_pendulum", "--param", "form=minimal", "-m", "odeint-rk4", "--set",
       "h=1.2", "--t-end", "10", "--repeats", "0", "--progress", "--out", dir.string()},
      dir / "run.log", &code);
  INFO(out);
  CHECK(code == 0);
  const ResultSummary r =
      ParseResultSummaryText(ReadAll(dir / "stiff_pendulum_odeint-rk4.json"), "result");
  REQUIRE(StatusText(r) == "ok (inaccurate)");
  // The reasons are the report's (InaccuracyReasons), in full, on the progress line and
  // under the table's row; every warning of the result is printed as well.
  const std::string line = StatusLine(r);
  // So far off, it also left the reference: its error and outputs are named first.
  CHECK(Contains(line, "ok (inaccurate: position error "));
  CHECK(Contains(line, "; energy drift "));
  CHECK(Contains(out, "stiff_pendulum odeint-rk4: " + line));
  CHECK(Contains(out, "    -> " + line));
  REQUIRE_FALSE(r.warnings.empty());
  for (const std::string& warning : r.warnings) CHECK(Contains(out, "-> warning: " + warning));
  CHECK(Contains(out, "1 run: 1 ok (inaccurate)"));
  CHECK(r.failure_class.empty());
}

TEST_CASE("the report's order verdict is the conformance suite's rule", "[verdicts]") {
  // A method of order 4 (odeint-rk4): e = h^4 at h = 0.02, 0.01, 0.005; at h = 0.04 a
  // pre-asymptotic 0.1 (not 0.04^4 = 2.6e-6); at h = 0.0025 the error 3e-11 is below what a
  // reference of 10 digits resolves (scd capped at 10). The rule takes the two finest
  // resolved runs: log(0.01^4 / 0.005^4) / log 2 = 4 exactly; the least-squares slope over all
  // five is pulled far off (both ends), which the verdict no longer follows.
  std::vector<ResultSummary> rows;
  auto add = [&rows](double h, double error, double scd) {
    ResultSummary r;
    r.problem = "p";
    r.method = "odeint-rk4";
    r.status = "ok";
    r.h = h;
    r.error_rel = error;
    r.scd = scd;
    rows.push_back(r);
  };
  add(0.04, 0.1, 1.0);
  for (double h : {0.02, 0.01, 0.005}) add(h, std::pow(h, 4), -std::log10(std::pow(h, 4)));
  add(0.0025, 3e-11, 10.0);
  std::vector<OrderFit> fits = FitObservedOrders(rows);
  REQUIRE(fits.size() == 1);
  OrderFit fit = fits[0];
  CHECK(fit.declared == 4);
  CHECK(fit.observed == Approx(4.0).margin(1e-9));
  CHECK(fit.h_coarse == 0.01);
  CHECK(fit.h_fine == 0.005);
  CHECK(fit.resolved == 4);
  CHECK(std::abs(fit.slope - 4.0) > kOrderSlack);  // the old rule would have flagged it
  CHECK(OrderFlag(fit).empty());
  // The same function the conformance suite calls: its verdicts at and past the slack.
  CHECK(OrderFlag(fit) == OrderVerdict(fit.observed, 4));
  fit.observed = 4.0 - 1.1 * kOrderSlack;
  CHECK(OrderFlag(fit) == "below");
  fit.observed = 4.0 + 1.1 * kOrderSlack;
  CHECK(OrderFlag(fit) == "above");
  CHECK(OrderVerdict(std::nan(""), 4) == "not measured");
  // One resolved run: no order to judge.
  rows = {rows[3], rows[4]};  // h = 0.005 (resolved) and 0.0025 (capped)
  fits = FitObservedOrders(rows);
  REQUIRE(fits.size() == 1);
  CHECK(fits[0].resolved == 1);
  CHECK(OrderFlag(fits[0]) == "not measured");
}

}  // namespace mbb
