// A Catch2 (v2) helper for the conformance checks of conformance.h: one CHECK per check,
// with the method, the problem, the check's name and its measured numbers as the message.
// A consumer's test of its own method (examples/external_method/test_conformance.cc):
//   TEST_CASE("my-method keeps its promises") {
//     mbb::conformance::CheckWithCatch2(MyMethodEntry());
//   }
//   TEST_CASE("my-method allocates nothing per step") {  // links mbbench::allocation_counter
//     mbb::conformance::CheckAllocationsWithCatch2(MyMethodEntry(),
//                                                  mbb::conformance::AllocationCount);
//   }
// Header only, so mbbench::conformance does not depend on Catch2; include it after
// <catch2/catch.hpp>'s configuration (CATCH_CONFIG_MAIN or Catch2::Catch2WithMain).
#pragma once

#include <catch2/catch.hpp>

#include "conformance/allocations.h"
#include "conformance/conformance.h"

namespace mbb {
namespace conformance {

/// One CHECK per result of `report`, and one that the method was applicable somewhere.
inline void ReportToCatch2(const MethodEntry& entry, const Report& report) {
  for (const Result& r : report.results) {
    INFO(r.method << " on " << r.problem << ": " << r.check << ": " << r.detail);
    CHECK(r.passed);
  }
  INFO(entry.name << " is not applicable to any conformance problem: nothing was checked");
  CHECK(report.cases_checked > 0);
}

/// Runs Check(entry, options) and turns its report into Catch2 assertions; the table of
/// observed orders, residuals and energy errors goes to stdout unless options.log says
/// otherwise. A method applicable to none of the problems fails (nothing was checked).
inline Report CheckWithCatch2(const MethodEntry& entry, Options options = {}) {
  if (!options.log) options.log = stdout;
  const Report report = Check(entry, options);
  ReportToCatch2(entry, report);
  return report;
}

/// The same for the allocation promise (allocations.h): pass AllocationCount of
/// allocation_counter.h and link mbbench::allocation_counter into the test program.
inline Report CheckAllocationsWithCatch2(const MethodEntry& entry, AllocationCounter count,
                                         Options options = {}) {
  if (!options.log) options.log = stdout;
  const Report report = CheckAllocations(entry, count, options);
  ReportToCatch2(entry, report);
  return report;
}

}  // namespace conformance
}  // namespace mbb
