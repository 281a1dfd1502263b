// `mbbench figures PAPER`: runs the figure recipes of a paper (scripts/figures/paper<PAPER>*.sh)
// and builds its reproduction page. The recipes are found as the reference data are
// (reference_store.cc): an installed copy's own (<prefix>/share/mbbench/scripts/figures),
// so an install runs them without the source tree; the source tree's only as a fallback.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>

#include "harness/cli_options.h"
#include "harness/commands.h"

#ifndef MBBENCH_SOURCE_DIR
#define MBBENCH_SOURCE_DIR "."
#endif

namespace mbb {

namespace fs = std::filesystem;

namespace {

std::string EnvironmentValue(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr ? std::string(value) : std::string();
}

bool IsDirectory(const fs::path& dir) {
  std::error_code error;
  return !dir.empty() && fs::is_directory(dir, error);
}

// The directory of the recipes, scripts/figures under a root that holds what they read by
// relative paths (scripts/figures/page.py, pages/NNN.json, reference/...): the recipes `cd`
// to that root. First MBBENCH_FIGURES_DIR; then the installed copy beside the executable,
// <prefix>/share/mbbench/scripts/figures (CMakeLists.txt installs the recipes there, beside
// share/mbbench/reference, the same layout as the source tree); then the source tree this
// executable was built from, unless MBBENCH_NO_SOURCE_FIGURES is set (the installed-copy test
// proves with it that the source tree is not read). Empty when none exists.
fs::path FiguresDirectory() {
  const std::string given = EnvironmentValue("MBBENCH_FIGURES_DIR");
  if (!given.empty()) {
    if (!IsDirectory(given))
      throw InputError("figures: MBBENCH_FIGURES_DIR=" + given + " is not a directory");
    return fs::absolute(given);
  }
  std::error_code error;
  const fs::path exe = fs::read_symlink("/proc/self/exe", error);
  if (!error) {
    const fs::path installed =
        exe.parent_path().parent_path() / "share" / "mbbench" / "scripts" / "figures";
    if (IsDirectory(installed)) return installed;
  }
  const fs::path source = fs::path(MBBENCH_SOURCE_DIR) / "scripts" / "figures";
  if (EnvironmentValue("MBBENCH_NO_SOURCE_FIGURES").empty() && IsDirectory(source)) return source;
  return {};
}

// Runs the figure recipes of one paper (or all), with MBBENCH pointing at this executable
// and MBBENCH_FIGURES_OUT at <working directory>/results/figures: the recipes write to
// ${MBBENCH_FIGURES_OUT}/<paper>/, so the figures land where the user is, not beside the
// recipes (an installed prefix may be read-only). The recipes are scripts: each states what
// it regenerates.
int CmdFigures(const std::string& paper) {
  const fs::path dir = FiguresDirectory();
  if (dir.empty())
    throw InputError(
        "figures: no figure recipes found: neither beside the executable "
        "(<prefix>/share/mbbench/scripts/figures) nor in the source tree; set "
        "MBBENCH_FIGURES_DIR to a scripts/figures directory");
  const std::string root = dir.parent_path().parent_path().string();  // the recipes cd there
  std::vector<fs::path> scripts;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (e.path().extension() == ".sh" &&
        (paper == "all" ? name.rfind("paper", 0) == 0 : name.rfind("paper" + paper, 0) == 0))
      scripts.push_back(e.path());
  }
  std::sort(scripts.begin(), scripts.end());
  if (scripts.empty())
    throw InputError("figures: no recipe for paper '" + paper + "' in " + dir.string());
  const std::string self = fs::read_symlink("/proc/self/exe").string();
  const std::string out = (fs::current_path() / "results" / "figures").string();
  fs::create_directories(out);
  std::fprintf(stderr, "figures: recipes from %s\n", dir.c_str());
  std::fprintf(stderr, "figures: writing under %s\n", out.c_str());
  int failures = 0;
  for (const auto& script : scripts) {
    std::fprintf(stderr, "figures: %s\n", script.filename().c_str());
    const std::string command = "cd '" + root + "' && MBBENCH='" + self +
                                "' MBBENCH_FIGURES_OUT='" + out + "' bash '" + script.string() +
                                "'";
    if (std::system(command.c_str()) != 0) {
      std::fprintf(stderr, "figures: %s failed\n", script.filename().c_str());
      ++failures;
    }
  }
  // Then each paper's reproduction page (index.html, README.md) from its manifest,
  // scripts/figures/pages/NNN.json, with verdicts computed from the runs just written.
  std::vector<std::string> papers;
  for (const auto& script : scripts) {
    const std::string id = script.filename().string().substr(5, 3);
    if (std::find(papers.begin(), papers.end(), id) == papers.end()) papers.push_back(id);
  }
  for (const auto& id : papers) {
    if (!fs::exists(dir / "pages" / (id + ".json"))) continue;
    const std::string command = "cd '" + root + "' && python3 '" + (dir / "page.py").string() +
                                "' '" + id + "' '" + out + "/" + id + "'";
    if (std::system(command.c_str()) != 0) {
      std::fprintf(stderr, "figures: page for %s failed\n", id.c_str());
      ++failures;
    }
  }
  return failures == 0 ? kExitOk : kExitRunsFailed;
}

}  // namespace

Command FiguresCommand(CLI::App& app) {
  auto paper = std::make_shared<std::string>();
  CLI::App* figures = app.add_subcommand(
      "figures",
      "reproduce a paper's figures and tables (the recipes paper<PAPER>*.sh of "
      "share/mbbench/scripts/figures beside the executable, else of the source tree's "
      "scripts/figures; MBBENCH_FIGURES_DIR overrides)");
  figures->add_option("paper", *paper, "paper number (000, 001, ...) or 'all'")->required();
  return {figures, [paper] { return CmdFigures(*paper); }};
}

}  // namespace mbb
