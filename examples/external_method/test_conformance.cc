// mbbench's conformance checks on this repository's method: the order it declares observed
// by step halving, and every other promise of its entry (mbbench conformance/conformance.h).
#include <catch2/catch.hpp>

#include "conformance/catch2.h"
#include "explicit_midpoint.h"

TEST_CASE("explicit-midpoint keeps the promises of its entry", "[conformance]") {
  mbb::conformance::CheckWithCatch2(ExplicitMidpointEntry());
}
