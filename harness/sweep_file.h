// Experiment files of `mbbench sweep` (docs/experiments.md).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "harness/runner.h"

namespace mbb {

/// One run of a sweep, as the experiment file states it.
struct SweepItem {
  RunSpec spec;
  std::string label;  // file stem
};
struct SweepFile {
  std::string name;
  std::vector<SweepItem> items;
};
/// Default limit on the runs of one experiment (`sweep --max-runs` raises it).
inline constexpr size_t kDefaultMaxRuns = 10000;
/// Parses an experiment file (format: docs/experiments.md); throws InputError naming the
/// file and the key on bad input, and before expanding anything when it would have more than
/// `max_runs` runs.
SweepFile ReadSweepFile(const std::string& path, size_t max_runs = kDefaultMaxRuns);
/// The same for the text of an experiment file; `path` names it in messages and anchors
/// relative model paths (the fuzzer's entry point).
SweepFile ParseSweepText(const std::string& text, const std::string& path,
                         size_t max_runs = kDefaultMaxRuns);

}  // namespace mbb
