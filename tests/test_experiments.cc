// The experiment-file format: the documented examples (docs/experiments/) run, matrix lists
// expand to every combination, model files are found relative to the experiment, and an
// oversized or ill-typed experiment is refused before anything is expanded or run.
#include <sys/wait.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "harness/cli.h"
#include "harness/json_io.h"
#include "harness/result_summary.h"
#include "harness/sweep_file.h"
#include "tests/scratch_directory.h"

namespace mbb {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string InputErrorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("the documented example experiments run, every run ok", "[experiments]") {
  int examples = 0;
  for (const auto& e : fs::directory_iterator(MBBENCH_DOC_EXPERIMENTS_DIR)) {
    if (e.path().extension() != ".json") continue;
    ++examples;
    INFO(e.path().filename().string());
    const SweepFile sweep = ReadSweepFile(e.path().string());
    const fs::path out = ScratchDirectory("experiments_" + e.path().stem().string());
    REQUIRE(RunCli({"sweep", e.path().string(), "--out", out.string()}) == 0);
    const json index = json::parse(std::ifstream(out / "index.json"));
    REQUIRE(index.at("runs").size() == sweep.items.size());
    for (const auto& run : index.at("runs")) CHECK(run.at("status") == "ok");
  }
  CHECK(examples >= 3);
}

TEST_CASE("matrix lists expand to every combination, in a stated order", "[experiments]") {
  const SweepFile sweep =
      ReadSweepFile(std::string(MBBENCH_DOC_EXPERIMENTS_DIR) + "/parameter_study.json");
  REQUIRE(sweep.items.size() == 4);  // N in {2, 4} x h in {1e-2, 5e-3}
  CHECK(sweep.items[0].spec.problem_parameters.GetDouble("N", 0) == 2);
  CHECK(sweep.items[0].spec.settings.h == 1e-2);
  CHECK(sweep.items[3].spec.problem_parameters.GetDouble("N", 0) == 4);
  CHECK(sweep.items[3].spec.settings.h == 5e-3);
  CHECK(sweep.items[3].label == "0003_n_four_bar_odeint-rk4");

  const SweepFile models =
      ReadSweepFile(std::string(MBBENCH_DOC_EXPERIMENTS_DIR) + "/model_matrix.json");
  REQUIRE(models.items.size() == 4);
  CHECK(fs::exists(models.items[0].spec.model_file));  // relative to the experiment's folder
  CHECK(models.items[0].label == "0000_triple_pendulum_ida");
}

TEST_CASE("a bad experiment is refused naming the file and key, before expansion",
          "[experiments]") {
  const fs::path dir = ScratchDirectory("experiments_bad");
  auto write = [&](const std::string& text) {
    const fs::path file = dir / "x.json";
    std::ofstream(file) << text;
    return file.string();
  };
  // 7 keys x 10 values = 1e7 combinations: refused by its size, nothing expanded.
  std::string set;
  for (int k = 0; k < 7; ++k)
    set += std::string(k ? ", " : "") + "\"k" + std::to_string(k) + "\": [1,2,3,4,5,6,7,8,9,10]";
  const std::string huge = write(R"({"matrix": {"problems": ["planar_pendulum"], "methods":
      ["ida"], "set": {)" + set + "}}}");
  CHECK_THAT(InputErrorOf([&] { ReadSweepFile(huge); }),
             Catch::Contains("10000000 runs") && Catch::Contains("--max-runs"));
  CHECK(RunCli({"sweep", huge}) == 2);

  const std::pair<const char*, const char*> cases[] = {
      {R"({"name": 3, "runs": []})", "name"},
      {R"({"t_end": -1, "runs": [{"problem": "planar_pendulum", "method": "ida"}]})", "t_end"},
      {R"({"repeats": 2.5, "runs": [{"problem": "planar_pendulum", "method": "ida"}]})", "repeats"},
      {R"({"repeats": -1, "runs": [{"problem": "planar_pendulum", "method": "ida"}]})", "repeats"},
      {R"({"runs": [{"problem": "planar_pendulum", "model": "m.json", "method": "ida"}]})",
       "runs[0]"},
      {R"({"runs": [{"problem": "planar_pendulum", "method": "ida", "series": "yes"}]})", "series"},
      {R"({"runs": {"problem": "planar_pendulum"}})", "runs"},
  };
  for (const auto& [text, key] : cases) {
    INFO(text);
    const std::string file = write(text);
    CHECK_THAT(InputErrorOf([&] { ReadSweepFile(file); }),
               Catch::Contains(file) && Catch::Contains(key));
  }
  CHECK_THAT(InputErrorOf([&] { ReadSweepFile(dir.string()); }), Catch::Contains("directory"));
}

namespace {

// A result without what differs between two executions of the same run: the context (date,
// host), the timings (wall and CPU), and where the files lie.
json WithoutTimings(json result) {
  result.erase("context");
  result["metrics"].erase("wall_time_s");
  result["metrics"].erase("time_per_step_s");
  result["metrics"].erase("cpu_time_s");
  return result;
}

}  // namespace

TEST_CASE("the GNU parallel recipe's merged shards equal a one-machine sweep", "[experiments]") {
  const fs::path dir = ScratchDirectory("experiments_cluster");
  const std::string experiment = std::string(MBBENCH_DOC_EXPERIMENTS_DIR) + "/parameter_study.json";
  REQUIRE(RunCli({"sweep", experiment, "--out", (dir / "one").string()}) == 0);
  const std::string scripts = MBBENCH_CLUSTER_SCRIPTS_DIR;
  const std::string sharded = (dir / "sharded").string();
  const std::string command = "export MBBENCH='" + std::string(MBBENCH_EXE) + "' && '" + scripts +
                              "/parallel_sweep.sh' '" + experiment + "' '" + sharded +
                              "' 3 >/dev/null 2>&1 && '" + scripts + "/merge_shards.sh' '" +
                              sharded + "'";
  REQUIRE(std::system(command.c_str()) == 0);
  const json one_index = json::parse(std::ifstream(dir / "one" / "index.json"));
  const json merged_index = json::parse(std::ifstream(fs::path(sharded) / "index.json"));
  REQUIRE(merged_index.at("runs").size() == one_index.at("runs").size());
  for (const auto& run : one_index.at("runs")) {
    const std::string file = run.at("file");
    INFO(file);
    const json a = WithoutTimings(json::parse(std::ifstream(dir / "one" / file)));
    const json b = WithoutTimings(json::parse(std::ifstream(fs::path(sharded) / file)));
    CHECK(a == b);  // runs are deterministic: equal to the last bit, timings aside
  }
  CHECK_FALSE(fs::exists(fs::path(sharded) / "shard-0"));
}

namespace {

// The exit status of a shell command (std::system returns a wait status).
int ShellExit(const std::string& command) {
  const int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

TEST_CASE("merge_shards.sh (mbbench merge) refuses a missing or killed shard and moves nothing",
          "[experiments]") {
  const fs::path dir = ScratchDirectory("experiments_cluster_failures");
  const std::string experiment = std::string(MBBENCH_DOC_EXPERIMENTS_DIR) + "/parameter_study.json";
  REQUIRE(RunCli({"sweep", experiment, "--out", (dir / "one").string()}) == 0);
  const std::string scripts = MBBENCH_CLUSTER_SCRIPTS_DIR;
  const fs::path sharded = dir / "sharded";
  const std::string merge = "MBBENCH='" + std::string(MBBENCH_EXE) + "' '" + scripts +
                            "/merge_shards.sh' '" + sharded.string() + "'";
  // Shards 0 and 2 of 3 only, shard 2 killed before it wrote its result (its manifest, written
  // first, says what it owed).
  REQUIRE(RunCli({"sweep", experiment, "--shard", "0/3", "--out", sharded.string()}) == 0);
  REQUIRE(RunCli({"sweep", experiment, "--shard", "2/3", "--out", sharded.string()}) == 0);
  REQUIRE(fs::exists(sharded / "shard-2" / "manifest.json"));
  fs::remove(sharded / "shard-2" / "0002_n_four_bar_odeint-rk4.json");
  const auto files_in = [](const fs::path& d) {
    size_t n = 0;
    for (const auto& e : fs::directory_iterator(d)) n += e.is_regular_file();
    return n;
  };
  const size_t shard0_files = files_in(sharded / "shard-0");
  CHECK(ShellExit(merge + " 2>" + (dir / "err1").string()) == 1);
  std::string err((std::istreambuf_iterator<char>(std::ifstream(dir / "err1").rdbuf())), {});
  CHECK_THAT(err, Catch::Contains("shard-2: unfinished") &&
                      Catch::Contains("0002_n_four_bar_odeint-rk4.json") &&
                      Catch::Contains("--shard 2/3"));
  CHECK(files_in(sharded / "shard-0") == shard0_files);  // nothing moved
  CHECK_FALSE(fs::exists(sharded / "index.json"));
  // Shard 2 rerun: now shard 1 of 3 is named as missing, with its rerun.
  REQUIRE(RunCli({"sweep", experiment, "--shard", "2/3", "--out", sharded.string()}) == 0);
  CHECK(ShellExit(merge + " 2>" + (dir / "err2").string()) == 1);
  err.assign(std::istreambuf_iterator<char>(std::ifstream(dir / "err2").rdbuf()), {});
  CHECK_THAT(err, Catch::Contains("shard 1 of 3") && Catch::Contains("--shard 1/3"));
  CHECK(files_in(sharded / "shard-0") == shard0_files);
  // Shard 1 resubmitted alone through the Slurm script (N given, task id 1): the merge
  // succeeds and equals the one-machine sweep.
  const std::string sbatch = "MBBENCH='" + std::string(MBBENCH_EXE) + "' bash '" + scripts +
                             "/slurm_sweep.sbatch' '" + experiment + "' '" + sharded.string() + "'";
  CHECK(ShellExit("env -u SLURM_ARRAY_TASK_ID " + sbatch + " 3 2>/dev/null") == 2);
  CHECK(ShellExit("SLURM_ARRAY_TASK_ID=3 " + sbatch + " 3 2>/dev/null") == 2);
  CHECK(ShellExit("SLURM_ARRAY_TASK_ID=1 " + sbatch + " 0 2>/dev/null") == 2);
  REQUIRE(ShellExit("SLURM_ARRAY_TASK_ID=1 SLURM_ARRAY_TASK_COUNT=1 " + sbatch +
                    " 3 >/dev/null 2>&1") == 0);
  REQUIRE(ShellExit(merge) == 0);
  CHECK(ShellExit(merge + " 2>/dev/null") == 0);  // merging twice is a no-op
  CHECK(ShellExit("MBBENCH='" + std::string(MBBENCH_EXE) + "' '" + scripts + "/merge_shards.sh' '" +
                  (dir / "none").string() + "' 2>/dev/null") == 2);
  const json one_index = json::parse(std::ifstream(dir / "one" / "index.json"));
  const json merged_index = json::parse(std::ifstream(sharded / "index.json"));
  REQUIRE(merged_index.at("runs").size() == one_index.at("runs").size());
  for (const auto& run : one_index.at("runs")) {
    const std::string file = run.at("file");
    INFO(file);
    CHECK(WithoutTimings(json::parse(std::ifstream(dir / "one" / file))) ==
          WithoutTimings(json::parse(std::ifstream(sharded / file))));
  }
}

TEST_CASE("submit.sh submits the array with absolute paths and an afterok merge", "[experiments]") {
  const fs::path dir = ScratchDirectory("experiments_cluster_submit");
  const std::string experiment = std::string(MBBENCH_DOC_EXPERIMENTS_DIR) + "/parameter_study.json";
  REQUIRE(RunCli({"sweep", experiment, "--out", (dir / "one").string()}) == 0);
  const std::string scripts = MBBENCH_CLUSTER_SCRIPTS_DIR;
  fs::create_directories(dir / "bin");
  fs::create_symlink(fs::path(scripts) / ".." / ".." / "tests" / "fake_sbatch.sh",
                     dir / "bin" / "sbatch");
  // From another directory, with a relative OUT: the jobs must get absolute paths.
  const std::string command = "cd '" + dir.string() + "' && PATH='" + (dir / "bin").string() +
                              ":'\"$PATH\" FAKE_SBATCH_LOG='" + (dir / "sbatch.log").string() +
                              "' MBBENCH='" + std::string(MBBENCH_EXE) + "' '" + scripts +
                              "/submit.sh' '" + experiment + "' sharded 3 --jobs 1 >/dev/null";
  REQUIRE(ShellExit(command) == 0);
  std::ifstream log(dir / "sbatch.log");
  std::string array_line, merge_line;
  std::getline(log, array_line);
  std::getline(log, merge_line);
  CHECK_THAT(array_line, Catch::Contains("--array=0-2") &&
                             Catch::Contains("--output=" + (dir / "sharded" / "logs").string()) &&
                             Catch::Contains("MBBENCH=/") &&
                             Catch::Contains((dir / "sharded").string() + " 3 --jobs 1"));
  CHECK_THAT(merge_line, Catch::Contains("--dependency=afterok:1001") &&
                             Catch::Contains("merge_shards.sh' '" + (dir / "sharded").string()));
  const json one_index = json::parse(std::ifstream(dir / "one" / "index.json"));
  const json merged_index = json::parse(std::ifstream(dir / "sharded" / "index.json"));
  CHECK(merged_index.at("runs").size() == one_index.at("runs").size());
  CHECK(ShellExit("'" + scripts + "/submit.sh' '" + experiment + "' x 0 2>/dev/null") == 2);
}

}  // namespace mbb

namespace mbb {
namespace {

std::string FileText(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), {});
}

size_t ResultFilesIn(const fs::path& dir) {
  size_t n = 0;
  for (const auto& e : fs::directory_iterator(dir))
    n += e.path().filename().string().rfind("000", 0) == 0;
  return n;
}

}  // namespace

TEST_CASE("mbbench merge: partial, resumable after a merge, idempotent, one build, no duplicates",
          "[experiments]") {
  const fs::path dir = ScratchDirectory("experiments_merge");
  const std::string experiment = std::string(MBBENCH_DOC_EXPERIMENTS_DIR) + "/parameter_study.json";
  const fs::path out = dir / "sharded";
  const auto shard = [&](const std::string& k, bool force = false) {
    std::vector<std::string> args = {"sweep", experiment, "--shard", k, "--out", out.string()};
    if (force) args.push_back("--force");
    return RunCli(args);
  };
  REQUIRE(shard("0/3") == 0);
  REQUIRE(shard("2/3") == 0);
  // --partial merges shards 0 and 2 and lists shard 1's run as missing, with its rerun.
  REQUIRE(RunCli({"merge", out.string(), "--partial"}) == 0);
  json index = json::parse(std::ifstream(out / "index.json"));
  CHECK(index.at("runs").size() == 3);
  CHECK(index.at("merge").at("partial") == true);
  REQUIRE(index.at("merge").at("missing").size() == 1);
  CHECK(index["merge"]["missing"][0].at("file") == "0001_n_four_bar_odeint-rk4.json");
  CHECK_THAT(index["merge"]["missing"][0].at("rerun").get<std::string>(),
             Catch::Contains("--shard 1/3"));
  CHECK_FALSE(fs::exists(out / "shard-0"));
  CHECK(RunCli({"merge", out.string()}) == 1);  // still missing: a plain merge refuses
  // A shard rerun into the merged directory runs nothing that is merged.
  REQUIRE(shard("0/3") == 0);
  CHECK(ResultFilesIn(out / "shard-0") == 0);
  REQUIRE(shard("1/3") == 0);
  REQUIRE(RunCli({"merge", out.string()}) == 0);
  index = json::parse(std::ifstream(out / "index.json"));
  CHECK(index.at("runs").size() == 4);
  CHECK(index.at("merge").at("partial") == false);
  CHECK_FALSE(fs::exists(out / "shard-1"));
  const std::string merged_index = FileText(out / "index.json");
  REQUIRE(RunCli({"merge", out.string()}) == 0);  // twice: nothing changes
  CHECK(FileText(out / "index.json") == merged_index);
  CHECK(ResultFilesIn(out) == 4);

  // The same run under OUT and OUT/shard-1 (a merge interrupted): the report counts it once,
  // and the merge collapses the two.
  fs::create_directories(out / "shard-1");
  fs::copy_file(out / "0001_n_four_bar_odeint-rk4.json",
                out / "shard-1" / "0001_n_four_bar_odeint-rk4.json");
  std::vector<UnreadableResult> unreadable, skipped;
  CHECK(ReadResultSummaries(out.string(), &unreadable, &skipped).size() == 4);
  REQUIRE(skipped.size() == 1);
  CHECK_THAT(skipped[0].reason, Catch::Contains("counted once"));
  REQUIRE(RunCli({"merge", out.string()}) == 0);
  CHECK_FALSE(fs::exists(out / "shard-1"));
  CHECK(ResultFilesIn(out) == 4);

  // Results of another build (the commit differs) are refused, and nothing moves.
  REQUIRE(shard("0/3", true) == 0);
  const fs::path odd = out / "shard-0" / "0000_n_four_bar_odeint-rk4.json";
  json result = json::parse(std::ifstream(odd));
  result["context"]["git_commit"] = "another-build";
  std::ofstream(odd) << result.dump(2);
  CHECK(RunCli({"merge", out.string()}) == 2);
  CHECK(ResultFilesIn(out / "shard-0") == 2);
  // A shard of another N beside them: refused.
  fs::remove_all(out / "shard-0");
  REQUIRE(shard("1/2") == 0);
  REQUIRE(shard("0/3", true) == 0);
  CHECK(RunCli({"merge", out.string()}) == 2);
}

}  // namespace mbb
