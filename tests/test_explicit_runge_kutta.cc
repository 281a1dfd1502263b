// The suite's one explicit Runge-Kutta engine (methods/common/explicit_runge_kutta.h) and
// the max_steps rule of its one run loop (methods/common/run_loop.h) for the suite's own
// variable-step methods.
#include <catch2/catch.hpp>
#include <cmath>

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
