// Householder QR with column pivoting of A = Phi_q^T (n x m), written for the small dense
// Jacobians of the catalogue (a few to about 60 coordinates), where Eigen's
// ColPivHouseholderQR spends most of its time dispatching its matrix-vector kernels
// (constraint_factorization.h chooses between the two by size):
//
//   A P = Q R,  Q = H_0 H_1 ... H_{s-1},  H_k = I - tau_k v_k v_k^T,  s = min(n, m)     (1)
//
// Column pivoting as Businger and Golub (1965): at step k the remaining column of largest
// norm moves to position k. The squared norms of the remaining columns (below row k) are
// summed while the reflection updates them, one multiply-add per updated entry, instead of
// downdated (LAPACK xGEQPF, Eigen's ColPivHouseholderQR: a division and a square root per
// column and step, and a recomputation when the downdate loses half the digits): the
// pivots are those of the exact norms, which the downdated ones approximate, so the two
// choose alike except where two columns' norms are within the downdate's error (about
// sqrt(eps) relative at worst). The reflector H_k is LAPACK's / Eigen's
// (beta = -sign(a_kk) |a_k|, v_k = [1; a_{k+1:,k} / (a_kk - beta)], tau_k = (beta - a_kk) / beta).
//
// Storage: A row-major, which is Phi_q column-major, so that the input needs no transpose
// and the reflection of the trailing block runs along contiguous rows (w^T = v^T A_k, then
// A_k -= tau v w^T, two passes of row-length vector updates). R is the upper triangle of
// the first s rows; v_k's entries below the diagonal of column k. Nothing allocates after
// construction.
#pragma once

#include <vector>

#include <Eigen/QR>

#include "problems/core/mechanical_dae.h"

namespace mbb {

using RowMajorMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

class PivotedQr {
 public:
  /// For A with `rows` rows (n, coordinates) and `cols` columns (m, constraints).
  PivotedQr(int rows, int cols);

  /// Factors A = phi_q^T by (1); phi_q is cols x rows.
  void Compute(const Eigen::Ref<const Matrix>& phi_q);
  /// Takes the factors of Eigen's QR of the same A (the kernel for large sizes) into this
  /// storage, so that the solves and the bases read one representation.
  void CopyFrom(const Eigen::ColPivHouseholderQR<Matrix>& qr);

  /// Takes the factors of another PivotedQr of the same size (not its work storage).
  void CopyFactorsFrom(const PivotedQr& other);

  /// Diagonal entries of R above threshold * max |R_kk| among the first nonzero_pivots
  /// (Eigen's rule, ColPivHouseholderQR::rank()).
  int Rank(double threshold) const;
  /// Q (rows x rows) by backward accumulation of (1) on the identity.
  void FormQ(Matrix& q);

  /// R in the upper triangle of the first min(n, m) rows; v_k below the diagonal.
  const RowMajorMatrix& packed() const { return a_; }
  const Vector& tau() const { return tau_; }
  /// Column k of A P is column permutation()[k] of A.
  const std::vector<int>& permutation() const { return permutation_; }

 private:
  void Reflect(int k);  // makes H_k from column k and applies it to the rest
  void SwapColumns(int k, int p);

  int rows_, cols_;
  RowMajorMatrix a_;
  Vector tau_, squared_norms_, w_;  // squared_norms_: of the columns below the current row
  RowMajorMatrix q_rows_;           // FormQ's accumulation (row-major: contiguous row updates)
  std::vector<int> permutation_;
  int nonzero_pivots_ = 0;
  double max_pivot_ = 0.0;
};

}  // namespace mbb
