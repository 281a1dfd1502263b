// The allocation counter of allocation_counter.h: counts operator new and malloc by
// replacing them for the whole program.
#include "conformance/allocation_counter.h"

#include <atomic>
#include <cstdlib>
#include <new>

namespace {
std::atomic<long> g_allocations{0};
}  // namespace

// Eigen allocates its dynamic matrices with std::malloc, not operator new: malloc is counted
// too, by interposing it over glibc's (the executable's definition wins for every library
// loaded into the process; glibc exports the real one as __libc_malloc, and its free,
// calloc and realloc work on those blocks unchanged).
extern "C" void* __libc_malloc(std::size_t size);
extern "C" void* malloc(std::size_t size) {
  ++g_allocations;
  return __libc_malloc(size);
}

void* operator new(std::size_t size) {
  ++g_allocations;
  if (void* p = __libc_malloc(size ? size : 1)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

namespace mbb {
namespace conformance {

long AllocationCount() { return g_allocations.load(); }

}  // namespace conformance
}  // namespace mbb
