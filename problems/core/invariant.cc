#include "problems/core/invariant.h"

#include <cstdio>
#include <cstdlib>

namespace mbb {
namespace internal {

void InvariantFailed(const char* condition, const char* message, const char* file, int line) {
  std::fprintf(stderr, "%s:%d: internal invariant `%s` failed: %s\n", file, line, condition,
               message);
  std::fflush(stderr);
  std::abort();
}

}  // namespace internal
}  // namespace mbb
