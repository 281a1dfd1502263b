// mbbench's conformance checks on this repository's method: the order it declares observed
// by step halving and every other promise of its entry (mbbench conformance/conformance.h),
// and that its steps allocate nothing (conformance/allocations.h; the counter replaces
// operator new and malloc in this program, so it is left out of the CLI).
#include <catch2/catch.hpp>

#include "conformance/catch2.h"
#include "explicit_midpoint.h"
#ifdef HAVE_ALLOCATION_COUNTER
#include "conformance/allocation_counter.h"
#endif

TEST_CASE("explicit-midpoint keeps the promises of its entry", "[conformance]") {
  mbb::conformance::CheckWithCatch2(ExplicitMidpointEntry());
}

#ifdef HAVE_ALLOCATION_COUNTER
TEST_CASE("explicit-midpoint allocates nothing per step", "[conformance][allocations]") {
  mbb::conformance::CheckAllocationsWithCatch2(ExplicitMidpointEntry(),
                                               mbb::conformance::AllocationCount);
}
#endif
