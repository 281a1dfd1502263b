#include "problems/pivoted_qr.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "problems/invariant.h"

namespace mbb {

PivotedQr::PivotedQr(int rows, int cols)
    : rows_(rows),
      cols_(cols),
      a_(rows, cols),
      tau_(std::min(rows, cols)),
      norms_updated_(cols),
      norms_direct_(cols),
      w_(std::max(rows, cols)),
      q_rows_(rows, rows),
      permutation_(cols) {}

void PivotedQr::Compute(const Eigen::Ref<const Matrix>& phi_q) {
  MBB_INVARIANT(phi_q.rows() == cols_ && phi_q.cols() == rows_, "PivotedQr: phi_q is m x n");
  // Row i of A is column i of phi_q; the norms of A's columns are those of phi_q's rows,
  // summed over i in the same order as before (plain loops: these sizes are too small for
  // Eigen's expression dispatch to pay).
  for (int j = 0; j < cols_; ++j) norms_updated_[j] = 0.0;
  for (int i = 0; i < rows_; ++i) {
    const double* in = phi_q.data() + static_cast<Eigen::Index>(i) * phi_q.outerStride();
    double* out = a_.data() + static_cast<Eigen::Index>(i) * cols_;
    for (int j = 0; j < cols_; ++j) {
      out[j] = in[j];
      norms_updated_[j] += in[j] * in[j];
    }
  }
  for (int j = 0; j < cols_; ++j)
    norms_direct_[j] = norms_updated_[j] = std::sqrt(norms_updated_[j]);
  for (int j = 0; j < cols_; ++j) permutation_[j] = j;

  const int size = std::min(rows_, cols_);
  // A pivot column of squared norm below (max norm eps)^2 / rows per remaining row is zero
  // to round-off: the rank counts no pivot from there on (Eigen's m_nonzero_pivots).
  const double eps = std::numeric_limits<double>::epsilon();
  const double largest = cols_ > 0 ? norms_updated_.maxCoeff() : 0.0;
  const double zero_helper = (largest * eps) * (largest * eps) / rows_;
  nonzero_pivots_ = size;
  max_pivot_ = 0.0;
  for (int k = 0; k < size; ++k) {
    int p = k;  // the first column of largest updated norm
    for (int j = k + 1; j < cols_; ++j)
      if (norms_updated_[j] > norms_updated_[p]) p = j;
    if (nonzero_pivots_ == size &&
        norms_updated_[p] * norms_updated_[p] < zero_helper * (rows_ - k))
      nonzero_pivots_ = k;
    if (p != k) SwapColumns(k, p);
    Reflect(k);
    max_pivot_ = std::max(max_pivot_, std::abs(a_(k, k)));
    DowndateColumnNorms(k);
  }
}

namespace {

// B(k:, j0:j0+c) -= tau v w^T with w^T = v^T B(k:, j0:j0+c), v = [1; v_tail] (v_tail in
// column k of the packed storage `v_col`, stride `v_stride`), on a row-major block with
// leading dimension `ld`: two passes over contiguous row segments of length c.
// Compiled twice, for AVX2 and for baseline x86-64, the CPU choosing at load time (function
// multiversioning): the row updates run on 4 doubles at a time where the CPU has AVX2
// (double_four_bar tangent-newmark, 15 x 14: 4 % fewer instructions a step). Bit for bit
// the same results: each entry sees the same operations in the same order, and AVX2
// without FMA contracts nothing.
#if defined(__x86_64__) && defined(__GNUC__)
#define MBB_AVX2_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define MBB_AVX2_CLONES
#endif

MBB_AVX2_CLONES void ApplyReflectorToRows(const double* v_col, int v_stride, double tau, int k,
                                          int rows, double* __restrict b, int ld, int j0, int c,
                                          double* __restrict w) {
  const double* row_k = b + k * ld + j0;
  for (int j = 0; j < c; ++j) w[j] = row_k[j];
  for (int i = k + 1; i < rows; ++i) {
    const double vi = v_col[i * v_stride];
    const double* __restrict row = b + i * ld + j0;
    for (int j = 0; j < c; ++j) w[j] += vi * row[j];
  }
  for (int j = 0; j < c; ++j) w[j] *= tau;
  double* out_k = b + k * ld + j0;
  for (int j = 0; j < c; ++j) out_k[j] -= w[j];
  for (int i = k + 1; i < rows; ++i) {
    const double vi = v_col[i * v_stride];
    double* __restrict row = b + i * ld + j0;
    for (int j = 0; j < c; ++j) row[j] -= vi * w[j];
  }
}

}  // namespace

void PivotedQr::SwapColumns(int k, int p) {
  for (int i = 0; i < rows_; ++i) std::swap(a_(i, k), a_(i, p));
  std::swap(norms_updated_[k], norms_updated_[p]);
  std::swap(norms_direct_[k], norms_direct_[p]);
  std::swap(permutation_[k], permutation_[p]);
}

// H_k from column k (rows k..n-1), stored in place, then applied to columns k+1.. as
// w^T = v^T A(k:, k+1:), A(k:, k+1:) -= tau v w^T, row by row.
void PivotedQr::Reflect(int k) {
  const double a_kk = a_(k, k);
  double tail = 0.0;
  for (int i = k + 1; i < rows_; ++i) tail += a_(i, k) * a_(i, k);
  double beta = a_kk, tau = 0.0;
  if (tail <= std::numeric_limits<double>::min()) {
    for (int i = k + 1; i < rows_; ++i) a_(i, k) = 0.0;  // H_k = I
  } else {
    beta = std::sqrt(a_kk * a_kk + tail);
    if (a_kk >= 0.0) beta = -beta;
    const double scale = 1.0 / (a_kk - beta);
    for (int i = k + 1; i < rows_; ++i) a_(i, k) *= scale;
    tau = (beta - a_kk) / beta;
  }
  a_(k, k) = beta;
  tau_[k] = tau;
  const int c = cols_ - k - 1;
  if (c == 0 || tau == 0.0) return;
  ApplyReflectorToRows(a_.data() + k, cols_, tau, k, rows_, a_.data(), cols_, k + 1, c, w_.data());
}

void PivotedQr::DowndateColumnNorms(int k) {
  const double recompute_below = std::sqrt(std::numeric_limits<double>::epsilon());
  for (int j = k + 1; j < cols_; ++j) {
    if (norms_updated_[j] == 0.0) continue;
    double ratio = std::abs(a_(k, j)) / norms_updated_[j];
    const double remaining = std::max(0.0, (1.0 + ratio) * (1.0 - ratio));
    ratio = norms_updated_[j] / norms_direct_[j];
    if (remaining * ratio * ratio <= recompute_below) {
      double s = 0.0;
      for (int i = k + 1; i < rows_; ++i) s += a_(i, j) * a_(i, j);
      norms_updated_[j] = norms_direct_[j] = std::sqrt(s);
    } else {
      norms_updated_[j] *= std::sqrt(remaining);
    }
  }
}

void PivotedQr::CopyFrom(const Eigen::ColPivHouseholderQR<Matrix>& qr) {
  MBB_INVARIANT(qr.matrixQR().rows() == rows_ && qr.matrixQR().cols() == cols_,
                "PivotedQr::CopyFrom: a QR of another size");
  a_ = qr.matrixQR();
  tau_ = qr.hCoeffs();
  for (int j = 0; j < cols_; ++j) permutation_[j] = qr.colsPermutation().indices()[j];
  nonzero_pivots_ = static_cast<int>(qr.nonzeroPivots());
  max_pivot_ = qr.maxPivot();
}

int PivotedQr::Rank(double threshold) const {
  const double cut = max_pivot_ * threshold;
  int rank = 0;
  for (int i = 0; i < nonzero_pivots_; ++i) rank += std::abs(a_(i, i)) > cut;
  return rank;
}

// Q = H_0 (H_1 (... (H_{s-1} I))): H_k touches rows and columns k.. only.
void PivotedQr::FormQ(Matrix& q) {
  MBB_INVARIANT(q.rows() == rows_ && q.cols() == rows_, "PivotedQr::FormQ: q is n x n");
  q_rows_.setIdentity();
  for (int k = static_cast<int>(tau_.size()) - 1; k >= 0; --k) {
    const double tau = tau_[k];
    if (tau == 0.0) continue;
    ApplyReflectorToRows(a_.data() + k, cols_, tau, k, rows_, q_rows_.data(), rows_, k, rows_ - k,
                         w_.data());
  }
  q = q_rows_;
}

}  // namespace mbb
