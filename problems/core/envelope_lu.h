// LU factorisation A = L U without pivoting of a sparse matrix with a symmetric pattern, in
// envelope (profile) storage: L by rows and U by columns from the first structural entry of
// each row, so neither fills outside the envelope of A [George, Liu, "Computer Solution of
// Large Sparse Positive Definite Systems", Prentice-Hall 1981, s 4.2; the profile
// elimination there, without the symmetry of the values]. The pivot order is the caller's:
// without pivoting it must be one in which every leading block is well away from singular
// (the Newton matrix of an index-3 method, methods/common/sparse_kkt_system.h, puts each
// constraint after its coordinates). Factor() refuses a pivot that is not finite or is
// below a tolerance of its row's scale; the caller checks the solution's backward error
// besides, since elimination without pivoting can grow entries without a small pivot.
//
// Analyze() sizes all storage; SetZero(), Factor() and Solve() allocate nothing.
#pragma once

#include <vector>

#include "problems/core/mechanical_dae.h"

namespace mbb {

class EnvelopeLu {
 public:
  /// neighbours[i]: the j != i with A(i, j) or A(j, i) structurally non-zero (symmetric);
  /// order[k]: the original index of the k-th pivot.
  void Analyze(const std::vector<std::vector<int>>& neighbours, const std::vector<int>& order);

  int size() const { return static_cast<int>(first_.size()); }
  /// Stored entries of L and U together (the envelope twice, less the unit diagonal of L).
  long envelope_size() const { return 2 * start_.back() - size(); }

  void SetZero();
  /// The storage of A(i, j) (original numbering; i == j or a neighbour pair): callers filling
  /// the same entries at every step keep the offset.
  long Offset(int i, int j) const;
  double& AtOffset(long offset) { return values_[offset]; }

  /// Factors in place. False if a pivot is not finite or not above
  /// `relative_pivot_tolerance` times the largest entry of A in its row and column.
  bool Factor(double relative_pivot_tolerance);
  /// x = A^-1 b in place (original numbering), after a successful Factor().
  void Solve(VectorRef x);

 private:
  // Row k of L (columns first_[k] .. k - 1) at lower(k)[j]; column k of U (rows first_[k] ..
  // k) at upper(k)[i]; both indexed by the reordered column or row number.
  double* lower(int k) { return values_.data() + start_[k] - first_[k]; }
  double* upper(int k) { return values_.data() + upper_base_ + start_[k] - first_[k]; }

  std::vector<int> order_, position_, first_;
  std::vector<long> start_;  // start_[k]: offset of entry first_[k] of row k (and column k)
  long upper_base_ = 0;      // U's part of values_ begins here
  std::vector<double> values_;
  std::vector<double> inverse_pivot_;  // 1 / U(k, k)
  Vector work_;
};

}  // namespace mbb
