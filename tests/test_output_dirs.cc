// Output directories: checked before anything runs, names that become paths restricted, and
// two batches on one directory serialised by a lock so that no run is done twice and the
// index lists every run.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "harness/cli.h"
#include "harness/file_names.h"
#include "tests/scratch_directory.h"

namespace mbb {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

void WriteText(const fs::path& path, const std::string& text) { std::ofstream(path) << text; }

}  // namespace

TEST_CASE("an unusable --out exits 2 before anything runs", "[cli][output]") {
  const fs::path dir = ScratchDirectory("bad_out");
  WriteText(dir / "a_file", "x");
  const std::string under_file = (dir / "a_file" / "sub").string();
  CHECK(RunCli({"run", "-p", "planar_pendulum", "-m", "odeint-rk4", "--repeats", "0", "--out",
                under_file}) == 2);
  CHECK(RunCli({"stability", "-p", "stiff_pendulum", "--param", "form=minimal", "-m", "odeint-rk4",
                "--out", under_file}) == 2);
  CHECK_FALSE(fs::exists(dir / "a_file" / "sub"));
}

TEST_CASE("names that become paths are restricted to a safe alphabet", "[cli][output]") {
  CHECK(IsSafeFileName("planar_pendulum_odeint-rk4"));
  CHECK(IsSafeFileName("0001_n_four_bar_tangent-newmark.v2"));
  for (const char* bad : {"", "../../x", "a/b", ".hidden", "x y", "a\\b"}) {
    INFO(bad);
    CHECK_FALSE(IsSafeFileName(bad));
  }
  CHECK_FALSE(IsSafeFileName(std::string(121, 'a')));

  const fs::path dir = ScratchDirectory("escape");
  WriteText(dir / "exp.json",
            R"({"name": "../escaped", "runs": [{"problem": "planar_pendulum",
                "method": "odeint-rk4"}]})");
  fs::current_path(dir);  // "results/<name>" would resolve outside this directory
  const int code = RunCli({"sweep", (dir / "exp.json").string()});
  fs::current_path(dir.parent_path());
  CHECK(code == 2);
  CHECK_FALSE(fs::exists(dir / "escaped"));
}

TEST_CASE("two sweeps on one --out run every run once and leave one complete index",
          "[cli][output]") {
  const fs::path dir = ScratchDirectory("concurrent");
  WriteText(dir / "sweep.json", R"({"name": "concurrent", "repeats": 0, "matrix": {
      "problems": ["planar_pendulum"], "methods": ["odeint-rk4"],
      "set": {"h": [1e-2, 5e-3, 2e-3]}}})");
  for (int trial = 0; trial < 10; ++trial) {
    const std::string out = (dir / ("out" + std::to_string(trial))).string();
    const std::vector<std::string> args = {"sweep", (dir / "sweep.json").string(), "--out", out};
    int first = -1, second = -1;
    std::thread a([&] { first = RunCli(args); });
    std::thread b([&] { second = RunCli(args); });
    a.join();
    b.join();
    INFO("trial " << trial);
    CHECK(first == 0);
    CHECK(second == 0);
    // Whichever took the lock second found every result of the first and ran nothing, and its
    // index (the last written) lists all three runs.
    const json index = json::parse(std::ifstream(out + "/index.json"));
    REQUIRE(index.at("runs").size() == 3);
    for (const auto& run : index.at("runs")) {
      CHECK(run.at("status") == "ok");
      CHECK(run.at("message") == "kept from an earlier run (same configuration)");
    }
    int leftovers = 0;
    for (const auto& e : fs::directory_iterator(out))
      if (e.path().string().find(".tmp") != std::string::npos) ++leftovers;
    CHECK(leftovers == 0);
  }
}

TEST_CASE("an edited sweep reruns exactly the runs whose configuration changed", "[cli][output]") {
  const fs::path dir = ScratchDirectory("edited");
  const std::string file = (dir / "sweep.json").string(), out = (dir / "out").string();
  auto write_sweep = [&](const std::string& steps) {
    WriteText(file, R"({"name": "edited", "repeats": 0, "matrix": {"problems": ["planar_pendulum"],
        "methods": ["odeint-rk4"], "set": {"h": [)" +
                        steps + "]}}}");
  };
  auto messages = [&] {
    std::vector<std::string> m;
    const json index = json::parse(std::ifstream(out + "/index.json"));  // outlives the loop
    for (const auto& run : index.at("runs")) m.push_back(run.at("message"));
    return m;
  };
  write_sweep("4e-3, 2e-3");
  REQUIRE(RunCli({"sweep", file, "--out", out}) == 0);
  write_sweep("1e-3, 2e-3");  // the first run's step changed, the second's did not
  REQUIRE(RunCli({"sweep", file, "--out", out}) == 0);
  const auto m = messages();
  REQUIRE(m.size() == 2);
  CHECK_THAT(m[0], Catch::Contains("rerun") && Catch::Contains("0.004 -> 0.001"));
  CHECK(m[1] == "kept from an earlier run (same configuration)");
  const json first = json::parse(std::ifstream(out + "/0000_planar_pendulum_odeint-rk4.json"));
  CHECK(first.at("settings").at("h") == 1e-3);  // the stored file holds what was asked now
  CHECK(first.at("configuration").at("settings").at("h") == 1e-3);
  // A different problem parameter is a different configuration too.
  WriteText(file, R"({"name": "edited", "repeats": 0, "matrix": {"problems": ["planar_pendulum"],
      "methods": ["odeint-rk4"], "param": {"length": 2}, "set": {"h": [1e-3, 2e-3]}}})");
  REQUIRE(RunCli({"sweep", file, "--out", out}) == 0);
  for (const auto& message : messages()) CHECK_THAT(message, Catch::Contains("length"));
}

}  // namespace mbb
