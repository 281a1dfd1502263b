// A fresh, empty directory for a test's files, under the test's working directory (the build
// tree, see tests/CMakeLists.txt): scratch_<name>/, removed and recreated on every call; and
// the whole text of a file a test wrote there.
#pragma once

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace mbb {

inline std::filesystem::path ScratchDirectory(const std::string& name) {
  const std::filesystem::path dir = std::filesystem::current_path() / ("scratch_" + name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

/// The whole text of `file` ("" when it cannot be read).
inline std::string ReadAll(const std::filesystem::path& file) {
  std::ostringstream text;
  text << std::ifstream(file).rdbuf();
  return text.str();
}

}  // namespace mbb
