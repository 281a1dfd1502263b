// The structural non-zeros shared by the n x n derivative matrices of an implicit method's
// Newton matrix: M, d(M a)/dq, the reaction stiffness d(Phi_q^T lambda)/dq, dQ/dq and
// dQ/dv (paper 001 eqs. 28-29 combine them as M/(beta h^2) + d(M a)/dq + ... ). One
// pattern for all of them, so a method sums them slot by slot and never forms an n x n
// matrix (MechanicalDae::CalcMassMatrixEntries, CalcTangentStiffnessEntries). A joint
// couples only the coordinates of the bodies it connects, so on a chain the pattern has
// O(n) entries.
//
// Built once: Add() every structural entry, Finish(); Slot() is a lookup for the set-up of
// a caller's index tables, not for inner loops.
#pragma once

#include <vector>

#include "problems/core/jacobian_compression.h"

namespace mbb {

class TangentPattern {
 public:
  using Entry = JacobianCompression::Entry;

  TangentPattern() = default;
  explicit TangentPattern(int size) : size_(size) {}

  /// Adds (row, col) before Finish(); repeats are merged.
  void Add(int row, int col) { entries_.push_back({row, col}); }
  /// Sorts the entries by column, then row, and removes repeats.
  void Finish();

  int size() const { return size_; }  // n
  int num_entries() const { return static_cast<int>(entries_.size()); }
  /// The entries after Finish(): slot k holds entries()[k].
  const std::vector<Entry>& entries() const { return entries_; }
  /// The slot of (row, col), or -1 if it is not structural (binary search in the column).
  int Slot(int row, int col) const;

 private:
  int size_ = 0;
  std::vector<Entry> entries_;
  std::vector<int> column_start_;  // after Finish(): slots of column c from column_start_[c]
};

/// out += A x for the matrix A with values[k] at entries[k] (a pattern's or Phi_q's entries).
template <class In, class Out>
void AddEntriesProduct(const std::vector<JacobianCompression::Entry>& entries, const double* values,
                       const In& x, Out& out) {
  for (size_t k = 0; k < entries.size(); ++k) out[entries[k].row] += values[k] * x[entries[k].col];
}

/// out += A^T x, likewise.
template <class In, class Out>
void AddEntriesTransposeProduct(const std::vector<JacobianCompression::Entry>& entries,
                                const double* values, const In& x, Out& out) {
  for (size_t k = 0; k < entries.size(); ++k) out[entries[k].col] += values[k] * x[entries[k].row];
}

}  // namespace mbb
