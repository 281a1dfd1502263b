// Bad usage and bad input exit 2 with a message naming the argument, key or name.
#include <catch2/catch.hpp>

#include "harness/cli.h"
#include "harness/runner.h"

namespace mbb {
namespace {

int Cli(std::vector<std::string> args) { return RunCli(args); }

std::string InputErrorOf(const RunSpec& spec) {
  try {
    ResolveRun(spec);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

RunSpec Spec(const std::string& problem, const std::string& method) {
  RunSpec spec;
  spec.problem = problem;
  spec.method = method;
  return spec;
}

}  // namespace

TEST_CASE("a malformed --set exits 2 and names the argument", "[cli]") {
  CHECK(Cli({"run", "-p", "planar_pendulum", "-m", "ida", "--set", "rtol"}) == 2);
  CHECK(Cli({"run", "-p", "planar_pendulum", "-m", "ida", "--set", "rtol=abc"}) == 2);
  CHECK(Cli({"run", "-p", "planar_pendulum", "-m", "ida", "--set", "formulation=index7"}) == 2);
  CHECK(Cli({"run", "-p", "planar_pendulum", "-m", "ida", "--set", "colour=red"}) == 2);

  ParameterSet p;
  CHECK_THROWS_WITH(p.SetFromAssignment("rtol", "--set"), Catch::Contains("--set 'rtol'"));
  RunSpec spec = Spec("planar_pendulum", "ida");
  spec.settings.Set("rtol", "abc");
  CHECK_THAT(InputErrorOf(spec), Catch::Contains("rtol") && Catch::Contains("not a number"));
  spec = Spec("planar_pendulum", "ida");
  spec.settings.Set("colour", "red");
  CHECK_THAT(InputErrorOf(spec), Catch::Contains("unknown parameter 'colour'"));
  spec = Spec("planar_pendulum", "ida");
  spec.settings.Set("formulation", "index7");
  CHECK_THAT(InputErrorOf(spec), Catch::Contains("formulation") && Catch::Contains("index7"));
}

TEST_CASE("a parameter combination a method refuses exits 2 before anything runs", "[cli]") {
  // continued-qr: the adaptive step needs the embedded estimate of dopri5 (methods/qr).
  CHECK(Cli({"run", "-p", "planar_pendulum", "-m", "continued-qr", "--set", "step=adaptive",
             "--set", "integrator=rk4"}) == 2);
  RunSpec spec = Spec("planar_pendulum", "traditional-qr");
  spec.settings.Set("step", "adaptive");
  spec.settings.Set("integrator", "rk4");
  CHECK_THAT(InputErrorOf(spec), Catch::Contains("step=adaptive") && Catch::Contains("rk4"));
}

TEST_CASE("an unknown problem or method exits 2 and lists the known names", "[cli]") {
  CHECK(Cli({"run", "-p", "no_such_problem", "-m", "ida"}) == 2);
  CHECK(Cli({"run", "-p", "planar_pendulum", "-m", "no-such-method"}) == 2);
  CHECK(Cli({"stability", "-p", "no_such_problem", "-m", "odeint-rk4"}) == 2);
  CHECK_THAT(
      InputErrorOf(Spec("no_such_problem", "ida")),
      Catch::Contains("unknown problem 'no_such_problem'") && Catch::Contains("planar_pendulum"));
  CHECK_THAT(InputErrorOf(Spec("planar_pendulum", "no-such-method")),
             Catch::Contains("unknown method 'no-such-method'") && Catch::Contains("ida"));
}

TEST_CASE("a NaN or infinite parameter exits 2 and names the key", "[cli]") {
  CHECK(Cli({"run", "-p", "planar_pendulum", "-m", "ida", "--param", "length=nan"}) == 2);
  CHECK(Cli({"run", "-p", "planar_pendulum", "-m", "ida", "--param", "g=inf"}) == 2);
  CHECK(Cli({"run", "-p", "planar_pendulum", "-m", "ida", "--set", "h=nan"}) == 2);
  RunSpec spec = Spec("planar_pendulum", "ida");
  spec.problem_parameters.Set("length", "nan");
  CHECK_THAT(InputErrorOf(spec), Catch::Contains("length") && Catch::Contains("finite"));
  spec = Spec("planar_pendulum", "ida");
  spec.problem_parameters.Set("length", "-1");
  CHECK_THAT(InputErrorOf(spec), Catch::Contains("length") && Catch::Contains("> 0"));
}

TEST_CASE("a method gets the problem form it declares unless the user pinned another", "[cli]") {
  // central-difference-minimal declares form=minimal (methods/newmark/newmark_methods.cc);
  // stiff_pendulum offers it. h = 0.5 is inside the stability limit 2/omega_max = 0.64 s
  // (paper 001 eq. 18).
  RunSpec spec = Spec("stiff_pendulum", "central-difference-minimal");
  spec.settings.Set("h", "0.5");
  spec.repeats = 0;
  RunRecord r = Execute(spec);
  CHECK(r.status == RunStatus::kOk);
  CHECK(r.problem_parameters.at("form") == "minimal");
  CHECK(r.m == 0);
  CHECK_THAT(r.warnings.empty() ? "" : r.warnings.back(),
             Catch::Contains("form=minimal") && Catch::Contains("central-difference-minimal"));

  spec.problem_parameters.Set("form", "constrained");
  r = Execute(spec);
  CHECK(r.status == RunStatus::kNotApplicable);
  CHECK(r.problem_parameters.at("form") == "constrained");
  CHECK_THAT(r.message, Catch::Contains("minimal coordinates") && Catch::Contains("m = 2"));

  // A method without a preferred form leaves the problem's default alone.
  spec = Spec("stiff_pendulum", "odeint-rk4");
  CHECK(DescribeRun(ResolveRun(spec)).problem_parameters.at("form") == "constrained");
  // The CLI path: both commands exit 0 (a not_applicable run is a result, not an error).
  CHECK(Cli({"run", "-p", "stiff_pendulum", "-m", "central-difference-minimal", "--set", "h=0.5",
             "--repeats", "0", "--out", "results/test_cli_form"}) == 0);
  CHECK(Cli({"run", "-p", "stiff_pendulum", "-m", "central-difference-minimal", "--set", "h=0.5",
             "--param", "form=constrained", "--repeats", "0", "--out", "results/test_cli_form"}) ==
        0);
}

TEST_CASE("bad usage exits 2", "[cli]") {
  CHECK(Cli({}) == 2);
  CHECK(Cli({"frobnicate"}) == 2);
  CHECK(Cli({"run", "--no-such-option"}) == 2);
  CHECK(Cli({"run", "-p"}) == 2);
  CHECK(Cli({"list", "things"}) == 2);
  CHECK(Cli({"list", "problems", "extra"}) == 2);
  CHECK(Cli({"figures", "000", "--out", "/tmp/x"}) == 2);  // stray options are not ignored
  CHECK(Cli({"report", "results/latest", "--html"}) == 2);
  CHECK(Cli({"sweep", "/nonexistent/experiment.json"}) == 2);
  CHECK(Cli({"stability", "-p", "planar_pendulum", "-m", "ida"}) == 2);  // no fixed step
  CHECK(Cli({"stability", "-p", "planar_pendulum", "-m", "continued-qr", "--set",
             "step=adaptive"}) == 2);
}

}  // namespace mbb
