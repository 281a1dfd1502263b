#include "harness/file_names.h"

#include <algorithm>
#include <cctype>

#include "problems/parameters.h"

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

}  // namespace mbb
