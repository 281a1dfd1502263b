// Bad usage and bad input exit 2 with a message naming the argument, key or name.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>

#include "harness/cli.h"
#include "harness/json_io.h"
#include "harness/runner.h"
#include "harness/sweep_file.h"
#include "tests/scratch_directory.h"

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
  CHECK_THROWS_WITH(spec.SetFromText("rtol", "abc"),
                    Catch::Contains("rtol") && Catch::Contains("not a number"));
  spec = Spec("planar_pendulum", "ida");
  spec.SetFromText("colour", "red");
  CHECK_THAT(InputErrorOf(spec), Catch::Contains("unknown parameter 'colour'"));
  spec = Spec("planar_pendulum", "ida");
  spec.SetFromText("formulation", "index7");  // ida's dae_form under its former name
  CHECK_THAT(InputErrorOf(spec),
             Catch::Contains("'dae_form' (formerly 'formulation')") && Catch::Contains("index7"));
}

TEST_CASE("a parameter combination a method refuses exits 2 before anything runs", "[cli]") {
  // continued-qr: the adaptive step needs the embedded estimate of dopri5 (methods/qr).
  CHECK(Cli({"run", "-p", "planar_pendulum", "-m", "continued-qr", "--set", "step=adaptive",
             "--set", "integrator=rk4"}) == 2);
  RunSpec spec = Spec("planar_pendulum", "traditional-qr");
  spec.SetFromText("step", "adaptive");
  spec.SetFromText("integrator", "rk4");
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

TEST_CASE("list problems ID and list papers; an id elsewhere or an unknown one exits 2", "[cli]") {
  CHECK(Cli({"list", "problems", "pendulum_chain"}) == 0);
  CHECK(Cli({"list", "papers"}) == 0);
  CHECK(Cli({"list", "problems", "no_such_problem"}) == 2);
  CHECK(Cli({"list", "methods", "pendulum_chain"}) == 2);
}

TEST_CASE("run takes several -p and -m; --all-methods keeps the ones named", "[cli]") {
  namespace fs = std::filesystem;
  const fs::path out = ScratchDirectory("cli_several");
  auto results = [](const fs::path& dir) {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir))
      if (e.path().extension() == ".json" && e.path().filename() != "index.json")
        names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
  };
  CHECK(Cli({"run", "-p", "planar_pendulum", "-p", "physical_pendulum", "-m", "odeint-rk4", "-m",
             "odeint-dopri5", "--t-end", "0.1", "--repeats", "0", "--out",
             (out / "both").string()}) == 0);
  CHECK(results(out / "both") == std::vector<std::string>{"physical_pendulum_odeint-dopri5.json",
                                                          "physical_pendulum_odeint-rk4.json",
                                                          "planar_pendulum_odeint-dopri5.json",
                                                          "planar_pendulum_odeint-rk4.json"});
  CHECK(Cli({"run", "--all-methods", "-p", "planar_pendulum", "-m", "odeint-rk4", "-m", "ida",
             "--t-end", "0.1", "--repeats", "0", "--out", (out / "grid").string()}) == 0);
  CHECK(results(out / "grid") ==
        std::vector<std::string>{"planar_pendulum_ida.json", "planar_pendulum_odeint-rk4.json"});
  // The same name twice would write one file twice; -m alone has no problem to run.
  CHECK(Cli({"run", "-p", "planar_pendulum", "-m", "ida", "-m", "ida"}) == 2);
  CHECK(Cli({"run", "-m", "ida", "-m", "odeint-rk4"}) == 2);
  CHECK(Cli({"run", "--all-methods", "-p", "planar_pendulum", "-m", "no-such-method"}) == 2);
}

TEST_CASE("RegisterMethods after the registry's first use is refused", "[cli]") {
  // A program registers its methods first thing in main (docs/adding-a-method.md, "Outside
  // the tree"); later, FindMethod's references into the registry would dangle. The external
  // method test (tests/external_method_test.sh) checks a registration in time.
  const size_t size = MethodRegistry().size();
  MethodEntry entry = FindMethod("odeint-rk4");
  entry.name = "odeint-rk4-copy";
  CHECK_THROWS_AS(RegisterMethods({entry}), InputError);
  CHECK(MethodRegistry().size() == size);
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
  spec.SetFromText("h", "0.5");
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

TEST_CASE("every command has --help, exiting 0", "[cli]") {
  for (const char* command :
       {"list", "run", "stability", "sweep", "check", "figures", "report", "reference"})
    CHECK(Cli({command, "--help"}) == 0);
  CHECK(Cli({"--help"}) == 0);
  CHECK(Cli({"help"}) == 0);
}

TEST_CASE("an option value may follow an equals sign: --opt=value", "[cli]") {
  CHECK(Cli({"run", "-p", "planar_pendulum", "--method=no-such-method"}) == 2);  // parsed
  CHECK(Cli({"run", "--problem=planar_pendulum", "-m", "ida", "--t-end=0"}) == 2);
}

TEST_CASE("a setting the method does not use exits 2 naming it, unless --allow-unused", "[cli]") {
  CHECK(Cli({"run", "-p", "planar_pendulum", "-m", "odeint-rk4", "--set", "rtol=1e-6"}) == 2);
  CHECK(Cli({"run", "-p", "planar_pendulum", "-m", "ida", "--h", "0.05"}) == 2);
  RunSpec spec = Spec("planar_pendulum", "odeint-rk4");
  spec.SetFromText("rtol", "1e-6");
  CHECK_THAT(InputErrorOf(spec), Catch::Contains("rtol") && Catch::Contains("--allow-unused"));
  spec = Spec("planar_pendulum", "odeint-dopri5");  // a fixed h turns its tolerances off
  spec.SetFromText("h", "1e-3");
  spec.SetFromText("atol", "1e-9");
  CHECK_THAT(InputErrorOf(spec), Catch::Contains("atol") && !Catch::Contains("rtol"));
  spec.allow_unused = true;
  const ResolvedRun run = ResolveRun(spec);
  REQUIRE(!run.problem.warnings.empty());
  CHECK_THAT(run.problem.warnings.back(), Catch::Contains("atol"));
  // What a method reads is accepted: rtol by ida, h by rk4, h as the first step of the
  // adaptive continued-qr.
  CHECK(InputErrorOf([] {
          RunSpec s = Spec("planar_pendulum", "ida");
          s.SetFromText("rtol", "1e-6");
          return s;
        }()) == "");
  CHECK(InputErrorOf([] {
          RunSpec s = Spec("planar_pendulum", "continued-qr");
          s.SetFromText("step", "adaptive");
          s.SetFromText("h", "1e-3");
          s.SetFromText("rtol", "1e-6");
          return s;
        }()) == "");
}

TEST_CASE("counts must be whole numbers in range", "[cli]") {
  CHECK(Cli({"run", "-p", "planar_pendulum", "-m", "ida", "--jobs", "0"}) == 2);
  CHECK(Cli({"run", "-p", "planar_pendulum", "-m", "ida", "--jobs", "-1"}) == 2);
  CHECK(Cli({"run", "-p", "planar_pendulum", "-m", "ida", "--jobs", "1e12"}) == 2);
  CHECK(Cli({"run", "-p", "planar_pendulum", "-m", "ida", "--repeats", "-1"}) == 2);
  CHECK(Cli({"run", "-p", "planar_pendulum", "-m", "ida", "--repeats", "2.7"}) == 2);
  CHECK(Cli({"sweep", "x.json", "--shard", "0.5/2"}) == 2);
}

TEST_CASE("every committed experiment file resolves: valid runs, no unused setting", "[cli]") {
  // A sweep refuses the whole file when one run does not resolve, so a committed experiment
  // that names an unused setting (rtol for a fixed-step method) would stop working.
  int files = 0;
  for (const auto& e : std::filesystem::directory_iterator(MBBENCH_EXPERIMENTS_DIR)) {
    if (e.path().extension() != ".json") continue;
    ++files;
    const SweepFile sweep = ReadSweepFile(e.path().string());
    for (const auto& item : sweep.items) {
      INFO(e.path().filename().string() << ": " << item.label);
      CHECK(InputErrorOf(item.spec) == "");
    }
  }
  CHECK(files > 0);
}

}  // namespace mbb
