// libFuzzer target: the readers of result documents (mbbench.result/1) from their text: the
// regression check's (json_io.h ParseBaselineText, as `check` reads a baseline or an
// --against file), the report's and export's (result_summary.h ParseResultSummaryText, then
// both export tables), a sweep's resume (StoredResultOfText and the message that says why a
// stored result is rerun), all views of the one reader (result_document.h
// ResultDocumentFromJson), and a paper claim judged on the document. Bad input must end in
// InputError (exit code 2 in the CLI) or a verdict; any other exception, a crash or a
// sanitizer report is a finding. Built and run by scripts/fuzz (seed corpus:
// fuzz/corpus/result, small committed baselines).
#include <cstddef>
#include <cstdint>
#include <string>

#include "harness/configuration.h"
#include "harness/export.h"
#include "harness/json_io.h"
#include "harness/paper_claims.h"
#include "harness/regression.h"
#include "harness/result_summary.h"

namespace {

// A configuration key as a sweep writes it (configuration.h ConfigurationKey), for the resume
// message that compares a stored key with the wanted one.
constexpr const char* kWantedConfiguration =
    R"({"method":{"id":"ida","parameters":{"max_order":"5"}},"problem":{"id":"planar_pendulum",)"
    R"("parameters":{"g":"9.81"}},"repeats":0,"series":false,"settings":{"atol":1e-08,"h":null,)"
    R"("rtol":1e-08,"t_end":1.0}})";

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const std::string where = "fuzz/result.json";
  try {
    const mbb::BaselineValues b = mbb::ParseBaselineText(text, where);
    (void)mbb::CompareWithBaseline(b, b);
    (void)mbb::ConfigurationDifferences(b, b);
  } catch (const mbb::InputError&) {
    // Expected: refused with a message naming the file and key.
  }
  try {
    const mbb::ResultSummary r = mbb::ParseResultSummaryText(text, where);
    (void)mbb::ResultsToCsv({r});
    (void)mbb::ResultsToJsonTable({r});
  } catch (const mbb::InputError&) {
  }
  const mbb::StoredResult stored = mbb::StoredResultOfText(text, where);  // never throws
  if (!stored.status.empty())
    (void)mbb::DescribeConfigurationChange(stored.configuration, kWantedConfiguration);
  mbb::PaperClaim claim;
  claim.id = "fuzz";
  claim.key = "metrics.error.position_max_rel";
  claim.relation = "within";
  claim.number = 1e-6;
  claim.relative_tolerance = 0.5;
  (void)mbb::ClaimKeyPresent(claim, text);
  (void)mbb::JudgeClaim(claim, text);
  return 0;
}
