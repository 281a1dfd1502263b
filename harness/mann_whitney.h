// The Mann-Whitney U test (Wilcoxon rank-sum test) of two independent samples, as Google
// Benchmark's tools/compare.py uses it to say whether two sets of repeat timings differ
// (it calls scipy.stats.mannwhitneyu(a, b, alternative='two-sided'), whose default is the
// normal approximation with a continuity correction).
//
// Implemented here from its definition, not from a library: U of the first sample counts
// the pairs (x_i, y_j) with x_i > y_j, a tie counting one half (Mann and Whitney 1947,
// eq. 1, through the rank sum U1 = R1 - n1 (n1 + 1) / 2 with mid-ranks for ties). Under the
// null hypothesis U has mean n1 n2 / 2 and, with ties, variance
//   n1 n2 / 12 [(n + 1) - sum_k (t_k^3 - t_k) / (n (n - 1))],   n = n1 + n2,
// t_k the size of the k-th group of tied values (Lehmann 1975, p. 20). The p-value is from
// the normal approximation z = (|U1 - n1 n2 / 2| - 1/2) / sigma (the 1/2 is the continuity
// correction, optional), two-sided: p = erfc(|z| / sqrt 2). No exact distribution: with the
// 5 repeats a run records the approximation is what compare.py reports too.
#pragma once

#include <vector>

namespace mbb {

struct MannWhitneyResult {
  double u = 0.0;      // U of the first sample: pairs with x > y, ties counting 1/2
  double mean = 0.0;   // n1 n2 / 2
  double sigma = 0.0;  // tie-corrected standard deviation of U under the null hypothesis
  /// (U - mean) / sigma, its distance to the mean reduced by 1/2 with the continuity
  /// correction; positive when the first sample tends to be larger. 0 when sigma = 0.
  double z = 0.0;
  double p_two_sided = 1.0;  // 1 when sigma = 0 (every value tied) or a sample is empty
};

/// The test of `x` against `y`; `continuity` applies the 1/2 correction (scipy's default).
MannWhitneyResult MannWhitneyU(const std::vector<double>& x, const std::vector<double>& y,
                               bool continuity = true);

}  // namespace mbb
