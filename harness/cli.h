// The mbbench command line (docs/design.md "CLI"): list, run, stability, sweep.
// Exit codes: 0 ok, 1 a run failed or was unstable, 2 bad usage or bad input.
#pragma once

#include <string>
#include <vector>

namespace mbb {

int RunCli(const std::vector<std::string>& args);

}  // namespace mbb
