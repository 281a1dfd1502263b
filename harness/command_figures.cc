// `mbbench figures PAPER`: runs the figure recipes of a paper (scripts/figures/paper<PAPER>*.sh)
// and builds its reproduction page.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>

#include "harness/cli_options.h"
#include "harness/commands.h"

namespace mbb {

namespace fs = std::filesystem;

namespace {

// Runs the figure recipes of one paper (or all) from the source tree, with MBBENCH pointing
// at this executable and MBBENCH_FIGURES_OUT at <working directory>/results/figures: the
// recipes write to ${MBBENCH_FIGURES_OUT}/<paper>/, so the figures land where the user is,
// not in the source tree. The recipes are scripts: each states what it regenerates.
int CmdFigures(const std::string& paper) {
  const fs::path dir = fs::path(MBBENCH_SOURCE_DIR) / "scripts" / "figures";
  std::vector<fs::path> scripts;
  if (fs::is_directory(dir))
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
  std::fprintf(stderr, "figures: writing under %s\n", out.c_str());
  int failures = 0;
  for (const auto& script : scripts) {
    std::fprintf(stderr, "figures: %s\n", script.filename().c_str());
    const std::string command = "cd '" + std::string(MBBENCH_SOURCE_DIR) + "' && MBBENCH='" + self +
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
    const std::string command = "cd '" + std::string(MBBENCH_SOURCE_DIR) + "' && python3 '" +
                                (dir / "page.py").string() + "' '" + id + "' '" + out + "/" + id +
                                "'";
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
      "figures", "reproduce a paper's figures and tables (scripts/figures/paper<PAPER>*.sh)");
  figures->add_option("paper", *paper, "paper number (000, 001, ...) or 'all'")->required();
  return {figures, [paper] { return CmdFigures(*paper); }};
}

}  // namespace mbb
