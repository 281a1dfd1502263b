#include "harness/report_verdicts.h"

#include <cmath>
#include <cstdio>

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
  return r.status;
}

std::string StatusText(const ResultSummary& r) {
  return StatusClass(r) == "inaccurate" ? "ok (inaccurate)" : r.status;
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

std::string OrderFlag(const OrderFit& fit) {
  if (fit.declared <= 0) return "";
  const double difference = fit.observed - fit.declared;
  if (std::abs(difference) <= kOrderSlack) return "";
  return difference < 0.0 ? "below" : "above";
}

}  // namespace mbb
