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

namespace mbb {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

fs::path ScratchDirectory(const std::string& name) {
  const fs::path dir = fs::current_path() / ("scratch_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

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
      CHECK(run.at("message") == "kept from an earlier run");
    }
    int leftovers = 0;
    for (const auto& e : fs::directory_iterator(out))
      if (e.path().string().find(".tmp") != std::string::npos) ++leftovers;
    CHECK(leftovers == 0);
  }
}

}  // namespace mbb
