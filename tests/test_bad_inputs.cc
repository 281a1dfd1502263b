// Bad input, one table: every row is a command line (with the small files it needs written
// into a scratch directory), the exit code it must give (2: bad input, refused before any
// run; 1: runs failed or results unreadable; 0: accepted with a warning, e.g. a file a report
// skipped) and a fragment of its stderr that names the file, key or value at fault. The rows cover
// the CLI, model files, experiment files, output directories and the check and report inputs; a new
// refusal gets a new row.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "harness/cli.h"
#include "tests/scratch_directory.h"

namespace mbb {
namespace {

namespace fs = std::filesystem;

struct BadInput {
  std::vector<std::string> args;
  int exit_code;
  std::string fragment;  // must appear in stderr
};

struct Outcome {
  int exit_code;
  std::string err;
};

// Runs the CLI in-process with file descriptor 2 sent to `log` (stdio and std::cerr both
// write there), then reads what it said.
Outcome RunCapturingStderr(const std::vector<std::string>& args, const fs::path& log) {
  std::fflush(stderr);
  const int saved = dup(2);
  const int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  REQUIRE(saved >= 0);
  REQUIRE(fd >= 0);
  dup2(fd, 2);
  close(fd);
  int code = -1;
  try {
    code = RunCli(args);
  } catch (...) {
    code = -2;  // RunCli must turn every error into an exit code
  }
  std::fflush(stderr);
  dup2(saved, 2);
  close(saved);
  std::ifstream in(log);
  std::stringstream text;
  text << in.rdbuf();
  return {code, text.str()};
}

void Write(const fs::path& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
}

// A valid planar model with one body; `body` replaces the body's keys, `extra` adds top-level
// keys (each starting with a comma).
std::string Model(const std::string& body = R"("mass": 1, "inertia": 0.1, "position": [1, 0])",
                  const std::string& extra = "") {
  return R"({"dimension": 2, "end_time": 1, "bodies": [{"name": "b", )" + body +
         R"(}], "joints": [{"name": "O", "type": "revolute", "body_a": "ground", "point_a": [0, 0],
            "body_b": "b", "point_b": [-1, 0]}])" +
         extra + "}";
}

// A spatial rigid body with the given inertia tensor (rows).
std::string SpatialModel(const std::string& inertia) {
  return R"({"dimension": 3, "end_time": 1, "bodies": [{"name": "top", "mass": 1, "inertia": )" +
         inertia + R"(, "position": [0, 0, 1], "orientation": [1, 0, 0, 0]}]})";
}

}  // namespace

TEST_CASE("every bad input in the table gives its exit code and names what is wrong",
          "[cli][bad-inputs]") {
  const fs::path dir = ScratchDirectory("bad_inputs");
  const std::string d = dir.string() + "/";

  // Model files.
  Write(dir / "not_json.json", "{\"dimension\": 2,");
  Write(dir / "overflow.json", R"({"dimension": 2, "end_time": 1e999, "bodies": []})");
  Write(dir / "duplicate.json", Model(R"("mass": 1, "mass": 2, "inertia": 0.1)"));
  Write(dir / "duplicate_top.json", Model(R"("mass": 1, "inertia": 0.1)", R"(, "end_time": 2)"));
  Write(dir / "unknown_key.json", Model(R"("mass": 1, "inertia": 0.1, "colour": "red")"));
  Write(dir / "empty_formulation.json",
        Model(R"("mass": 1, "inertia": 0.1)", R"(, "formulation": "")"));
  Write(dir / "no_dimension.json", R"({"end_time": 1, "bodies": []})");
  Write(dir / "dimension4.json", R"({"dimension": 4, "end_time": 1, "bodies": []})");
  Write(dir / "negative_mass.json", Model(R"("mass": -1, "inertia": 0.1)"));
  Write(dir / "mass_text.json", Model(R"("mass": "heavy", "inertia": 0.1)"));
  Write(dir / "zero_inertia.json", Model(R"("mass": 1, "inertia": 0)"));
  Write(dir / "no_bodies.json", R"({"dimension": 2, "end_time": 1, "bodies": []})");
  Write(dir / "end_time_zero.json", Model(R"("mass": 1, "inertia": 0.1)", R"(, "step": -1)"));
  Write(dir / "ghost_body.json",
        R"({"dimension": 2, "end_time": 1, "bodies": [{"name": "b", "mass": 1, "inertia": 0.1}],
            "joints": [{"name": "J", "type": "revolute", "body_a": "ghost", "body_b": "b"}]})");
  Write(dir / "self_joint.json",
        R"({"dimension": 2, "end_time": 1, "bodies": [{"name": "b", "mass": 1, "inertia": 0.1}],
            "joints": [{"name": "J", "type": "revolute", "body_a": "b", "body_b": "b"}]})");
  Write(dir / "bad_joint_type.json",
        R"({"dimension": 2, "end_time": 1, "bodies": [{"name": "b", "mass": 1, "inertia": 0.1}],
            "joints": [{"name": "J", "type": "glue", "body_a": "ground", "body_b": "b"}]})");
  Write(dir / "bad_format.json", R"({"format": "mbbench.model/9", "dimension": 2})");
  // Principal moments 1, 1, 3: 3 > 1 + 1, no body has them (positive definite though).
  Write(dir / "triangle.json", SpatialModel("[[1, 0, 0], [0, 1, 0], [0, 0, 3]]"));
  Write(dir / "not_symmetric.json", SpatialModel("[[1, 0.5, 0], [0, 1, 0], [0, 0, 1]]"));
  Write(dir / "bad_id.json", Model(R"("mass": 1, "inertia": 0.1)", R"(, "id": "../escape")"));
  fs::create_directories(dir / "model_dir.json");

  // Experiment files.
  Write(dir / "exp_not_json.json", "{\"runs\": [");
  Write(dir / "exp_array.json", "[1, 2]");
  Write(dir / "exp_unknown.json", R"({"name": "x", "colour": "red"})");
  Write(dir / "exp_runs_object.json", R"({"runs": {"problem": "planar_pendulum"}})");
  Write(dir / "exp_no_method.json", R"({"runs": [{"problem": "planar_pendulum"}]})");
  Write(dir / "exp_t_end.json", R"({"t_end": -1, "runs": []})");
  Write(dir / "exp_repeats.json", R"({"repeats": 1.5, "runs": []})");
  Write(dir / "exp_overflow.json",
        R"({"runs": [{"problem": "planar_pendulum", "method": "ida", "set": {"h": 1e999}}]})");
  Write(dir / "exp_param_bool.json",
        R"({"runs": [{"problem": "planar_pendulum", "method": "ida", "param": {"g": true}}]})");
  Write(dir / "exp_model_empty.json", R"({"runs": [{"model": "", "method": "ida"}]})");
  Write(dir / "exp_big.json",
        R"({"matrix": {"problems": ["planar_pendulum", "four_bar"], "methods": ["ida"]}})");
  Write(dir / "exp_unknown_problem.json",
        R"({"runs": [{"problem": "no_such_problem", "method": "ida"}]})");
  // No methods, so no runs, but param/set combinations that were expanded all the same.
  Write(dir / "exp_no_methods.json",
        R"({"matrix": {"problems": ["planar_pendulum"],
                       "set": {"rtol": [1e-4, 1e-6], "atol": [1e-4, 1e-6]}}})");
  Write(dir / "exp_matrix_key.json", R"({"matrix": {"problems": ["a"], "solvers": ["b"]}})");

  // Output directories, check and report inputs.
  Write(dir / "a_file", "x");
  fs::create_directories(dir / "empty_baselines");
  fs::create_directories(dir / "report_bad");
  Write(dir / "report_bad/truncated.json", R"({"schema": "mbbench.result/1", "problem": {"id)");
  fs::create_directories(dir / "report_malformed");
  Write(dir / "report_malformed/r.json", R"({"schema": "mbbench.result/1", "problem": {}})");

  // A symbolic link loop given where a directory is expected (stat fails with ELOOP).
  fs::create_symlink("loop", dir / "loop");
  fs::create_directories(dir / "report_loop");  // and a result file that is such a loop
  fs::create_symlink("x.json", dir / "report_loop" / "x.json");
  // A results directory with one good result (a committed baseline) beside JSON files that
  // are not results: each skipped file is named on stderr (a warning), the exit code stays 0.
  fs::create_directories(dir / "report_skip");
  fs::copy_file(fs::path(MBBENCH_BASELINES_DIR) / "planar_pendulum_ida.json",
                dir / "report_skip" / "planar_pendulum_ida.json");
  Write(dir / "report_skip/an_array.json", "[1, 2]");
  Write(dir / "report_skip/foreign.json", R"({"schema": "foo/1"})");
  // A stability document with a key of the wrong type: listed as unreadable (exit 1).
  fs::create_directories(dir / "report_bad_stability");
  fs::copy_file(fs::path(MBBENCH_BASELINES_DIR) / "planar_pendulum_ida.json",
                dir / "report_bad_stability" / "planar_pendulum_ida.json");
  Write(dir / "report_bad_stability/s.stability.json",
        R"({"schema": "mbbench.stability/1", "problem": {"id": "x"}, "method": {"id": 7}})");
  // Baselines whose paper claims are bad: a key the baseline does not have, a field the claim
  // format does not have.
  for (const char* tier : {"claim_key", "claim_field"}) {
    fs::create_directories(dir / tier);
    fs::copy_file(fs::path(MBBENCH_BASELINES_DIR) / "planar_pendulum_ida.json",
                  dir / tier / "planar_pendulum_ida.json");
  }
  const std::string claim =
      R"({"id": "c1", "paper": "000", "where": "nowhere", "baseline": "planar_pendulum_ida.json",
          "relation": "equals", "value": "ok", "why": "a test")";
  Write(dir / "claim_key/paper_claims.json", R"({"schema": "mbbench.claims/1", "claims": [)" +
                                                 claim + R"(, "key": "metrics.no_such_metric"}]})");
  Write(dir / "claim_field/paper_claims.json", R"({"schema": "mbbench.claims/1", "claims": [)" +
                                                   claim +
                                                   R"(, "key": "status", "colour": "red"}]})");

  // Baselines that do not parse as documents: refused before any rerun, each one named.
  fs::create_directories(dir / "bad_baselines");
  Write(dir / "bad_baselines/cut.json", R"({"schema": "mbbench.result/1", "problem": )");
  Write(dir / "bad_baselines/typed.json",
        R"({"schema": "mbbench.result/1", "problem": {"id": "planar_pendulum", "parameters": 1}})");

  const std::vector<std::string> pendulum = {"-p", "planar_pendulum", "-m", "odeint-rk4"};
  auto run = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = {"run"};
    args.insert(args.end(), pendulum.begin(), pendulum.end());
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  };
  auto model = [&](const std::string& file) {
    return std::vector<std::string>{"run", "--model", d + file, "-m", "ida"};
  };
  auto sweep = [&](const std::string& file) {
    return std::vector<std::string>{"sweep", d + file, "--out", d + "sweep_out"};
  };

  const std::vector<BadInput> table = {
      // Command line.
      {{}, 2, "mbbench"},
      {{"frobnicate"}, 2, "unknown command 'frobnicate'"},
      // Settings a run would record but not use, and settings said twice.
      {{"run", "-p", "gyro_top", "-m", "recursive", "--set", "integrator=rk4", "--set",
        "rtol=1e-6"},
       2,
       "does not use the setting(s) rtol"},
      {{"run", "-p", "gyro_top", "-m", "recursive", "--set", "h=0.01"},
       2,
       "does not use the setting(s) h"},
      {{"run", "-p", "planar_pendulum", "-m", "ida", "--set", "rtol=1e-6", "--set", "rtol=1e-7"},
       2,
       "'rtol' given twice"},
      {{"run", "-p", "planar_pendulum", "--param", "g=9.81", "--param", "g=1.62", "-m", "ida"},
       2,
       "'g' given twice"},
      {{"run", "-p", "planar_pendulum", "-m", "ida", "--out", ""}, 2, "--out: empty value"},
      {{"run", "-p", "planar_pendulum", "-m", "ida", "--set", "rtol=1e10"}, 2, "rtol"},
      {{"run", "-p", "four_bar", "-m", "partitioning-fixed", "--set", "independent=99"},
       2,
       "'independent' = 99"},
      {{"run", "-p", "planar_pendulum", "-m", "simbody", "--set", "integrator=cpodes"},
       2,
       "integrator=cpodes aborts"},
      // Above a run's own max_steps every trial of the search would be refused.
      {{"fastest", "-p", "planar_pendulum", "-m", "odeint-rk4", "--criterion", "energy_drift=1e-3",
        "--max-steps", "1e8"},
       2,
       "--max-steps"},
      {{"run", "-m", "ida"}, 2, "-p"},
      {{"run", "-p", "no_such_problem", "-m", "ida"}, 2, "no_such_problem"},
      {{"run", "-p", "planar_pendulum", "-m", "no_such_method"}, 2, "no_such_method"},
      {{"run", "-p", "planar_pendulum", "--model", d + "x.json", "-m", "ida"}, 2, "not both"},
      {run({"--set", "rtol"}), 2, "--set 'rtol'"},
      {run({"--set", "colour=red"}), 2, "colour"},
      {run({"--set", "h=0"}), 2, "h"},
      {run({"--h", "0.01", "--set", "h=0.01"}), 2, "give the step once"},
      {run({"--t-end", "-1"}), 2, "--t-end"},
      {run({"--t-end", "1e999"}), 2, "--t-end"},
      {run({"--t-end", "abc"}), 2, "not a number"},
      {run({"--repeats", "-1"}), 2, "--repeats"},
      {run({"--jobs", "0"}), 2, "--jobs"},
      {run({"--jobs", "1e12"}), 2, "--jobs"},
      {{"run", "-p", "planar_pendulum", "-m", "ida", "-m", "ida"}, 2, "-m"},
      // Problem parameters: unknown, not finite, out of range (before anything is allocated).
      {run({"--param", "colour=red"}), 2, "colour"},
      {run({"--param", "g=1e999"}), 2, "'g'"},
      {run({"--param", "g=1/0"}), 2, "'g'"},
      {{"run", "-p", "n_four_bar", "-m", "ida", "--param", "N=1e9"}, 2, "parameter 'N'"},
      {{"run", "-p", "planar_pendulum", "-m", "ida", "--set", "max_order=2.5"}, 2, "max_order"},
      {{"run", "-p", "n_four_bar", "-m", "ida", "--param", "N=0"}, 2, "parameter 'N'"},
      {{"run", "-p", "n_four_bar", "-m", "ida", "--param", "N=2.5"}, 2, "whole number"},
      {{"run", "-p", "n_four_bar", "-m", "ida", "--param", "N=1e999"}, 2, "'N'"},
      // Stability search.
      {{"stability", "-p", "planar_pendulum", "-m", "odeint-rk4", "--h-min", "0"}, 2, "--h-min"},
      {{"stability", "-p", "planar_pendulum", "-m", "odeint-rk4", "--h-max", "-1"}, 2, "--h-max"},
      {{"stability", "-p", "planar_pendulum", "-m", "odeint-rk4", "--h-min", "0.1", "--h-max",
        "0.01"},
       2,
       "--h-max"},
      {{"stability", "-p", "planar_pendulum", "-m", "odeint-rk4", "--factor", "0.5"},
       2,
       "--factor"},
      {{"stability", "-p", "planar_pendulum", "-m", "ida"}, 2, "ida"},
      // Model files: each message names the file and the key, body or value.
      {model("missing.json"), 2, "missing.json"},
      {model("model_dir.json"), 2, "model_dir.json"},
      {model("not_json.json"), 2, "not_json.json"},
      {model("overflow.json"), 2, "'end_time'"},
      {model("duplicate.json"), 2, "duplicate key 'mass'"},
      {model("duplicate_top.json"), 2, "duplicate key 'end_time'"},
      {model("unknown_key.json"), 2, "colour"},
      {model("empty_formulation.json"), 2, "'formulation'"},
      {model("no_dimension.json"), 2, "'dimension'"},
      {model("dimension4.json"), 2, "'dimension'"},
      {model("negative_mass.json"), 2, "mass"},
      {model("mass_text.json"), 2, "'mass'"},
      {model("zero_inertia.json"), 2, "inertia"},
      {model("no_bodies.json"), 2, "no bodies"},
      {model("end_time_zero.json"), 2, "step"},
      {model("ghost_body.json"), 2, "ghost"},
      {model("self_joint.json"), 2, "itself"},
      {model("bad_joint_type.json"), 2, "glue"},
      {model("bad_format.json"), 2, "mbbench.model/9"},
      {model("triangle.json"), 2, "body 'top' inertia violates the triangle inequality"},
      {model("not_symmetric.json"), 2, "symmetric"},
      {model("bad_id.json"), 2, "escape"},
      {{"run", "--model", d + "triangle.json", "-m", "ida", "--param", "N=2"}, 2, "'N'"},
      // Experiment files.
      {sweep("missing_experiment.json"), 2, "missing_experiment.json"},
      {sweep("model_dir.json"), 2, "directory"},
      {sweep("exp_not_json.json"), 2, "exp_not_json.json"},
      {sweep("exp_array.json"), 2, "JSON object"},
      {sweep("exp_unknown.json"), 2, "colour"},
      {sweep("exp_runs_object.json"), 2, "runs"},
      {sweep("exp_no_method.json"), 2, "method"},
      {sweep("exp_t_end.json"), 2, "t_end"},
      {sweep("exp_repeats.json"), 2, "repeats"},
      {sweep("exp_overflow.json"), 2, "exp_overflow.json"},
      {sweep("exp_param_bool.json"), 2, "param"},
      {sweep("exp_model_empty.json"), 2, "model"},
      {{"sweep", d + "exp_big.json", "--max-runs", "1", "--out", d + "sweep_out"}, 2, "--max-runs"},
      {sweep("exp_unknown_problem.json"), 2, "no_such_problem"},
      {sweep("exp_matrix_key.json"), 2, "solvers"},
      {{"sweep", d + "exp_no_methods.json", "--max-runs", "3", "--out", d + "sweep_out"},
       2,
       "more than 3 combinations"},
      {{"sweep", d + "exp_big.json", "--shard", "3/2"}, 2, "--shard"},
      {{"sweep", d + "exp_big.json", "--shard", "x"}, 2, "--shard"},
      // Output directories.
      {run({"--out", d + "a_file"}), 2, "--out"},
      {run({"--out", d + "a_file/below"}), 2, "--out"},
      // check inputs.
      {{"check", "--baseline", d + "no_such_dir"}, 2, "no_such_dir"},
      {{"check", "--baseline", d + "empty_baselines"}, 2, "no result files"},
      {{"check", "--baseline", d + "empty_baselines", "--update"}, 2, "--reason"},
      {{"check", "--baseline", d + "empty_baselines", "--against", d + "nowhere"}, 2, "nowhere"},
      {{"check", "--baseline", d + "loop"}, 2, "loop: cannot be read"},
      {{"check", "--baseline", d + "bad_baselines"}, 2, "cut.json: malformed JSON"},
      {{"check", "--baseline", d + "bad_baselines"}, 2, "typed.json: key 'problem.parameters'"},
      {{"check", "--baseline", d + "report_skip", "--against", d + "loop"},
       2,
       "loop: cannot be read"},
      // A blank reason says nothing: refused like a missing one, before any rerun.
      {{"check", "--baseline", d + "report_skip", "--update", "--reason", " "}, 2, "--reason"},
      {{"check", "--baseline", d + "report_skip", "--update", "--reason", "\t"}, 2, "--reason"},
      // Paper claims: the claim and the key at fault are named.
      {{"check", "--baseline", d + "claim_key", "--against", d + "claim_key"},
       2,
       "claim c1: key 'metrics.no_such_metric' is not in the baseline"},
      {{"check", "--baseline", d + "claim_field", "--against", d + "claim_field"},
       2,
       "(c1): unknown key 'colour'"},
      // report inputs: a missing directory is bad input; an unreadable result is named and
      // makes the exit code 1.
      {{"report", d + "no_such_results"}, 2, "no_such_results"},
      {{"report", d + "report_bad", "--error", "final"}, 2, "--error final: not recorded"},
      {{"report", d + "report_bad", "--error", "rms"}, 2, "--error rms: unknown measure"},
      // compare inputs: both directories must exist; alpha in (0, 1), min change >= 0.
      {{"compare", d + "no_such_results", d + "report_bad"}, 2, "no_such_results"},
      {{"compare", d + "report_bad", d + "no_such_results"}, 2, "no_such_results"},
      {{"compare", d + "report_bad", d + "report_bad", "--alpha", "0"}, 2, "--alpha"},
      {{"compare", d + "report_bad", d + "report_bad", "--min-change", "-1"}, 2, "--min-change"},
      {{"compare", d + "report_bad", d + "report_bad", "--alpha", "x"}, 2, "--alpha"},
      {{"report", d + "report_bad"}, 1, "truncated.json"},
      {{"report", d + "report_malformed"}, 1, "r.json"},
      {{"report", d + "loop"}, 2, "loop: cannot be read"},
      {{"report", d + "report_loop"}, 1, "x.json: cannot be read"},
      {{"export", d + "report_loop", "--csv"}, 1, "x.json: cannot be read"},
      {{"report", d + "report_skip"},
       0,
       "an_array.json: not a mbbench.result/1 document (a JSON array)"},
      {{"report", d + "report_skip"},
       0,
       "foreign.json: not a mbbench.result/1 document (schema 'foo/1')"},
      {{"report", d + "report_bad_stability"}, 1, "s.stability.json: malformed stability document"},
      {{"report", d + "report_bad_stability"}, 1, "key 'method.id': expected a string"},
      // export inputs: the directory, and --out proved writable before anything is read.
      {{"export", d + "loop", "--csv"}, 2, "loop: cannot be read"},
      {{"export", d + "report_skip", "--csv", "--out", d + "empty_baselines"}, 2, "is a directory"},
      {{"export", d + "report_skip", "--csv", "--out", d + "a_file/below.csv"},
       2,
       "cannot be written"},
      {{"export", d + "report_skip", "--csv", "--out", "/proc/mbbench.csv"}, 2, "not writable"},
      {{"export", d + "report_skip", "--json", "--out", d + "skip.json"}, 0, "an_array.json"},
      {{"figures", "999"}, 2, "999"},
  };
  REQUIRE(table.size() >= 40);
  for (const auto& row : table) {
    std::string line;
    for (const auto& a : row.args) line += a + " ";
    INFO("mbbench " << line);
    const Outcome outcome = RunCapturingStderr(row.args, dir / "stderr.txt");
    INFO("stderr: " << outcome.err);
    CHECK(outcome.exit_code == row.exit_code);
    CHECK_THAT(outcome.err, Catch::Contains(row.fragment));
  }
}

TEST_CASE("report names a truncated result next to a good one and exits 1", "[cli][report]") {
  const fs::path dir = ScratchDirectory("report_truncated");
  const std::string out = (dir / "results").string();
  REQUIRE(RunCli({"run", "-p", "planar_pendulum", "-m", "odeint-rk4", "--t-end", "0.01",
                  "--repeats", "0", "--out", out}) == 0);
  Write(dir / "results" / "cut.json", R"({"schema": "mbbench.result/1", "problem": )");
  const Outcome outcome = RunCapturingStderr({"report", out}, dir / "stderr.txt");
  CHECK(outcome.exit_code == 1);
  CHECK_THAT(outcome.err, Catch::Contains("cut.json") && Catch::Contains("not valid JSON"));
  // The report of the readable result is still written, and it lists the unreadable file.
  std::ifstream md(dir / "results" / "report.md");
  std::stringstream text;
  text << md.rdbuf();
  CHECK_THAT(text.str(), Catch::Contains("planar_pendulum") && Catch::Contains("cut.json"));
}

TEST_CASE("fastest refuses an unwritable --out before it searches", "[cli][bad-inputs][fastest]") {
  const fs::path dir = ScratchDirectory("fastest_out");
  Write(dir / "a_file", "x");
  for (const std::string& out :
       {(dir / "a_file").string(), (dir / "a_file/below").string(), std::string("/proc/mbbench")}) {
    INFO("--out " << out);
    const Outcome outcome =
        RunCapturingStderr({"fastest", "-p", "planar_pendulum", "-m", "odeint-rk4", "--criterion",
                            "energy_drift=1e-3", "--out", out},
                           dir / "stderr.txt");
    CHECK(outcome.exit_code == 2);
    CHECK_THAT(outcome.err, Catch::Contains("--out " + out));
    // The search prints "METHOD: searching" as it starts: it must not have started.
    CHECK_THAT(outcome.err, !Catch::Contains("searching"));
  }
}

}  // namespace mbb
