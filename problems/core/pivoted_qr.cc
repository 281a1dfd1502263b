#include "problems/core/pivoted_qr.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "problems/core/invariant.h"

namespace mbb {

PivotedQr::PivotedQr(int rows, int cols)
    : rows_(rows),
      cols_(cols),
      a_(rows, cols),
      tau_(std::min(rows, cols)),
      squared_norms_(cols),
      w_(std::max(rows, cols)),
      q_rows_(rows, rows),
      permutation_(cols) {}

void PivotedQr::Compute(const Eigen::Ref<const Matrix>& phi_q) {
  MBB_INVARIANT(phi_q.rows() == cols_ && phi_q.cols() == rows_, "PivotedQr: phi_q is m x n");
  // Row i of A is column i of phi_q; the squared norms of A's columns are those of phi_q's
  // rows (plain loops: these sizes are too small for Eigen's expression dispatch to pay).
  for (int j = 0; j < cols_; ++j) squared_norms_[j] = 0.0;
  for (int i = 0; i < rows_; ++i) {
    const double* in = phi_q.data() + static_cast<Eigen::Index>(i) * phi_q.outerStride();
    double* out = a_.data() + static_cast<Eigen::Index>(i) * cols_;
    for (int j = 0; j < cols_; ++j) {
      out[j] = in[j];
      squared_norms_[j] += in[j] * in[j];
    }
  }
  for (int j = 0; j < cols_; ++j) permutation_[j] = j;

  const int size = std::min(rows_, cols_);
  // A pivot column of squared norm below (max norm eps)^2 / rows per remaining row is zero
  // to round-off: the rank counts no pivot from there on (Eigen's m_nonzero_pivots).
  const double eps = std::numeric_limits<double>::epsilon();
  const double largest = cols_ > 0 ? std::sqrt(squared_norms_.maxCoeff()) : 0.0;
  const double zero_helper = (largest * eps) * (largest * eps) / rows_;
  nonzero_pivots_ = size;
  max_pivot_ = 0.0;
  for (int k = 0; k < size; ++k) {
    int p = k;  // the first column of largest remaining norm
    for (int j = k + 1; j < cols_; ++j)
      if (squared_norms_[j] > squared_norms_[p]) p = j;
    if (nonzero_pivots_ == size && squared_norms_[p] < zero_helper * (rows_ - k))
      nonzero_pivots_ = k;
    if (p != k) SwapColumns(k, p);
    Reflect(k);  // also leaves the squared norms of the remaining columns below row k
    max_pivot_ = std::max(max_pivot_, std::abs(a_(k, k)));
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

// The sums over rows run down a block of W columns in local accumulators, which the
// compiler keeps in registers: summed in memory, each row's add waited for the previous
// row's store (the kernel's hot spot in a sampling profile). Each entry sees the same
// operations in the same order as in a row-by-row loop.
template <int W>
inline void SumDownRows(const double* v_col, int v_stride, int k, int rows, const double* b, int ld,
                        int j, double* __restrict w) {
  double acc[W];
  const double* row_k = b + k * ld + j;
  for (int t = 0; t < W; ++t) acc[t] = row_k[t];
  for (int i = k + 1; i < rows; ++i) {
    const double vi = v_col[i * v_stride];
    const double* row = b + i * ld + j;
    for (int t = 0; t < W; ++t) acc[t] += vi * row[t];
  }
  for (int t = 0; t < W; ++t) w[j + t] = acc[t];
}

// Rows k+1.. of the block -= v_i w, and the squared norms of the updated columns.
template <int W>
inline void UpdateRowsWithNorms(const double* v_col, int v_stride, int k, int rows, double* b,
                                int ld, int j, const double* __restrict w,
                                double* __restrict norms) {
  double acc[W] = {};
  for (int i = k + 1; i < rows; ++i) {
    const double vi = v_col[i * v_stride];
    double* row = b + i * ld + j;
    for (int t = 0; t < W; ++t) {
      row[t] -= vi * w[j + t];
      acc[t] += row[t] * row[t];
    }
  }
  for (int t = 0; t < W; ++t) norms[j + t] = acc[t];
}

MBB_AVX2_CLONES void ApplyReflectorToRows(const double* v_col, int v_stride, double tau, int k,
                                          int rows, double* __restrict b, int ld, int j0, int c,
                                          double* __restrict w, double* __restrict norms) {
  double* block = b + j0;
  int j = 0;
  for (; j + 8 <= c; j += 8) SumDownRows<8>(v_col, v_stride, k, rows, block, ld, j, w);
  for (; j + 4 <= c; j += 4) SumDownRows<4>(v_col, v_stride, k, rows, block, ld, j, w);
  for (; j < c; ++j) SumDownRows<1>(v_col, v_stride, k, rows, block, ld, j, w);
  for (j = 0; j < c; ++j) w[j] *= tau;
  double* out_k = block + k * ld;
  for (j = 0; j < c; ++j) out_k[j] -= w[j];
  if (!norms) {
    for (int i = k + 1; i < rows; ++i) {
      const double vi = v_col[i * v_stride];
      double* __restrict row = block + i * ld;
      for (j = 0; j < c; ++j) row[j] -= vi * w[j];
    }
    return;
  }
  j = 0;
  for (; j + 8 <= c; j += 8)
    UpdateRowsWithNorms<8>(v_col, v_stride, k, rows, block, ld, j, w, norms);
  for (; j + 4 <= c; j += 4)
    UpdateRowsWithNorms<4>(v_col, v_stride, k, rows, block, ld, j, w, norms);
  for (; j < c; ++j) UpdateRowsWithNorms<1>(v_col, v_stride, k, rows, block, ld, j, w, norms);
}

}  // namespace

void PivotedQr::SwapColumns(int k, int p) {
  for (int i = 0; i < rows_; ++i) std::swap(a_(i, k), a_(i, p));
  std::swap(squared_norms_[k], squared_norms_[p]);
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
  if (c == 0) return;
  double* norms = squared_norms_.data() + k + 1;
  if (tau != 0.0) {
    ApplyReflectorToRows(a_.data() + k, cols_, tau, k, rows_, a_.data(), cols_, k + 1, c, w_.data(),
                         norms);
    return;
  }
  for (int j = 0; j < c; ++j) {  // H_k = I: the remaining norms below row k directly
    norms[j] = 0.0;
    for (int i = k + 1; i < rows_; ++i) norms[j] += a_(i, k + 1 + j) * a_(i, k + 1 + j);
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

void PivotedQr::CopyFactorsFrom(const PivotedQr& other) {
  MBB_INVARIANT(other.rows_ == rows_ && other.cols_ == cols_,
                "PivotedQr::CopyFactorsFrom: a QR of another size");
  a_ = other.a_;
  tau_ = other.tau_;
  permutation_ = other.permutation_;
  nonzero_pivots_ = other.nonzero_pivots_;
  max_pivot_ = other.max_pivot_;
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
                         w_.data(), nullptr);
  }
  q = q_rows_;
}

}  // namespace mbb
