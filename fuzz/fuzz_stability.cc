// libFuzzer target: the readers of stability documents (mbbench.stability/1) from their text:
// the regression check's (json_io.h ParseStabilityBaselineText, with its fallback for
// documents written before the bracket was recorded) and the report's
// (result_summary.h ParseStabilitySummaryText), and a paper claim on h_max_stable. Bad input
// must end in InputError (exit code 2 in the CLI) or a verdict; any other exception, a crash
// or a sanitizer report is a finding. Built and run by scripts/fuzz (seed corpus:
// fuzz/corpus/stability, committed nightly stability baselines).
#include <cstddef>
#include <cstdint>
#include <string>

#include "harness/json_io.h"
#include "harness/paper_claims.h"
#include "harness/regression.h"
#include "harness/result_summary.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const std::string where = "fuzz/limit.stability.json";
  try {
    const mbb::StabilityBaselineValues b = mbb::ParseStabilityBaselineText(text, where);
    (void)mbb::CompareStabilityLimits(b, b);
    (void)mbb::StabilityConfigurationDifferences(b, b);
  } catch (const mbb::InputError&) {
    // Expected: refused with a message naming the file and key.
  }
  try {
    (void)mbb::ParseStabilitySummaryText(text, where);
  } catch (const mbb::InputError&) {
  }
  mbb::PaperClaim claim;
  claim.id = "fuzz";
  claim.key = "h_max_stable";
  claim.relation = "at_least";
  claim.number = 0.5;
  (void)mbb::ClaimKeyPresent(claim, text);
  (void)mbb::JudgeClaim(claim, text);
  return 0;
}
