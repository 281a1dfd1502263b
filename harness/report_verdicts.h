// The verdicts a report prints beside the numbers (docs/reports.md, "Verdicts"): a status
// class per run (ok, ok but inaccurate, failed, unstable, not applicable) that the HTML
// colours and the Markdown spells out, why a run is inaccurate, noisy timings, the order
// flag of the conformance suite, and number formatting that never prints "-0.0".
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "harness/report_analysis.h"
#include "harness/result_summary.h"

namespace mbb {

/// An ok run whose error against the reference (position or outputs) exceeds this is
/// "ok but inaccurate": fewer than two significant correct digits, too few for the error
/// plots of the papers (their curves separate at 1e-3 and below).
constexpr double kInaccurateError = 1e-2;
/// The order check of the conformance suite (tests/test_conformance.cc, kOrderSlack): an
/// observed order farther than this from the declared one is flagged.
constexpr double kOrderSlack = 0.3;
/// Timing of a run is noisy when its repeats spread by more than this fraction of the
/// median ((max - min) / median), or when the 1-minute load average at its start was at or
/// above the core count (another job shared a core with the timed run).
constexpr double kNoisySpread = 0.5;

/// "ok", "inaccurate" (ok but inaccurate), "failed", "unstable", "na" (not applicable), or
/// the status itself for another word: the CSS class of the run's cells.
std::string StatusClass(const ResultSummary& r);
/// Why an ok run is inaccurate (empty when it is not): position or output error above
/// kInaccurateError, energy drift above the warning threshold of docs/divergence.md,
/// outputs_meaningful false.
std::vector<std::string> InaccuracyReasons(const ResultSummary& r);
/// The status as the tables print it: "ok (inaccurate)" for an inaccurate ok run.
std::string StatusText(const ResultSummary& r);
/// Why the run's timing is noisy, "" when it is not (or was not timed).
std::string NoiseReason(const ResultSummary& r);
/// "below" / "above" when |observed - declared| > kOrderSlack, "" otherwise or undeclared.
std::string OrderFlag(const OrderFit& fit);
/// printf of one number, "-" when absent, and never a negative zero ("-0.0" -> "0.0").
std::string FormatNumber(const std::optional<double>& x, const char* format);

}  // namespace mbb
