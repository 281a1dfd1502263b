// The allocation promise as a library check ("inner loops allocate nothing", the project's
// rule): for every problem of the set (cases.h) the method is applicable to, a run of twice
// the steps makes exactly as many heap allocations as the shorter run, after a warm-up run,
// so none happens per step. Fixed-step modes run 50 and 100 steps of h = 1e-3 s;
// tolerance-controlled modes run to 0.5 s and to 1 s at rtol 1e-8 (more accepted and
// rejected steps). Results: "allocation run" (both runs ok), "allocation steps" (the longer
// run takes more steps), "allocations" (the counts equal). tests/test_conformance_allocations.cc
// runs it on every built-in entry; a consumer links mbbench::allocation_counter into its
// test and passes AllocationCount (allocation_counter.h).
#pragma once

#include "conformance/conformance.h"

namespace mbb {
namespace conformance {

/// Heap allocations in the process so far (e.g. AllocationCount of allocation_counter.h).
using AllocationCounter = long (*)();

Report CheckAllocations(const MethodEntry& entry, AllocationCounter count,
                        const Options& options = {});

}  // namespace conformance
}  // namespace mbb
