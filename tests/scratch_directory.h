// A fresh, empty directory for a test's files, under the test's working directory (the build
// tree, see tests/CMakeLists.txt): scratch_<name>/, removed and recreated on every call.
#pragma once

#include <filesystem>
#include <string>

namespace mbb {

inline std::filesystem::path ScratchDirectory(const std::string& name) {
  const std::filesystem::path dir = std::filesystem::current_path() / ("scratch_" + name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

}  // namespace mbb
