// `mbbench fastest` (harness/fastest.h): the search finds a passing configuration whose
// coarser neighbour fails, says why a method cannot pass, and refuses bad criteria.
#include <catch2/catch.hpp>

#include <cmath>

#include "harness/fastest.h"
#include "tests/run_spec.h"

namespace mbb {
namespace {

FastestSearch PendulumSearch(double bound) {
  FastestSearch s;
  s.base = Spec("planar_pendulum", "", {}, {}, 1.0);
  s.criteria = {{"position_error", bound}};
  s.repeats = 1;
  s.bisections = 3;
  return s;
}

TEST_CASE("fastest brackets the cheapest fixed step that meets the criterion", "[fastest]") {
  // RK4 on the pendulum over 1 s: the error falls like h^4, so some h in the range
  // [horizon / 200000, horizon / 20] meets 1e-6 m and a coarser one does not.
  const FastestResult r = SearchFastest(PendulumSearch(1e-6), "odeint-rk4");
  REQUIRE(r.passed);
  REQUIRE(r.knob == "h");
  REQUIRE(r.setting);
  CHECK(r.values.at("position_error") <= 1e-6);
  CHECK(r.margins.at("position_error") >= 1.0);
  REQUIRE(r.bracketed);
  // Every trial at a coarser h than the chosen one that finished failed the bound, and the
  // chosen h itself was a passing trial.
  bool chosen_seen = false;
  for (const FastestTrial& t : r.trials) {
    if (t.setting > *r.setting * (1.0 + 1e-12)) CHECK_FALSE(t.passed);
    if (t.setting == *r.setting) chosen_seen = chosen_seen || t.passed;
  }
  CHECK(chosen_seen);
  REQUIRE(r.time);
  CHECK(r.time->repeats == 1);
}

TEST_CASE("fastest searches an adaptive method over rtol", "[fastest]") {
  const FastestResult r = SearchFastest(PendulumSearch(1e-6), "ida");
  REQUIRE(r.passed);
  CHECK(r.knob == "rtol");
  CHECK(r.alternatives.empty());  // IDA has no fixed-step mode
  REQUIRE(r.atol);
  CHECK(*r.atol == Approx(*r.setting * 1e-2));
}

TEST_CASE("fastest searches a method with both modes over rtol and h, keeps the faster",
          "[fastest]") {
  // odeint-dopri5 runs adaptive (rtol) or at a fixed h: both searches run, the result is the
  // faster passing one and the other is kept as the alternative.
  const FastestResult r = SearchFastest(PendulumSearch(1e-6), "odeint-dopri5");
  REQUIRE(r.passed);
  REQUIRE(r.alternatives.size() == 1);
  const FastestAlternative& other = r.alternatives[0];
  CHECK(((r.knob == "rtol" && other.knob == "h") || (r.knob == "h" && other.knob == "rtol")));
  bool tried_h = false, tried_rtol = false;
  for (const FastestTrial& t : r.trials) {
    tried_h = tried_h || t.knob == "h";
    tried_rtol = tried_rtol || t.knob == "rtol";
  }
  CHECK(tried_h);
  CHECK(tried_rtol);
  if (other.passed) {
    REQUIRE(other.time);
    REQUIRE(r.time);
    CHECK(r.time->median <= other.time->median);
  }
}

TEST_CASE("fastest gives the reason a method cannot pass", "[fastest]") {
  // newmark-minimal needs m = 0; the pendulum's default form has constraints.
  const FastestResult na = SearchFastest(PendulumSearch(1e-6), "newmark-minimal");
  CHECK_FALSE(na.passed);
  CHECK(na.reason.find("not_applicable") != std::string::npos);
  // A bound below round-off: no rtol down to 1e-14 meets 1e-18 m.
  FastestSearch tight = PendulumSearch(1e-18);
  tight.budget_s = 5.0;
  const FastestResult no = SearchFastest(tight, "odeint-dopri5");
  CHECK_FALSE(no.passed);
  CHECK(no.reason.find("no rtol") != std::string::npos);
}

TEST_CASE("fastest stops bisecting once a finer step saves under 5 % of the steps", "[fastest]") {
  // With --bisections 50 the old search bisected 50 times (or until the budget): the
  // bracket [h, 2h] of the refinement narrows as 2^(2^-k), so after 4 bisections a
  // setting inside it saves at most 1 - 2^(-1/16) = 4.2 % of the steps (kBracketPrecision).
  FastestSearch search = PendulumSearch(1e-6);
  search.bisections = 50;
  search.budget_s = 1e9;  // never: the steps end the search
  const FastestResult r = SearchFastest(search, "odeint-rk4");
  REQUIRE(r.passed);
  REQUIRE(r.bracketed);
  CHECK_FALSE(r.budget_spent);
  CHECK(r.reason.empty());
  size_t first_pass = 0;
  while (!r.trials[first_pass].passed) ++first_pass;
  CHECK(r.trials.size() - first_pass - 1 <= 4);  // bisections after the first passing h
  double failing = 0.0;                          // the finest failing h coarser than the chosen one
  for (const FastestTrial& t : r.trials)
    if (!t.passed && t.setting > *r.setting && (failing == 0.0 || t.setting < failing))
      failing = t.setting;
  REQUIRE(failing > 0.0);
  // Steps ~ 1 / h: the bracket's ends differ by at most 5 % of the chosen steps (plus one
  // step of rounding up).
  CHECK(1.0 / *r.setting - 1.0 / failing <= 0.05 / *r.setting + 1.0);
}

TEST_CASE("fastest runs no trial of more than twice the steps of a passing configuration",
          "[fastest]") {
  // odeint-dopri5: the rtol search runs first; a fixed h needing more than twice the steps
  // of the cheapest passing rtol cannot be the faster, so the h search never runs one.
  const FastestResult r = SearchFastest(PendulumSearch(1e-6), "odeint-dopri5");
  REQUIRE(r.passed);
  long fewest = 0;
  for (const FastestTrial& t : r.trials)
    if (t.knob == "rtol" && t.passed && (fewest == 0 || t.steps < fewest)) fewest = t.steps;
  REQUIRE(fewest > 0);
  for (const FastestTrial& t : r.trials)
    if (t.knob == "h") CHECK(std::ceil(1.0 / t.setting - 1e-9) <= 2.0 * fewest);
  REQUIRE(r.alternatives.size() == 1);
  if (!r.alternatives[0].passed)
    CHECK_THAT(r.alternatives[0].reason, Catch::Contains("cannot be the cheaper"));
}

TEST_CASE("fastest reports a search the budget ended", "[fastest]") {
  // A budget every trial exceeds: the search stops after its first trial, and says so.
  FastestSearch search = PendulumSearch(1e-9);  // the coarsest h = 1/20 s misses 1e-9 m
  search.budget_s = 1e-9;
  const FastestResult r = SearchFastest(search, "odeint-rk4");
  CHECK(r.budget_spent);
  CHECK(r.trials.size() == 1);
  CHECK_THAT(r.reason, Catch::Contains("budget"));
}

TEST_CASE("fastest refuses unknown criteria and missing bounds", "[fastest]") {
  FastestOptions o;
  o.problem = "planar_pendulum";
  o.methods = {"odeint-rk4"};
  o.criteria = {"speed=1"};
  CHECK_THROWS_AS(CmdFastest(o), InputError);
  o.criteria = {"energy_drift"};
  CHECK_THROWS_AS(CmdFastest(o), InputError);
  o.criteria = {"energy_drift=-1"};
  CHECK_THROWS_AS(CmdFastest(o), InputError);
  o.criteria = {};
  CHECK_THROWS_AS(CmdFastest(o), InputError);
}

}  // namespace
}  // namespace mbb
