// The observed order of convergence and its verdict, one rule for the two places that judge a
// method's declared order (MethodPromises::order, methods/method.h): the conformance suite
// (conformance/conformance.cc: three runs at h, h/2, h/4, the differences of successive
// solutions) and the report (harness/report_analysis.cc: the errors against the reference of
// the two finest step sizes of a sweep that the reference resolves). Both take the order a
// refinement shows, p = log(e_coarse / e_fine) / log(h_coarse / h_fine) (log2(d1 / d2) for
// step halving: e = C h^p gives e(h) / e(h/2) = 2^p; the differences d1 = q_h - q_h/2 and
// d2 = q_h/2 - q_h/4 scale the same way), and flag it when it is farther than kOrderSlack
// from the declared order. Here, below the harness and the conformance library, so that
// neither includes upward.
#pragma once

#include <cmath>
#include <string>

namespace mbb {

/// An observed order may differ from the declared one by this much: the pre-asymptotic
/// spread at the step sizes of conformance/cases.h (docs/adding-a-method.md); methods that
/// keep their order read up to 0.28 from it on that set (partitioning on spatial_pendulum).
/// The report uses the same slack, so it flags exactly what the suite would fail.
inline constexpr double kOrderSlack = 0.3;

/// The order a refinement from h_coarse to h_fine shows when the errors (or differences of
/// successive solutions) are e_coarse and e_fine: log(e_coarse / e_fine) / log(h_coarse /
/// h_fine). NaN when an error is not positive or the steps do not differ.
inline double ObservedOrder(double e_coarse, double e_fine, double h_coarse, double h_fine) {
  if (!(e_coarse > 0.0) || !(e_fine > 0.0) || !(h_coarse > 0.0) || !(h_fine > 0.0) ||
      h_coarse == h_fine)
    return std::nan("");
  return std::log(e_coarse / e_fine) / std::log(h_coarse / h_fine);
}

/// The verdict on an observed order against the declared one: "" when |observed - declared|
/// <= kOrderSlack or nothing is declared (declared <= 0), "below" or "above" when it is
/// farther, "not measured" when observed is not finite (a run failed, an error was zero).
inline std::string OrderVerdict(double observed, int declared) {
  if (declared <= 0) return "";
  if (!std::isfinite(observed)) return "not measured";
  const double difference = observed - declared;
  if (std::abs(difference) <= kOrderSlack) return "";
  return difference < 0.0 ? "below" : "above";
}

}  // namespace mbb
