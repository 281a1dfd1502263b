// The suite's one explicit Runge-Kutta engine (methods/common/explicit_runge_kutta.h) and
// the max_steps rule of its one run loop (methods/common/run_loop.h) for the suite's own
// variable-step methods.
#include <catch2/catch.hpp>
#include <cmath>
#include <utility>

#include "methods/common/explicit_runge_kutta.h"
#include "methods/method.h"

namespace mbb {
namespace {

// y' = A y with A = [0 1; -1 0] (the harmonic oscillator): y(t) = rotation of y0 by t.
bool Oscillator(double /*t*/, ConstVectorRef y, VectorRef k, int /*stage*/) {
  k[0] = y[1];
  k[1] = -y[0];
  return true;
}

// Error at t = 1 after N fixed steps from y0 = (1, 0) (exact: (cos 1, -sin 1)).
double FixedStepError(const ButcherTableau& tableau, int steps) {
  ExplicitRungeKutta rk(tableau, 2);
  Vector y(2);
  y << 1.0, 0.0;
  const double h = 1.0 / steps;
  for (int k = 0; k < steps; ++k) {
    rk.start() = y;
    REQUIRE(rk.Step(k * h, h, Oscillator) == 0);
    y = rk.solution();
  }
  return std::hypot(y[0] - std::cos(1.0), y[1] + std::sin(1.0));
}

}  // namespace

TEST_CASE("explicit RK engine: RK4 and Dormand-Prince converge at orders 4 and 5", "[rk]") {
  // Halving h divides the global error by 2^p; the observed order within 0.1 of p at these
  // step counts (the errors sit well above round-off: 1e-9 and 1e-12 at 40 steps).
  const double p4 =
      std::log2(FixedStepError(ClassicalRk4(), 20) / FixedStepError(ClassicalRk4(), 40));
  const double p5 =
      std::log2(FixedStepError(DormandPrince5(), 10) / FixedStepError(DormandPrince5(), 20));
  CHECK(std::abs(p4 - 4.0) < 0.1);
  CHECK(std::abs(p5 - 5.0) < 0.1);
}

TEST_CASE("explicit RK engine: the controlled step meets its tolerance", "[rk]") {
  // Accepted steps have a local error norm <= 1 against atol + rtol |y|: over t in [0, 1]
  // the global error of this non-stiff problem stays within a small multiple of rtol
  // (a tolerance-proportionality argument; 100 rtol leaves room for the accumulation).
  const double rtol = 1e-8, atol = 1e-10;
  ExplicitRungeKutta rk(DormandPrince5(), 2);
  WorkCounters counters;
  Vector y(2);
  y << 1.0, 0.0;
  double t = 0.0, h = 0.5;  // a first step far too long: rejected trials must shrink it
  int accepted = 0;
  while (t < 1.0) {
    const double offered = std::min(h, 1.0 - t);
    rk.start() = y;
    const AdaptiveRkStep step = rk.AdaptiveStep(t, offered, rtol, atol, Oscillator, counters);
    REQUIRE(step.ok());
    CHECK(step.h_taken <= offered);
    t = step.h_taken == offered && offered == 1.0 - t ? 1.0 : t + step.h_taken;
    y = rk.solution();
    h = step.h_next;
    ++accepted;
  }
  CHECK(counters.rejected_steps > 0);
  CHECK(std::hypot(y[0] - std::cos(1.0), y[1] + std::sin(1.0)) < 100.0 * rtol);
  CHECK(accepted < 100);
}

TEST_CASE("explicit RK engine: a reused first stage gives the same steps to the bit", "[rk]") {
  // Dormand-Prince's FSAL stage f(t + h, y1) is the next step's k_1 [HNW s II.5]: reusing it
  // (ReuseFsalStage) and supplying k_1 by hand (known_first_rates) must change nothing but
  // the number of evaluations, one fewer per step after the first.
  auto run = [](bool reuse, long& evaluations) {
    ExplicitRungeKutta rk(DormandPrince5(), 2);
    WorkCounters counters;
    auto rates = [&evaluations](double t, ConstVectorRef y, VectorRef k, int stage) {
      ++evaluations;
      return Oscillator(t, y, k, stage);
    };
    Vector y(2);
    y << 1.0, 0.0;
    double t = 0.0, h = 0.5;
    int steps = 0;
    for (; t < 3.0; ++steps) {
      rk.start() = y;
      const AdaptiveRkStep step = rk.AdaptiveStep(t, h, 1e-9, 1e-11, rates, counters);
      REQUIRE(step.ok());
      t += step.h_taken;
      y = rk.solution();
      h = step.h_next;
      if (reuse) rk.ReuseFsalStage();
    }
    return std::make_pair(y, steps);
  };
  long plain_evaluations = 0, reused_evaluations = 0;
  const auto [plain, plain_steps] = run(false, plain_evaluations);
  const auto [reused, reused_steps] = run(true, reused_evaluations);
  CHECK(reused_steps == plain_steps);
  CHECK(reused[0] == plain[0]);
  CHECK(reused[1] == plain[1]);
  CHECK(plain_evaluations - reused_evaluations == plain_steps - 1);

  // The classical RK4 with k_1 supplied: the same step to the bit, three evaluations.
  long evaluations = 0;
  auto rates = [&evaluations](double t, ConstVectorRef y, VectorRef k, int stage) {
    ++evaluations;
    return Oscillator(t, y, k, stage);
  };
  ExplicitRungeKutta rk(ClassicalRk4(), 2);
  rk.start() << 0.3, -0.7;
  REQUIRE(rk.Step(0.0, 0.1, rates) == 0);
  const Vector computed = rk.solution();
  REQUIRE(evaluations == 4);
  rk.start() << 0.3, -0.7;
  Oscillator(0.0, rk.start(), rk.known_first_rates(), 0);
  REQUIRE(rk.Step(0.0, 0.1, rates) == 0);
  CHECK(evaluations == 7);
  CHECK(rk.solution()[0] == computed[0]);
  CHECK(rk.solution()[1] == computed[1]);
}

TEST_CASE("the suite's variable-step loop bounds accepted steps by max_steps", "[run-loop][rk]") {
  // Partitioning with Dormand-Prince on the four-bar in angles rejects trials (a first step
  // of h = 0.01 is too long at rtol 1e-6): exactly the accepted steps of a free run must be
  // enough, as for the library adapters (test_library_adapters.cc); one fewer must fail.
  const Problem problem = BuildProblem(
      "four_bar", ParameterSet(std::map<std::string, std::string>{{"form", "angles"}}));
  auto method =
      FindMethod("partitioning-projective")
          .create(ParameterSet(std::map<std::string, std::string>{{"integrator", "dopri5"}}));
  RunSettings settings;
  settings.t_end = 2.0;
  settings.h = 0.01;
  settings.rtol = 1e-6;
  settings.atol = 1e-8;
  NullObserver observer;
  const RunOutcome free_run = method->Run(problem, settings, observer);
  REQUIRE(free_run.status == RunStatus::kOk);
  REQUIRE(free_run.counters.rejected_steps > 0);
  settings.max_steps = free_run.counters.steps;
  const RunOutcome exact = method->Run(problem, settings, observer);
  INFO(exact.message);
  CHECK(exact.status == RunStatus::kOk);
  settings.max_steps = free_run.counters.steps - 1;
  const RunOutcome short_run = method->Run(problem, settings, observer);
  CHECK(short_run.status == RunStatus::kFailed);
  CHECK_THAT(short_run.message, Catch::Contains("max_steps ("));
}

}  // namespace mbb
