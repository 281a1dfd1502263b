// The non-zero entries of a small dense matrix, for products that skip its zeros. The
// dense route of an implicit method keeps its matrices dense (n x n, m x n: the QR and
// the solves want them so), but most of their entries are zero: the planar mass matrix is
// diagonal, the damping C = -dQ/dv vanishes without dampers, the stiffness and the
// derivatives H', H'' of Phi_q have Phi_q's few entries per row. A product by the
// non-zeros costs what they are (double_four_bar, 15 x 15: 15 of 225 entries of M)
// instead of a dense matrix-vector product per column.
//
// Gather records the entries column by column (or those of a known pattern); AddProduct
// adds scale * A * X to Y one entry at a time. The sums run in another order than Eigen's
// matrix-vector kernel, so the results agree with the dense product to rounding, not bit
// for bit. Storage for every entry is reserved at construction: Gather and AddProduct
// never allocate.
#pragma once

#include <vector>

#include "problems/core/jacobian_compression.h"
#include "problems/core/mechanical_dae.h"

namespace mbb {

class MatrixNonZeros {
 public:
  MatrixNonZeros(int rows, int cols)
      : rows_(rows), cols_(cols), entries_(static_cast<size_t>(rows) * cols) {}

  /// The entries of `a` (rows x cols) that are not zero (written whatever their value and
  /// counted only if non-zero: no branch per entry).
  void Gather(const Matrix& a) {
    size_ = 0;
    for (int j = 0; j < cols_; ++j) {
      for (int i = 0; i < rows_; ++i) {
        const double x = a(i, j);
        entries_[size_] = {i, j, x};
        size_ += x != 0.0;
      }
    }
  }
  /// The entries of `a` at the structural non-zeros of `pattern` (a matrix whose pattern
  /// lies inside it: Phi_q and its derivatives), or all non-zeros without a pattern.
  void Gather(const Matrix& a, const JacobianCompression* pattern) {
    if (!pattern) return Gather(a);
    size_ = 0;
    for (const JacobianCompression::Entry& e : pattern->entries())
      entries_[size_++] = {e.row, e.col, a(e.row, e.col)};
  }

  /// Y += scale * A * X for X with cols rows (a vector or a block of columns).
  template <class X, class Y>
  void AddProduct(double scale, const X& x, Y&& y) const {
    for (Eigen::Index c = 0; c < x.cols(); ++c)
      for (size_t k = 0; k < size_; ++k) {
        const Entry& e = entries_[k];
        y(e.row, c) += scale * e.value * x(e.col, c);
      }
  }

  int size() const { return static_cast<int>(size_); }

 private:
  struct Entry {
    int row, col;
    double value;
  };
  int rows_, cols_;
  std::vector<Entry> entries_;  // the first size_ are the matrix's
  size_t size_ = 0;
};

}  // namespace mbb
