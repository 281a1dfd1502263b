#include "harness/report_verdicts.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "harness/failure_class.h"
#include "harness/metrics_observer.h"

namespace mbb {

std::string FormatNumber(const std::optional<double>& x, const char* format) {
  if (!x) return "-";
  char buffer[48];
  std::snprintf(buffer, sizeof buffer, format, *x);
  std::string text = buffer;
  // A value that rounds to zero keeps its sign in printf ("-0.0" for scd -0.02).
  if (!text.empty() && text[0] == '-' && text.find_first_of("123456789") == std::string::npos &&
      text.find_first_of("ni") == std::string::npos)  // not -inf, -nan
    text.erase(0, 1);
  return text;
}

std::vector<std::string> InaccuracyReasons(const ResultSummary& r) {
  std::vector<std::string> reasons;
  if (r.status != "ok") return reasons;
  for (const auto& [what, error] :
       {std::pair{"position error ", r.error_rel}, {"output error ", r.output_error_rel}})
    if (error && *error > kInaccurateError)
      reasons.push_back(what + FormatNumber(error, "%.2g") + " > " +
                        FormatNumber(kInaccurateError, "%g"));
  if (r.energy_rel_drift && *r.energy_rel_drift > kEnergyDriftWarning)
    reasons.push_back("energy drift " + FormatNumber(r.energy_rel_drift, "%.2g") + " > " +
                      FormatNumber(kEnergyDriftWarning, "%g"));
  if (!r.outputs_meaningful) reasons.push_back("outputs_meaningful: false");
  return reasons;
}

std::string StatusClass(const ResultSummary& r) {
  if (r.status == "ok") return InaccuracyReasons(r).empty() ? "ok" : "inaccurate";
  if (r.status == "not_applicable") return "na";
  if (r.failure_class == kFailureTimeLimit) return "time_limit";
  return r.status;
}

std::string StatusText(const ResultSummary& r) {
  if (StatusClass(r) == "inaccurate") return "ok (inaccurate)";
  return StatusWithFailureClass(r.status, r.failure_class);
}

std::string StatusLine(const ResultSummary& r) {
  const std::vector<std::string> reasons = InaccuracyReasons(r);
  if (reasons.empty()) return StatusText(r);
  std::string line = "ok (inaccurate: ";
  for (size_t k = 0; k < reasons.size(); ++k) line += (k ? "; " : "") + reasons[k];
  return line + ")";
}

std::string StatusCountsLine(const std::vector<std::string>& status_texts) {
  std::map<std::string, int> counts;
  for (const std::string& text : status_texts) ++counts[text];
  const std::vector<std::string> order = {
      "ok",       "ok (inaccurate)", "failed", "failed (step limit)", "failed (time limit)",
      "unstable", "not_applicable"};
  std::vector<std::string> texts = order;
  for (const auto& [text, count] : counts)
    if (std::find(order.begin(), order.end(), text) == order.end()) texts.push_back(text);
  std::string line =
      std::to_string(status_texts.size()) + " run" + (status_texts.size() == 1 ? "" : "s") + ":";
  bool first = true;
  for (const std::string& text : texts) {
    const auto it = counts.find(text);
    if (it == counts.end()) continue;
    line += (first ? " " : ", ") + std::to_string(it->second) + " " + text;
    first = false;
  }
  return line;
}

std::string NoiseReason(const ResultSummary& r) {
  if (!r.wall_median || !(*r.wall_median > 0.0)) return "";
  if (r.wall_min && r.wall_max) {
    const double spread = (*r.wall_max - *r.wall_min) / *r.wall_median;
    if (spread > kNoisySpread)
      return "repeats spread " + FormatNumber(100.0 * spread, "%.0f") + "% of the median";
  }
  if (r.load_average_1min && r.cores > 0 && *r.load_average_1min >= r.cores)
    return "load average " + FormatNumber(r.load_average_1min, "%.1f") + " on " +
           std::to_string(r.cores) + " cores";
  return "";
}

std::string OrderFlag(const OrderFit& fit) { return OrderVerdict(fit.observed, fit.declared); }

}  // namespace mbb
