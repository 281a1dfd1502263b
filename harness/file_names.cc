#include "harness/file_names.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <system_error>

#include "problems/core/parameters.h"

namespace mbb {

bool IsSafeFileName(const std::string& name) {
  const bool safe_chars = std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
  });
  return !name.empty() && name.size() <= 120 && name[0] != '.' && safe_chars;
}

void RequireSafeName(const std::string& name, const std::string& what) {
  if (!IsSafeFileName(name))
    throw InputError(what + " '" + name.substr(0, 120) +
                     "': not usable as a file name (1 to 120 of A-Z a-z 0-9 _ - ., not "
                     "starting with '.')");
}

namespace {

namespace fs = std::filesystem;

// Whether a file can be created in `dir`: a probe, removed at once.
bool CanCreateFileIn(const std::string& dir) {
  const std::string probe = dir + "/.mbbench-write-probe-" + std::to_string(::getpid());
  std::FILE* f = std::fopen(probe.c_str(), "w");
  if (f == nullptr) return false;
  std::fclose(f);
  std::remove(probe.c_str());
  return true;
}

}  // namespace

void RequireDirectory(const std::string& dir, const std::string& what) {
  std::error_code error;
  const fs::file_status status = fs::status(dir, error);  // follows links: ELOOP is an error
  if (error && error != std::errc::no_such_file_or_directory && error != std::errc::not_a_directory)
    throw InputError(what + " " + dir + ": cannot be read (" + error.message() + ")");
  if (!fs::is_directory(status)) throw InputError(what + " " + dir + ": not a directory");
  fs::directory_iterator probe(dir, error);
  if (error) throw InputError(what + " " + dir + ": cannot be read (" + error.message() + ")");
}

void PrepareOutputDirectory(const std::string& dir, const std::string& what) {
  if (dir.empty()) throw InputError(what + " '': an empty path names no directory");
  std::error_code error;
  fs::create_directories(dir, error);
  if (error || !fs::is_directory(dir, error))
    throw InputError(what + " " + dir + ": cannot create the directory" +
                     (error ? " (" + error.message() + ")" : std::string()));
  if (!CanCreateFileIn(dir)) throw InputError(what + " " + dir + ": not writable");
}

void RequireWritableFile(const std::string& path, const std::string& what) {
  if (path.empty()) throw InputError(what + " '': an empty path names no file");
  std::error_code error;
  const fs::file_status status = fs::status(path, error);
  if (error && error != std::errc::no_such_file_or_directory)
    throw InputError(what + " " + path + ": cannot be written (" + error.message() + ")");
  if (fs::is_directory(status))
    throw InputError(what + " " + path + ": is a directory (give a file name)");
  const fs::path parent = fs::path(path).parent_path();
  const std::string dir = parent.empty() ? std::string(".") : parent.string();
  if (!fs::is_directory(dir, error))
    throw InputError(what + " " + path + ": the directory " + dir + " does not exist");
  if (!CanCreateFileIn(dir))
    throw InputError(what + " " + path + ": the directory " + dir + " is not writable");
}

}  // namespace mbb
