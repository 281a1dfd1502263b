// The allocation check of allocations.h.
#include "conformance/allocations.h"

#include <memory>

namespace mbb {
namespace conformance {
namespace {

struct Counted {
  long allocations;
  long steps;
  RunStatus status;
};

Counted CountRun(const Method& method, const Problem& p, const RunSettings& s,
                 AllocationCounter count) {
  NullObserver observer;
  const long before = count();
  const RunOutcome outcome = method.Run(p, s, observer);
  return {count() - before, outcome.counters.steps, outcome.status};
}

void CheckNoAllocationPerStep(const MethodEntry& entry, const Method& method, const Case& c,
                              const Problem& p, const RunSettings& shorter,
                              const RunSettings& longer, const char* mode, AllocationCounter count,
                              std::FILE* log, Report& report) {
  CountRun(method, p, shorter, count);  // warm-up: first calls may size static buffers
  const Counted a = CountRun(method, p, shorter, count), b = CountRun(method, p, longer, count);
  char detail[256];
  std::snprintf(detail, sizeof detail, "%s: %ld allocations in %ld steps, %ld in %ld", mode,
                a.allocations, a.steps, b.allocations, b.steps);
  if (log)
    std::fprintf(log, "  %-28s %-34s %-8s %6ld allocations in %5ld steps, %6ld in %5ld\n",
                 entry.name.c_str(), c.label.c_str(), mode, a.allocations, a.steps, b.allocations,
                 b.steps);
  auto add = [&](const char* check, bool passed, std::string why) {
    report.results.push_back({entry.name, c.label, check, passed, std::move(why)});
  };
  const bool ok = a.status == RunStatus::kOk && b.status == RunStatus::kOk;
  add("allocation run", ok,
      std::string(detail) + "; status " + ToString(a.status) + ", " + ToString(b.status));
  if (!ok) return;
  add("allocation steps", b.steps > a.steps, detail);
  add("allocations", a.allocations == b.allocations, detail);
}

}  // namespace

Report CheckAllocations(const MethodEntry& entry, AllocationCounter count, const Options& options) {
  Report report;
  const std::unique_ptr<Method> method = entry.create(ParameterSet());
  for (const Case& c : options.cases) {
    const Problem p = BuildCase(c);
    if (!method->CheckApplicable(p).empty()) continue;
    ++report.cases_checked;
    if (HasFixedStepMode(entry)) {
      // h = 1e-3 s (omega h <= 0.02): inside every method's fixed-step working range; 0.1 s
      // ends before the spatial pendulum's first singular pose of partitioning-fixed's
      // partition (t = 0.13 s, where that method stops by design).
      CheckNoAllocationPerStep(entry, *method, c, p, FixedSettings(p, 0.05, 50),
                               FixedSettings(p, 0.1, 100), "fixed", count, options.log, report);
    }
    if (DefaultIsAdaptive(entry)) {
      CheckNoAllocationPerStep(entry, *method, c, p, AdaptiveSettings(p, 0.5, 1e-8),
                               AdaptiveSettings(p, 1.0, 1e-8), "adaptive", count, options.log,
                               report);
    }
  }
  return report;
}

}  // namespace conformance
}  // namespace mbb
