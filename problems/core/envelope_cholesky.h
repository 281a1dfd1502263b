// Cholesky factorisation A = L L^T of a sparse symmetric positive definite matrix in
// envelope (profile) storage, after the reverse Cuthill-McKee ordering that keeps the
// envelope narrow [George, Liu, "Computer Solution of Large Sparse Positive Definite
// Systems", Prentice-Hall 1981, ch. 4; Cuthill, McKee, Proc. 24th ACM National Conference
// 1969, 157-172]. L has the envelope of the reordered A (no fill outside it), so Analyze()
// sizes all storage once and Factor() and Solve() allocate nothing. For a chain (the
// constraint rows of n_four_bar) the envelope has a bounded width, so factor and solve cost
// O(size).
#pragma once

#include <vector>

#include "problems/core/mechanical_dae.h"

namespace mbb {

/// The reverse Cuthill-McKee order of a symmetric pattern (neighbours[i]: the j != i with
/// A(i, j) structurally non-zero): order[k] is the original index of the k-th pivot.
std::vector<int> ReverseCuthillMcKee(const std::vector<std::vector<int>>& neighbours);

/// The envelope of a symmetric pattern in the pivot order `order`: position[i] the pivot
/// index of original index i, first[k] the first column of row k of the reordered matrix,
/// start[k] the offset of (k, first[k]) in row-by-row storage of rows first[k] .. k
/// (start[size] entries in all).
void ComputeEnvelope(const std::vector<std::vector<int>>& neighbours, const std::vector<int>& order,
                     std::vector<int>& position, std::vector<int>& first, std::vector<long>& start);

class EnvelopeCholesky {
 public:
  /// neighbours[i]: the columns j != i with A(i, j) structurally non-zero (symmetric). Chooses
  /// the ordering and sizes the envelope.
  void Analyze(const std::vector<std::vector<int>>& neighbours);

  int size() const { return static_cast<int>(first_.size()); }
  /// Stored entries of L (the envelope of the reordered matrix, diagonal included).
  long envelope_size() const { return static_cast<long>(values_.size()); }

  /// Zeroes A before it is filled with At().
  void SetZero();
  /// Storage of A(i, j) = A(j, i) (original numbering; i == j or a neighbour pair).
  double& At(int i, int j) { return values_[Offset(i, j)]; }
  /// The offset At(i, j) uses: callers filling the same entries at every step keep it.
  long Offset(int i, int j) const;
  double& AtOffset(long offset) { return values_[offset]; }

  /// Factors in place. False if a pivot is not above `relative_pivot_tolerance` times the
  /// diagonal entry it came from (A singular or too close to it; the caller falls back).
  bool Factor(double relative_pivot_tolerance);
  /// x = A^-1 b in place (original numbering), after a successful Factor().
  void Solve(VectorRef x);
  /// max L(k, k) / min L(k, k) after a successful Factor(): about the square root of the
  /// condition number of A (a cheap estimate, as the QR's |R_00| / |R_rr|).
  double DiagonalRatio() const;

 private:
  std::vector<int> order_;     // order_[k]: original index of the k-th pivot
  std::vector<int> position_;  // position_[i]: pivot index of original index i
  std::vector<int> first_;     // first_[k]: first column of row k of the reordered matrix
  std::vector<long> start_;    // start_[k]: offset of (k, first_[k]) in values_
  std::vector<double> values_;
  Vector work_;
};

}  // namespace mbb
