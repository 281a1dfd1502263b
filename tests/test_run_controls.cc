// The typed run settings (harness/run_controls.h): Validate names each bad value, and a run
// given as command-line text resolves to the same settings, record and configuration key as
// the same run given typed (the text is parsed once, at the boundary).
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "harness/cli_options.h"
#include "harness/configuration.h"
#include "harness/runner.h"

namespace mbb {
namespace {

std::string WhyRefused(const RunControls& c) {
  std::string why;
  return c.Validate(&why) ? std::string() : why;
}

}  // namespace

TEST_CASE("RunControls::Validate names the field, the value and the rule", "[run-controls]") {
  CHECK(WhyRefused(RunControls{}) == "");  // the defaults are valid
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  struct Bad {
    const char* field;
    RunControls controls;
  };
  std::vector<Bad> bad;
  for (double h : {0.0, -1e-3, inf, nan}) {
    bad.push_back({"h =", {}});
    bad.back().controls.h = h;
  }
  for (double rtol : {0.0, -1e-6, 1.5, inf, nan}) {  // 1.5: an error above the solution
    bad.push_back({"rtol =", {}});
    bad.back().controls.rtol = rtol;
  }
  for (double atol : {0.0, -1e-9, inf, nan}) {
    bad.push_back({"atol =", {}});
    bad.back().controls.atol = atol;
  }
  bad.push_back({"max_steps =", {}});
  bad.back().controls.max_steps = 0;
  for (double limit : {-1.0, inf, nan}) {
    bad.push_back({"time_limit_s =", {}});
    bad.back().controls.time_limit_s = limit;
  }
  for (const Bad& b : bad) {
    const std::string why = WhyRefused(b.controls);
    INFO(b.field << " refused with: " << why);
    CHECK_THAT(why, Catch::StartsWith(b.field) && Catch::Contains("must be"));
  }
  RunControls good;  // the edges that pass: rtol = 1, a time limit of 0 (none)
  good.h = 1e-300;
  good.rtol = 1.0;
  good.atol = 1e-300;
  good.max_steps = 1;
  good.time_limit_s = 0.0;
  CHECK(WhyRefused(good) == "");
  // ResolveRun refuses what Validate refuses, as bad input.
  RunSpec spec;
  spec.problem = "planar_pendulum";
  spec.method = "ida";
  spec.settings.rtol = 2.0;
  CHECK_THROWS_AS(ResolveRun(spec), InputError);
}

TEST_CASE("settings given as --set text and typed resolve to the same run", "[run-controls]") {
  // "1/400" as the CLI's fraction: the same double as 1.0 / 400.0 (ParseNumber divides).
  struct Case {
    const char* method;
    std::vector<std::string> sets;
    std::string h;  // --h
    RunControls typed;
    std::map<std::string, std::string> method_parameters;
  };
  std::vector<Case> cases(3);
  cases[0] = {"odeint-rk4", {}, "1/400", {}, {}};
  cases[0].typed.h = 1.0 / 400.0;
  cases[1] = {"ida", {"rtol=1e-6", "atol=1e-9", "samples=interpolate"}, "", {}, {}};
  cases[1].typed.rtol = 1e-6;
  cases[1].typed.atol = 1e-9;
  cases[1].typed.samples = SampleMode::kInterpolate;
  cases[2] = {"continued-qr", {"step=adaptive", "h=1e-3", "rtol=1e-7"}, "", {}, {}};
  cases[2].typed.h = 1e-3;
  cases[2].typed.rtol = 1e-7;
  cases[2].method_parameters = {{"step", "adaptive"}};
  for (const Case& c : cases) {
    INFO(c.method);
    CommonOptions options;
    options.problem = "planar_pendulum";
    options.method = c.method;
    options.sets = c.sets;
    options.h = c.h;
    options.t_end = "0.5";
    const RunSpec from_text = ToRunOptions(options, "unused").spec;
    RunSpec typed;
    typed.problem = "planar_pendulum";
    typed.method = c.method;
    typed.settings = c.typed;
    typed.method_parameters = ParameterSet(c.method_parameters);
    typed.t_end = 0.5;
    const ResolvedRun a = ResolveRun(from_text), b = ResolveRun(typed);
    CHECK(a.settings.h == b.settings.h);
    CHECK(a.settings.rtol == b.settings.rtol);
    CHECK(a.settings.atol == b.settings.atol);
    CHECK(a.settings.t_end == b.settings.t_end);
    CHECK(a.settings.max_steps == b.settings.max_steps);
    CHECK(a.settings.land_on_samples == b.settings.land_on_samples);
    CHECK(a.method_parameters.values() == b.method_parameters.values());
    CHECK(a.read.h == b.read.h);
    CHECK(a.read.tolerances == b.read.tolerances);
    // What resume and `mbbench check` compare: the configuration key of the described run.
    CHECK(ConfigurationKey(DescribeRun(a), from_text) == ConfigurationKey(DescribeRun(b), typed));
  }
}

TEST_CASE("SetFromText sorts run settings from method parameters, parsing them once",
          "[run-controls]") {
  RunSpec spec;
  spec.SetFromText("h", "2.5e-3");
  spec.SetFromText("scheme", "fox-goodwin");
  spec.SetFromText("samples", "interpolate");
  REQUIRE(spec.settings.h);
  CHECK(*spec.settings.h == 2.5e-3);
  CHECK(spec.settings.samples == SampleMode::kInterpolate);
  CHECK(!spec.settings.rtol);  // not given: stays unset, the run's default applies later
  CHECK(spec.method_parameters.values() ==
        std::map<std::string, std::string>{{"scheme", "fox-goodwin"}});
  CHECK_THROWS_WITH(spec.SetFromText("samples", "nearest"),
                    Catch::Contains("samples") && Catch::Contains("land, interpolate"));
  CHECK_THROWS_WITH(spec.SetFromText("atol", "1e-9x", "e.json: runs[0].set"),
                    Catch::Contains("e.json: runs[0].set") && Catch::Contains("not a number"));
}

}  // namespace mbb
