// The context block of every result: suite version and commit, build, library versions,
// machine and date (what Google Benchmark's JSON reporter records).
#pragma once

#include <string>

namespace mbb {

struct RunContext {
  std::string suite_version, git_commit, compiler, flags, build_type, eigen, sundials, boost, cpu,
      date;
  bool git_dirty = false;
  int cores = 0;
};

/// Collected once per process (CPU model from /proc/cpuinfo, date in UTC ISO 8601).
const RunContext& CurrentContext();

}  // namespace mbb
