// A Catch2 (v2) helper for the conformance checks of conformance.h: one CHECK per check,
// with the method, the problem, the check's name and its measured numbers as the message.
// A consumer's test of its own method (examples/external_method/test_conformance.cc):
//   TEST_CASE("my-method keeps its promises") {
//     mbb::conformance::CheckWithCatch2(MyMethodEntry());
//   }
// Header only, so mbbench::conformance does not depend on Catch2; include it after
// <catch2/catch.hpp>'s configuration (CATCH_CONFIG_MAIN or Catch2::Catch2WithMain).
#pragma once

#include <catch2/catch.hpp>

#include "conformance/conformance.h"

namespace mbb {
namespace conformance {

/// Runs Check(entry, options) and turns its report into Catch2 assertions; the table of
/// observed orders, residuals and energy errors goes to stdout unless options.log says
/// otherwise. A method applicable to none of the problems fails (nothing was checked).
inline Report CheckWithCatch2(const MethodEntry& entry, Options options = {}) {
  if (!options.log) options.log = stdout;
  const Report report = Check(entry, options);
  for (const Result& r : report.results) {
    INFO(r.method << " on " << r.problem << ": " << r.check << ": " << r.detail);
    CHECK(r.passed);
  }
  INFO(entry.name << " is not applicable to any conformance problem: nothing was checked");
  CHECK(report.cases_checked > 0);
  return report;
}

}  // namespace conformance
}  // namespace mbb
