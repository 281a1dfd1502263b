// Mann-Whitney U from its definition (harness/mann_whitney.h has the formulas and sources);
// written here rather than taken from a statistics library, which the suite does not link.
#include "harness/mann_whitney.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace mbb {

MannWhitneyResult MannWhitneyU(const std::vector<double>& x, const std::vector<double>& y,
                               bool continuity) {
  MannWhitneyResult r;
  const double n1 = static_cast<double>(x.size());
  const double n2 = static_cast<double>(y.size());
  if (x.empty() || y.empty()) return r;
  // Pool the samples (value, from x?) and sort; each run of equal values gets the mean of
  // the ranks it spans (mid-rank), and contributes t^3 - t to the tie correction.
  std::vector<std::pair<double, bool>> pooled;
  for (const double v : x) pooled.push_back({v, true});
  for (const double v : y) pooled.push_back({v, false});
  std::sort(pooled.begin(), pooled.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  double rank_sum_x = 0.0, ties = 0.0;
  for (size_t i = 0; i < pooled.size();) {
    size_t j = i;
    while (j < pooled.size() && pooled[j].first == pooled[i].first) ++j;
    const double mid_rank = 0.5 * static_cast<double>(i + 1 + j);  // ranks i+1 .. j
    const double t = static_cast<double>(j - i);
    ties += t * t * t - t;
    for (size_t k = i; k < j; ++k)
      if (pooled[k].second) rank_sum_x += mid_rank;
    i = j;
  }
  const double n = n1 + n2;
  r.u = rank_sum_x - n1 * (n1 + 1.0) / 2.0;  // Mann and Whitney (1947): U = R1 - n1(n1+1)/2
  r.mean = n1 * n2 / 2.0;
  const double variance = n1 * n2 / 12.0 * ((n + 1.0) - ties / (n * (n - 1.0)));
  r.sigma = variance > 0.0 ? std::sqrt(variance) : 0.0;
  if (!(r.sigma > 0.0)) return r;  // every value tied: no evidence of a difference
  const double distance = std::abs(r.u - r.mean);
  const double corrected = continuity ? std::max(0.0, distance - 0.5) : distance;
  r.z = std::copysign(corrected / r.sigma, r.u - r.mean);
  r.p_two_sided = std::min(1.0, std::erfc(std::abs(r.z) / std::sqrt(2.0)));
  return r;
}

}  // namespace mbb
