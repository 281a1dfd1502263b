#include "harness/atomic_file.h"

#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <fstream>
#include <stdexcept>

namespace mbb {

void WriteFileAtomically(const std::string& path, const std::string& text) {
  // A temporary name unique per process and call: two writers of one path (two sweeps on
  // one --out, two threads) never write into each other's temporary file.
  static std::atomic<unsigned long> counter{0};
  const std::string temp =
      path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++);
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    if (!out) throw std::runtime_error("cannot write " + temp);
    out << text;
    out.flush();
    if (!out) throw std::runtime_error("write failed: " + temp);
  }
  if (std::rename(temp.c_str(), path.c_str()) != 0) {
    std::remove(temp.c_str());
    throw std::runtime_error("cannot rename " + temp + " to " + path);
  }
}

void WriteFilesAtomically(const std::vector<std::pair<std::string, std::string>>& files) {
  static std::atomic<unsigned long> counter{0};
  std::vector<std::string> temps;
  auto remove_temps = [&] {
    for (const auto& t : temps) std::remove(t.c_str());
  };
  // Every file into its temporary first: a failure here leaves every target untouched.
  for (const auto& [path, text] : files) {
    temps.push_back(path + ".tmp." + std::to_string(::getpid()) + ".set" +
                    std::to_string(counter++));
    std::ofstream out(temps.back(), std::ios::binary | std::ios::trunc);
    if (out) {
      out << text;
      out.flush();
    }
    if (!out) {
      remove_temps();
      throw std::runtime_error("cannot write " + temps.back() + ": nothing was replaced");
    }
  }
  for (size_t i = 0; i < files.size(); ++i)
    if (std::rename(temps[i].c_str(), files[i].first.c_str()) != 0) {
      for (size_t k = i; k < temps.size(); ++k) std::remove(temps[k].c_str());
      throw std::runtime_error("cannot rename " + temps[i] + " to " + files[i].first + " (" +
                               std::to_string(i) + " of " + std::to_string(files.size()) +
                               " files were replaced)");
    }
}

}  // namespace mbb
