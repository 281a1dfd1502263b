// The batch executor of `run` and `sweep`: runs a list of specs on `jobs` threads under a lock
// on the output directory, writes each result as soon as it is done (with its series), reuses
// a stored result of the same configuration when resuming, then writes DIR/index.json and
// prints the run table.
#pragma once

#include <string>
#include <vector>

#include "harness/runner.h"

namespace mbb {

struct BatchItem {
  RunSpec spec;
  std::string stem;  // result file name without .json
};

/// Progress lines go to stderr when it is a terminal, or anywhere with --progress.
bool ShowProgress(bool asked);

/// Runs `items` into `dir` (index named `name`); with `resume`, a stored result of the same
/// configuration is kept. Returns the exit code: 0, or 1 when a run failed or was invalid.
int RunBatch(const std::vector<BatchItem>& items, const std::string& dir, const std::string& name,
             int jobs, bool resume, bool progress);

}  // namespace mbb
