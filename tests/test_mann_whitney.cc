// The Mann-Whitney U test of harness/mann_whitney.h against published worked examples.
#include <catch2/catch.hpp>
#include <cmath>
#include <vector>

#include "harness/mann_whitney.h"

namespace mbb {
namespace {

// One-sided p of the alternative "the first sample is larger": 1 - Phi(z).
double UpperTail(double z) { return 0.5 * std::erfc(z / std::sqrt(2.0)); }

std::vector<double> Repeated(const std::vector<int>& counts) {
  std::vector<double> out;  // R's rep(1:length(counts), counts)
  for (size_t value = 0; value < counts.size(); ++value)
    for (int k = 0; k < counts[value]; ++k) out.push_back(static_cast<double>(value + 1));
  return out;
}

}  // namespace

TEST_CASE("Mann-Whitney U: the diabetes-age example of the scipy documentation", "[compare]") {
  // scipy.stats.mannwhitneyu documentation (Examples): ages at diagnosis of type II diabetes,
  // males [19, 22, 16, 29, 24], females [20, 11, 17, 12]; U_M = 17, U_F = 3 as its source
  // reports, asymptotic two-sided p = 0.11134688653314041 with the continuity correction, and
  // p = 0.09 (two digits) in the source, which does not apply it. No ties: the formula is
  // exact here, so the tolerance is rounding (1e-12).
  const std::vector<double> males = {19, 22, 16, 29, 24}, females = {20, 11, 17, 12};
  const MannWhitneyResult with = MannWhitneyU(males, females);
  CHECK(with.u == 17.0);
  CHECK(MannWhitneyU(females, males).u == 3.0);
  CHECK(with.p_two_sided == Approx(0.11134688653314041).margin(1e-12));
  CHECK(with.z > 0.0);  // the males are older
  const MannWhitneyResult without = MannWhitneyU(males, females, false);
  CHECK(without.p_two_sided == Approx(0.09).margin(0.005));
  // The test is symmetric: swapping the samples changes the sign of z, not p.
  CHECK(MannWhitneyU(females, males).p_two_sided == Approx(with.p_two_sided).margin(1e-15));
}

TEST_CASE("Mann-Whitney U: heavy ties need the tie-corrected variance", "[compare]") {
  // An R exercise on grouped data (garciparedes/r-examples, statistical-inference/
  // non-parametric/exercise-09.r): x = rep(1:4, c(5, 7, 16, 12)), y = rep(1:4, c(7, 9, 15, 9));
  // R prints W = 700 and, for wilcox.test(y, x, alternative = "greater", correct = FALSE),
  // p-value = 0.8431 (tie-corrected normal approximation; 4 digits printed, so 5e-5). The
  // variance without the tie correction gives 0.8320 (the exercise's own pnorm line), which
  // this tolerance rejects.
  const std::vector<double> x = Repeated({5, 7, 16, 12}), y = Repeated({7, 9, 15, 9});
  const MannWhitneyResult r = MannWhitneyU(y, x, false);
  CHECK(r.u == 700.0);
  CHECK(r.mean == 800.0);
  CHECK(UpperTail(r.z) == Approx(0.8431).margin(5e-5));
  CHECK(std::abs(UpperTail(r.z) - 0.832038093424132) > 5e-3);
}

TEST_CASE("Mann-Whitney U: identical or empty samples give no evidence", "[compare]") {
  CHECK(MannWhitneyU({1.0, 1.0, 1.0}, {1.0, 1.0}).p_two_sided == 1.0);
  CHECK(MannWhitneyU({}, {1.0}).p_two_sided == 1.0);
  // Five repeats each, completely separated: the smallest p five against five can give,
  // z = (12.5 - 0.5) / sqrt(25 * 11 / 12) = 2.5067, p = 0.0122 < 0.05.
  const MannWhitneyResult r = MannWhitneyU({1, 2, 3, 4, 5}, {6, 7, 8, 9, 10});
  CHECK(r.u == 0.0);
  CHECK(r.p_two_sided == Approx(std::erfc(12.0 / std::sqrt(25.0 * 11.0 / 12.0) / std::sqrt(2.0))));
  CHECK(r.p_two_sided < 0.05);
}

}  // namespace mbb
