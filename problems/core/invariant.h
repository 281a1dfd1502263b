// Internal invariants: checks that fail only through a programming error inside the suite
// (a workspace of the wrong type handed to a DAE or method, an output buffer of the wrong
// size), never through user input or a numerical failure. A broken invariant aborts with
// file, line, the condition and a message: the second of the three error tiers (caller
// misuse throws InputError; a numerical failure is a RunStatus in the result).
//
// The checks stay on in release builds: each is a comparison of sizes or of type identities,
// small against the arithmetic of any Calc* call (docs/performance.md has the measurement).
#pragma once

#include <type_traits>
#include <typeinfo>

namespace mbb {
namespace internal {

/// Prints "file:line: internal invariant `condition` failed: message" to stderr and aborts.
[[noreturn]] void InvariantFailed(const char* condition, const char* message, const char* file,
                                  int line);

template <class Derived, class Base>
Derived& Downcast(Base& base, const char* message, const char* file, int line) {
  static_assert(std::is_final<Derived>::value,
                "MBB_DOWNCAST compares type identities: the target type must be final");
  if (__builtin_expect(typeid(base) != typeid(Derived), 0))
    InvariantFailed("typeid(workspace) == typeid(Derived)", message, file, line);
  return static_cast<Derived&>(base);
}

}  // namespace internal
}  // namespace mbb

/// Aborts with a message if `condition` is false. For programming errors only.
#define MBB_INVARIANT(condition, message)                                          \
  do {                                                                             \
    if (__builtin_expect(!(condition), 0))                                         \
      ::mbb::internal::InvariantFailed(#condition, (message), __FILE__, __LINE__); \
  } while (0)

/// `base` (a DaeWorkspace& or FixedStepWorkspace&) as its concrete, final type Derived;
/// aborts if it was made by another DAE or method.
#define MBB_DOWNCAST(Derived, base)                                                         \
  ::mbb::internal::Downcast<Derived>(                                                       \
      (base), "workspace is not a " #Derived " (made by another DAE or method?)", __FILE__, \
      __LINE__)
