// A heap allocation counter for the allocation promise ("inner loops allocate nothing";
// CheckAllocations, allocations.h). Linking mbbench::allocation_counter replaces the global
// operator new and malloc of the whole program, so link it into a test executable only
// (and not under AddressSanitizer, which owns them).
#pragma once

namespace mbb {
namespace conformance {

/// The number of operator new and malloc calls in the process so far.
long AllocationCount();

}  // namespace conformance
}  // namespace mbb
