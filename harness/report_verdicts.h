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
#include "methods/common/observed_order.h"

namespace mbb {

/// An ok run whose error against the reference (position or outputs) exceeds this is
/// "ok but inaccurate": fewer than two significant correct digits, too few for the error
/// plots of the papers (their curves separate at 1e-3 and below).
constexpr double kInaccurateError = 1e-2;
/// Timing of a run is noisy when its repeats spread by more than this fraction of the
/// median ((max - min) / median), or when the 1-minute load average at its start was at or
/// above the core count (another job shared a core with the timed run).
constexpr double kNoisySpread = 0.5;

/// "ok", "inaccurate" (ok but inaccurate), "failed", "time_limit" (failed at the time limit:
/// the machine or the limit, not the numerics), "unstable", "na" (not applicable), or the
/// status itself for another word: the CSS class of the run's cells.
std::string StatusClass(const ResultSummary& r);
/// Why an ok run is inaccurate (empty when it is not): position or output error above
/// kInaccurateError, energy drift above the warning threshold of docs/divergence.md,
/// outputs_meaningful false.
std::vector<std::string> InaccuracyReasons(const ResultSummary& r);
/// The status as the tables print it: "ok (inaccurate)" for an inaccurate ok run, "failed
/// (time limit)" and "failed (step limit)" for those failure classes (failure_class.h).
std::string StatusText(const ResultSummary& r);
/// The status line of a run on the terminal: StatusText, with the reasons of an inaccurate
/// ok run ("ok (inaccurate: position error 0.43 > 0.01)").
std::string StatusLine(const ResultSummary& r);
/// One line counting runs by their StatusText, in the order ok, ok (inaccurate), failed,
/// failed (step limit), failed (time limit), unstable, not_applicable, then any other text
/// ("12 runs: 8 ok, 1 ok (inaccurate), 2 failed (time limit), 1 not_applicable").
std::string StatusCountsLine(const std::vector<std::string>& status_texts);
/// Why the run's timing is noisy, "" when it is not (or was not timed).
std::string NoiseReason(const ResultSummary& r);
/// The conformance suite's verdict on the fit's observed order (OrderVerdict of
/// methods/common/observed_order.h): "below" / "above" when |observed - declared| >
/// kOrderSlack, "not measured" when fewer than two runs are resolved, "" otherwise or
/// undeclared.
std::string OrderFlag(const OrderFit& fit);
/// printf of one number, "-" when absent, and never a negative zero ("-0.0" -> "0.0").
std::string FormatNumber(const std::optional<double>& x, const char* format);

}  // namespace mbb
