// The run-loop protocol the library adapters share (methods/common/run_loop.h): every
// adapter (SUNDIALS IDA and ARKODE, Boost.Odeint adaptive and fixed, Simbody) must stop on
// an observer's request, honour max_steps with the same boundary, land exactly on stop
// times and flag a non-finite state the same way.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "methods/common/run_loop.h"
#include "methods/method.h"

namespace mbb {
namespace {

struct AdapterCase {
  std::string method;
  double h;  // 0: adaptive
};

// Every library adapter, adaptive and (where it has one) fixed-step.
const std::vector<AdapterCase>& AdapterCases() {
  static const std::vector<AdapterCase> cases = {
      {"ida", 0.0},           {"arkode-erk", 0.0},   {"arkode-dirk", 0.0},
      {"odeint-dopri5", 0.0}, {"odeint-rkf78", 0.0}, {"simbody", 0.0},
      {"arkode-erk", 0.01},   {"odeint-rk4", 0.01},  {"odeint-dopri5", 0.01},
      {"simbody", 0.01}};
  return cases;
}

// Records the reported times; asks to stop once `stop_after` steps past the start were seen.
class CountingObserver final : public StepObserver {
 public:
  explicit CountingObserver(long stop_after = -1) : stop_after_(stop_after) {}
  void OnStep(const StepSample& s) override { times.push_back(s.t); }
  bool StopRequested() const override {
    return stop_after_ >= 0 && static_cast<long>(times.size()) - 1 >= stop_after_;
  }
  std::string StopReason() const override { return "test observer stop"; }
  std::vector<double> times;

 private:
  long stop_after_;
};

RunOutcome RunCase(const AdapterCase& c, RunSettings settings, StepObserver& observer) {
  static const Problem problem = BuildProblem("planar_pendulum", ParameterSet());
  settings.h = c.h;
  settings.rtol = 1e-8;
  settings.atol = 1e-10;
  auto method = FindMethod(c.method).create(ParameterSet());
  return method->Run(problem, settings, observer);
}

std::string Name(const AdapterCase& c) {
  return c.method + (c.h > 0.0 ? " h=" + std::to_string(c.h) : " adaptive");
}

}  // namespace

TEST_CASE("library adapters: an observer's stop request ends the run after that step",
          "[run-loop]") {
  RunSettings settings;
  settings.t_end = 2.0;
  for (const AdapterCase& c : AdapterCases()) {
    INFO(Name(c));
    CountingObserver observer(3);
    const RunOutcome outcome = RunCase(c, settings, observer);
    CHECK(outcome.status == RunStatus::kUnstable);
    CHECK(outcome.message == "test observer stop");
    CHECK(observer.times.size() == 4);  // the start and three steps
  }
}

TEST_CASE("library adapters: max_steps bounds the accepted steps, with the same boundary",
          "[run-loop]") {
  RunSettings settings;
  settings.t_end = 1.0;
  for (const AdapterCase& c : AdapterCases()) {
    INFO(Name(c));
    CountingObserver free_run;
    REQUIRE(RunCase(c, settings, free_run).status == RunStatus::kOk);
    const long needed = static_cast<long>(free_run.times.size()) - 1;
    REQUIRE(needed > 10);  // so that max_steps = 10 must stop the run

    RunSettings limited = settings;
    limited.max_steps = 10;
    CountingObserver observer;
    const RunOutcome outcome = RunCase(c, limited, observer);
    CHECK(outcome.status == RunStatus::kFailed);
    CHECK(outcome.message.find("max_steps (10)") != std::string::npos);
    CHECK(observer.times.size() <= 11);

    // Exactly the steps the run needs is enough: the limit applies short of t_end only.
    limited.max_steps = needed;
    CountingObserver exact;
    const RunOutcome enough = RunCase(c, limited, exact);
    INFO(enough.message);
    CHECK(enough.status == RunStatus::kOk);
  }
}

TEST_CASE("library adapters: adaptive runs land exactly on every stop time", "[run-loop]") {
  RunSettings settings;
  settings.t_end = 1.0;
  settings.stop_times = {0.1, 0.25, 1.0 / 3.0, 0.7};
  for (const AdapterCase& c : AdapterCases()) {
    if (c.h > 0.0) continue;  // fixed-step runs ignore stop times (method.h)
    INFO(Name(c));
    CountingObserver observer;
    REQUIRE(RunCase(c, settings, observer).status == RunStatus::kOk);
    for (double stop : settings.stop_times) {
      INFO("stop time " << stop);
      // Bitwise: the loop hands the library the stop time and reports the time it lands on.
      CHECK(std::count(observer.times.begin(), observer.times.end(), stop) == 1);
    }
    CHECK(observer.times.back() == settings.t_end);
  }
}

TEST_CASE("odeint adapters: a trial step whose stage meets a singular mass matrix is retried",
          "[run-loop]") {
  // The stiff flyball governor (damper over rod mass 7.5e3 1/s) over its 10 s horizon: the
  // first trial step of odeint-rkf78 (1e-3 of the horizon, 0.01 s) sends a stage far enough
  // off the manifold for a singular reduced mass matrix. That step is rejected and retried
  // shorter, as IDA and ARKODE treat a recoverable right-hand-side failure; it used to end
  // the run `failed` at t = 0. The observer stops the run after 20 accepted steps. A model
  // singular at its start still fails at once, naming the reason.
  const Problem flyball = BuildProblem("flyball_governor", ParameterSet());
  const Problem massless = BuildProblem("zero_mass_chain_a", ParameterSet());
  for (const char* name : {"odeint-rkf78", "odeint-dopri5"}) {
    INFO(name);
    auto method = FindMethod(name).create(ParameterSet());
    RunSettings settings;
    settings.t_end = flyball.t_end;
    CountingObserver observer(20);
    const RunOutcome outcome = method->Run(flyball, settings, observer);
    CHECK(outcome.message == "test observer stop");  // not a failure at t = 0
    CHECK(observer.times.size() == 21);
    CountingObserver none;
    settings.t_end = massless.t_end;
    const RunOutcome singular = method->Run(massless, settings, none);
    CHECK(singular.status == RunStatus::kFailed);
    CHECK_THAT(singular.message, Catch::Contains("singular reduced mass matrix"));
  }
}

TEST_CASE("run loop: a non-finite state ends the run unstable before it is reported",
          "[run-loop]") {
  RunSettings settings;
  CountingObserver observer;
  RunLoop loop(settings, observer);
  Vector q = Vector::Zero(2), v = Vector::Zero(2);
  REQUIRE(loop.AcceptStep({0.5, q, v}));
  v[1] = std::numeric_limits<double>::quiet_NaN();
  CHECK_FALSE(loop.AcceptStep({0.75, q, v}));
  CHECK_FALSE(loop.Continues(0.75));
  RunOutcome outcome;
  loop.Finish(outcome);
  CHECK(outcome.status == RunStatus::kUnstable);
  CHECK(outcome.message == "non-finite state at step 2 (t = 0.75)");
  CHECK(observer.times.size() == 1);
}

TEST_CASE("a Simbody failure is reported on one line", "[run-loop][simbody]") {
  // At rtol 1e-9 Simbody's error control on the double four-bar cannot advance past a
  // singular position (t = 1.23 s, docs/known-failures.md); SimTK's exception text spans
  // several indented lines, which the result's message and the tables quote on one.
  const Problem problem = BuildProblem("double_four_bar", ParameterSet());
  RunSettings settings;
  settings.t_end = 10.0;  // the problem's horizon: its step sequence fails at 1.23 s
  settings.rtol = 1e-9;
  settings.atol = 1e-11;
  NullObserver observer;
  const RunOutcome outcome =
      FindMethod("simbody").create(ParameterSet())->Run(problem, settings, observer);
  if (outcome.status != RunStatus::kFailed) return;  // another Simbody build may get through
  CHECK(outcome.message.rfind("Simbody: ", 0) == 0);
  CHECK(outcome.message.find('\n') == std::string::npos);
  CHECK(outcome.message.find("  ") == std::string::npos);
}

}  // namespace mbb
