// `mbbench compare DIR_A DIR_B` (harness/compare_command.h): the verdicts on constructed
// timings, then on real runs: the same directory twice, the same runs again, and the same
// runs at an eight times smaller step, which do eight times the work and are genuinely
// slower (the harness's own way to slow a run down without faking a time).
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "harness/cli.h"
#include "harness/compare_command.h"
#include "harness/result_summary.h"
#include "tests/scratch_directory.h"

namespace mbb {
namespace {

namespace fs = std::filesystem;

ResultSummary Timed(const std::vector<double>& times, double h = 1e-3) {
  ResultSummary r;
  r.problem = "planar_pendulum";
  r.method = "odeint-rk4";
  r.status = "ok";
  r.h = h;
  r.wall_times = times;
  std::vector<double> sorted = times;
  std::sort(sorted.begin(), sorted.end());
  if (!sorted.empty()) r.wall_median = sorted[sorted.size() / 2];
  return r;
}

const ComparedRun& Only(const Comparison& c) {
  REQUIRE(c.runs.size() == 1);
  return c.runs.front();
}

// Writes DIR with one run of planar_pendulum by odeint-rk4 at step h over 5 s, five timed
// repeats (2500 steps at h = 2e-3: milliseconds, long against the scheduler's time slice).
fs::path RunInto(const std::string& name, const std::string& h) {
  const fs::path dir = ScratchDirectory(name);
  REQUIRE(RunCli({"run", "-p", "planar_pendulum", "-m", "odeint-rk4", "--h", h, "--t-end", "5",
                  "--repeats", "5", "--out", dir.string()}) == 0);
  return dir;
}

}  // namespace

TEST_CASE("compare: the timing and accuracy verdicts", "[compare]") {
  const std::vector<double> base = {1.00, 1.01, 0.99, 1.02, 0.98};
  std::vector<double> slow;
  for (double t : base) slow.push_back(1.5 * t);
  // Five against five, completely separated: p = 0.0122 < 0.05 and +50 % > 5 %.
  const ComparedRun slower =
      Only(CompareResultSets({Timed(base)}, {Timed(slow)}, 0.05, 0.05, false));
  CHECK(slower.timing == "slower");
  CHECK(slower.p_value.value() < 0.05);
  CHECK(Only(CompareResultSets({Timed(slow)}, {Timed(base)}, 0.05, 0.05, false)).timing ==
        "faster");
  // The same times: U at its mean, p = 1.
  const ComparedRun same = Only(CompareResultSets({Timed(base)}, {Timed(base)}, 0.05, 0.05, false));
  CHECK(same.timing == "no significant change");
  CHECK(same.p_value.value() == 1.0);
  // Significant but below the smallest change called one.
  CHECK(Only(CompareResultSets({Timed(base)}, {Timed(slow)}, 0.05, 0.6, false)).timing ==
        "no significant change");
  // Three against three cannot reach p < 0.05 (smallest p 0.081).
  CHECK(Only(CompareResultSets({Timed({1, 1.1, 1.2})}, {Timed({3, 3.1, 3.2})}, 0.05, 0.05, false))
            .timing == "too few repeats");
  CHECK(Only(CompareResultSets({Timed({})}, {Timed(base)}, 0.05, 0.05, false)).timing ==
        "not timed");
  // Different steps pair only with --ignore-settings.
  const Comparison unpaired =
      CompareResultSets({Timed(base, 1e-3)}, {Timed(slow, 5e-4)}, 0.05, 0.05, false);
  REQUIRE(unpaired.runs.size() == 2);
  CHECK(unpaired.runs[0].timing == "only in A");
  CHECK(unpaired.runs[1].timing == "only in B");
  CHECK(
      Only(CompareResultSets({Timed(base, 1e-3)}, {Timed(slow, 5e-4)}, 0.05, 0.05, true)).timing ==
      "slower");
  // Accuracy: a factor above kAccuracyFactor is a change, a status change is named.
  ResultSummary a = Timed(base), b = Timed(base);
  a.error_rel = 1e-6;
  b.error_rel = 3e-6;
  CHECK(Only(CompareResultSets({a}, {b}, 0.05, 0.05, false)).accuracy == "less accurate");
  b.error_rel = 1.5e-6;
  CHECK(Only(CompareResultSets({a}, {b}, 0.05, 0.05, false)).accuracy == "same accuracy");
  b.status = "failed";
  const Comparison failed = CompareResultSets({a}, {b}, 0.05, 0.05, false);
  CHECK(Only(failed).accuracy == "status ok -> failed");
  CHECK(failed.status_changed == 1);
}

TEST_CASE("compare on real runs: same runs unchanged, a smaller step slower", "[compare]") {
  const fs::path a = RunInto("compare_a", "2e-3");
  const auto runs_a = ReadResultSummaries(a.string());
  REQUIRE(runs_a.size() == 1);
  REQUIRE(runs_a[0].wall_times.size() == 5);

  // A directory against itself: every repeat time tied with its copy, p = 1.
  CHECK(RunCli({"compare", a.string(), a.string()}) == 0);
  CHECK(Only(CompareResultSets(runs_a, runs_a, 0.05, 0.05, false)).timing ==
        "no significant change");

  // The same run again. Its times differ, but not by a factor: on the shared test machine
  // (other builds run beside the tests) the median of five repeats moves by tens of percent
  // between two sessions, so the change called one is 50 % here, not the default 5 %.
  const fs::path again = RunInto("compare_again", "2e-3");
  const auto runs_again = ReadResultSummaries(again.string());
  const ComparedRun rerun = Only(CompareResultSets(runs_a, runs_again, 0.05, 0.5, false));
  CHECK(rerun.timing == "no significant change");
  CHECK(rerun.accuracy == "same accuracy");  // deterministic runs: the same error
  CHECK(RunCli({"compare", a.string(), again.string(), "--min-change", "0.5"}) == 0);

  // Eight times the steps of RK4: eight times the work, and an error 8^4 smaller.
  const fs::path fine = RunInto("compare_fine", "2.5e-4");
  const auto runs_fine = ReadResultSummaries(fine.string());
  // Another step is another run unless --ignore-settings pairs them; nothing paired is exit 1.
  CHECK(CompareResultSets(runs_a, runs_fine, 0.05, 0.05, false).paired == 0);
  CHECK(RunCli({"compare", a.string(), fine.string()}) == 1);
  const ComparedRun slower = Only(CompareResultSets(runs_a, runs_fine, 0.05, 0.5, true));
  INFO("median " << slower.median_a.value() << " -> " << slower.median_b.value() << ", p "
                 << slower.p_value.value());
  CHECK(slower.timing == "slower");
  CHECK(slower.accuracy == "more accurate");
  CHECK(RunCli({"compare", a.string(), fine.string(), "--ignore-settings"}) == 1);
  CHECK(RunCli({"compare", a.string(), fine.string(), "--alpha", "2"}) == 2);
}

}  // namespace mbb
