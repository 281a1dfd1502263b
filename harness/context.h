// The context block of every result: suite version and commit, build, library versions,
// machine and date (what Google Benchmark's JSON reporter records).
#pragma once

#include <array>
#include <optional>
#include <string>

namespace mbb {

struct RunContext {
  std::string suite_version, git_commit, compiler, flags, build_type, eigen, sundials, boost, cpu,
      date;
  std::string simbody;  // "" when built without Simbody
  std::string host;     // gethostname()
  bool git_dirty = false;
  int cores = 0;
};

/// Collected once per process (CPU model from /proc/cpuinfo, date in UTC ISO 8601).
const RunContext& CurrentContext();

/// The 1, 5 and 15 minute load averages now (getloadavg); empty where unavailable. Read at
/// the start of each run: a loaded machine explains slow wall times.
std::optional<std::array<double, 3>> LoadAverageNow();

}  // namespace mbb
