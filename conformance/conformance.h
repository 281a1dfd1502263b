// Method conformance as a library (mbbench::conformance): checks that a registry entry keeps
// what its MethodPromises declare (methods/method.h) on the problem set of cases.h, with its
// default parameters. tests/test_conformance.cc runs it on every built-in entry; a program
// with its own method (RegisterMethods) runs it on that entry, through catch2.h or by reading
// the report. Each check and its bound is described at MethodPromises and in conformance.cc:
//   applicability   the problem form the entry prefers is accepted ("preferred form")
//   fixed-step mode  a declared order ("declared order"); the order observed by step halving
//                    at h, h/2, h/4 within 0.3 of it ("order"), every run ending at t_end
//                    ("end time") and reporting every coarse step time ("order samples")
//   adaptive mode    ok runs at rtol 1e-6 and 1e-8 ("adaptive run", "adaptive end time"),
//                    the error against a fine dopri5 run reduced tenfold ("tolerance")
//   constraints      the declared levels below 1e-8, max(1e-8, 10 rtol) adaptive, ten times
//                    that for accelerations ("position", "velocity", "acceleration")
//   energy           no secular drift over 20 s on the conservative variant ("energy")
// The allocation promise needs a counting operator new in the test program: its check is
// CheckAllocations (allocations.h) with the counter of allocation_counter.h.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "conformance/cases.h"
#include "methods/method.h"

namespace mbb {
namespace conformance {

/// One check of one entry on one problem of the set.
struct Result {
  std::string method;   // the entry's name
  std::string problem;  // Case::label
  std::string check;    // one of the names listed above
  bool passed = false;
  std::string detail;  // the measured numbers and the bound, for a failure message
};

struct Report {
  std::vector<Result> results;
  int cases_checked = 0;  // problems of the set the method is applicable to
  bool Passed() const;
  std::vector<Result> Failures() const;
};

struct Options {
  /// Where the table of observed orders, residuals and energy errors is printed (one line
  /// per run); nullptr: nowhere.
  std::FILE* log = nullptr;
  std::vector<Case> cases = Cases();
};

/// Runs every check the entry's promises call for on every case it is applicable to.
/// Not thread-safe (the adaptive check's reference runs are cached).
Report Check(const MethodEntry& entry, const Options& options = {});

}  // namespace conformance
}  // namespace mbb
