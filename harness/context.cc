#include "harness/context.h"

#include <sundials/sundials_config.h>

#include <Eigen/Core>
#include <boost/version.hpp>
#include <ctime>
#include <fstream>
#include <thread>

#include <stdlib.h>
#include <unistd.h>

#include "build_info.h"
#include "git_info.h"

namespace mbb {

namespace {
std::string CpuModel() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) return line.substr(colon + 2);
    }
  }
  return "unknown";
}

std::string UtcNow() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buffer;
}
}  // namespace

const RunContext& CurrentContext() {
  static const RunContext context = [] {
    RunContext c;
    c.suite_version = MBBENCH_VERSION;
    c.git_commit = MBBENCH_GIT_COMMIT;
    c.git_dirty = MBBENCH_GIT_DIRTY;
    c.compiler = MBBENCH_COMPILER;
    c.flags = MBBENCH_CXX_FLAGS;
    c.build_type = MBBENCH_BUILD_TYPE;
    c.eigen = std::to_string(EIGEN_WORLD_VERSION) + "." + std::to_string(EIGEN_MAJOR_VERSION) +
              "." + std::to_string(EIGEN_MINOR_VERSION);
    c.sundials = SUNDIALS_VERSION;
    c.boost = std::to_string(BOOST_VERSION / 100000) + "." +
              std::to_string(BOOST_VERSION / 100 % 1000) + "." +
              std::to_string(BOOST_VERSION % 100);
    c.cpu = CpuModel();
    c.cores = static_cast<int>(std::thread::hardware_concurrency());
    c.date = UtcNow();
    c.simbody = MBBENCH_SIMBODY_VERSION;
    char host[256] = {};
    if (gethostname(host, sizeof host - 1) == 0) c.host = host;
    return c;
  }();
  return context;
}

std::optional<std::array<double, 3>> LoadAverageNow() {
  std::array<double, 3> load{};
  if (getloadavg(load.data(), 3) != 3) return std::nullopt;
  return load;
}

}  // namespace mbb
