// The one rank-revealing factorisation of the constraint Jacobian Phi_q (m x n) the suite's
// general methods share: a column-pivoted Householder QR of Phi_q^T,
//
//   Phi_q^T P = Q R = [Y Z] [R11 R12; 0 0],   R11 (r x r) upper triangular,          (1)
//
// with r the numerical rank (pivots below kConstraintRankThreshold times the largest count
// as zero: constraint_projection.h says why that threshold). From (1):
//   - range basis Y (n x r): orthonormal, spans the rows of Phi_q;
//   - null-space basis Z (n x (n - r)): orthonormal, Phi_q Z = 0 (the tangent space);
//   - minimum-norm solution of Phi_q x = b: x = Y R11^-T (P^T b)_{1:r}; the rows beyond the
//     rank are dropped, which is the least-squares answer when redundant rows are
//     consistent (Bricard);
//   - least-squares multipliers of Phi_q^T lambda = c: lambda = P [R11^-1 Y^T c; 0].
// Users: the index-1 acceleration solve (methods/common/acceleration_solver.h), the
// projection onto the constraint manifold (constraint_projection.h), the tangent-space
// Newmark method, the reported constraint rank of a run and of an assembled model. The
// continued / traditional QR of paper 000 (methods/qr/) is a method of its own and keeps
// its own QR.
//
// Two kernels for (1), by size: up to kOwnQrMaxCoordinates coordinates the QR of
// problems/core/pivoted_qr.h (written for these sizes: 1.9x Eigen's ColPivHouseholderQR on the
// double four-bar's 15 x 14, 1.2x on Bricard's 35 x 35), above it Eigen's, copied into the
// same storage; the bases and the solves are the same code for both.
//
// All storage is allocated at construction; Compute, FormBases and the solves do not
// allocate.
#pragma once

#include <climits>
#include <vector>

#include "problems/core/invariant.h"
#include "problems/core/mechanical_dae.h"
#include "problems/core/pivoted_qr.h"

namespace mbb {

/// Q x (or Q^T x) for Q = H_0 H_1 ... H_{count-1}, the first `count` reflectors of a
/// Householder QR in Eigen's packed storage (`packed`: essential parts below the diagonal,
/// `tau`: the coefficients; H_k = I - tau_k v_k v_k^T on rows k.., v_k = [1; essential]),
/// one dot product and one update each. Eigen's HouseholderSequence applied to a vector
/// allocates a temporary per reflector (counted with an interposed malloc), which a step
/// loop must not do.
template <class Packed>
void ApplyHouseholderReflectors(const Packed& packed, const Vector& tau, int count, Vector& x,
                                bool transposed) {
  const int rows = static_cast<int>(packed.rows());
  for (int i = 0; i < count; ++i) {
    const int k = transposed ? i : count - 1 - i;
    const int tail = rows - k - 1;
    const auto essential = packed.col(k).tail(tail);
    const double s = tau(k) * (x(k) + essential.dot(x.tail(tail)));
    x(k) -= s;
    x.tail(tail).noalias() -= s * essential;
  }
}

/// Relative threshold of the numerical rank of Phi_q (pivots <= this times the largest
/// count as zero). Eigen's default (about n eps) is too tight for redundant constraints:
/// off the manifold by a drift delta, Bricard's Phi_q has a singular value ~delta
/// (9e-11 for delta = 1e-9), which the default counts as independent and so the
/// redundant row is inverted. 1e-9 is far above a step's drift and far below the smallest
/// physical singular value of the catalogue's Jacobians (0.3 for Bricard).
inline constexpr double kConstraintRankThreshold = 1e-9;

/// A maximal independent set of rows of Phi_q(t, q) (sorted), by a column-pivoting QR of
/// Phi_q^T with the relative threshold 1e-9 at a consistent state. Redundant constraints (a
/// closed loop whose closure conditions are not all independent: Bricard) are independent
/// off the manifold, so a method that needs a nonsingular Jacobian there keeps these rows
/// only; paper 002 drops the dependent closure condition likewise (Part I, Appendix C).
std::vector<int> IndependentConstraintRows(const MechanicalDae& dae, DaeWorkspace& ws, double t,
                                           const Vector& q);

/// Rows `rows` of `full` into `out` (preallocated rows.size() x full.cols()).
void SelectRows(const Matrix& full, const std::vector<int>& rows, Matrix& out);
void SelectRows(const Vector& full, const std::vector<int>& rows, Vector& out);

class ConstraintFactorization {
 public:
  /// Up to this many coordinates (rows of Phi_q^T) the QR is PivotedQr's, above it Eigen's:
  /// measured on this machine, PivotedQr's factorisation and bases are faster up to 60
  /// (15: 2.5 against 4.5 us; 35: 20 against 24 us; 60: 81 against 109 us) and its
  /// factorisation slower from about 100 (243: 2.8 against 2.1 ms).
  static constexpr int kOwnQrMaxCoordinates = 64;

  /// For Jacobians of m constraints in n coordinates.
  ConstraintFactorization(int m, int n);

  /// Factors phi_q (m x n) by (1). The rank is the numerical rank, but at most max_rank
  /// (a caller that knows the rank on the manifold caps it off the manifold).
  void Compute(const Eigen::Ref<const Matrix>& phi_q, int max_rank = INT_MAX);
  /// What Compute(phi_q, max_rank) would give, from `other`, which factored the same phi_q
  /// (the factors do not depend on the cap): a copy instead of a QR.
  void CopyFrom(const ConstraintFactorization& other, int max_rank = INT_MAX);
  /// Forms [Y Z] explicitly (n x n); needed by range_basis() and null_space_basis(). The
  /// solves then use it (one product) instead of applying the Householder reflections.
  void FormBases();

  int rank() const { return rank_; }                    // r, after the cap
  int computed_rank() const { return computed_rank_; }  // numerical rank before the cap
  /// Y (n x r), after FormBases().
  auto range_basis() const {
    MBB_INVARIANT(bases_formed_, "range_basis() before FormBases()");
    return basis_.leftCols(rank_);
  }
  /// Z (n x (n - r)), Phi_q Z = 0, after FormBases().
  auto null_space_basis() const {
    MBB_INVARIANT(bases_formed_, "null_space_basis() before FormBases()");
    return basis_.rightCols(n_ - rank_);
  }
  /// |R_00| / |R_{r-1,r-1}|: a cheap condition estimate of Phi_q (1 when r = 0).
  double ConditionEstimate() const;

  /// Minimum-norm x (n) with Phi_q x = b (m).
  void SolveMinimumNorm(ConstVectorRef b, VectorRef x);
  /// The same for c right-hand sides at once: b (m x c) -> x (n x c; a plain matrix is
  /// resized), c <= n; needs FormBases().
  template <class In, class Out>
  void SolveMinimumNormColumns(const In& b, Out&& x);
  /// Least-squares lambda (m) of Phi_q^T lambda = c (n); zero beyond the rank.
  void SolveMultipliers(ConstVectorRef c, VectorRef lambda);

 private:
  // R11^T y = y, in place on the first r entries of each column of y (forward
  // substitution along the rows of R, which the row-major storage keeps contiguous).
  // Plain loops over the storage: at these sizes (a few to 60 rows) Eigen's expression
  // dispatch per row cost more than the arithmetic; each entry sees the same operations.
  template <class Block>
  void SolveR11Transposed(Block&& y) const {
    const RowMajorMatrix& r = qr_.packed();
    for (Eigen::Index c = 0; c < y.cols(); ++c) {
      double* yc = &y.coeffRef(0, c);
      for (int i = 0; i < rank_; ++i) {
        const double* r_i = r.data() + static_cast<Eigen::Index>(i) * r.cols();
        yc[i] /= r_i[i];
        const double y_i = yc[i];
        for (int j = i + 1; j < rank_; ++j) yc[j] -= y_i * r_i[j];
      }
    }
  }
  // (P^T b) for b (m x c): row k is row permutation[k] of b.
  template <class In, class Out>
  void PermuteToPivotOrder(const In& b, Out&& y) const {
    const std::vector<int>& p = qr_.permutation();
    for (Eigen::Index c = 0; c < b.cols(); ++c)
      for (int k = 0; k < m_; ++k) y.coeffRef(k, c) = b.coeff(p[k], c);
  }

  void ApplyReflectors(Vector& x, bool transposed) const;

  int m_, n_;
  bool own_qr_;  // n <= kOwnQrMaxCoordinates: PivotedQr's kernel, else Eigen's
  Matrix phi_q_t_;
  Eigen::ColPivHouseholderQR<Matrix> eigen_qr_;  // sized only when !own_qr_
  PivotedQr qr_;
  Matrix basis_;  // [Y Z] once FormBases() ran
  Matrix work_mc_;
  Vector y_, x_;
  int rank_ = 0, computed_rank_ = 0;
  bool bases_formed_ = false;
};

template <class In, class Out>
void ConstraintFactorization::SolveMinimumNormColumns(const In& b, Out&& x) {
  MBB_INVARIANT(bases_formed_, "SolveMinimumNormColumns() before FormBases()");
  const Eigen::Index c = b.cols();
  MBB_INVARIANT(b.rows() == m_ && c <= work_mc_.cols(),
                "SolveMinimumNormColumns: b (m x c), c <= n");
  if (rank_ == 0) {
    x.setZero();
    return;
  }
  auto y = work_mc_.leftCols(c);
  PermuteToPivotOrder(b, y);
  SolveR11Transposed(y);
  x.noalias() = range_basis() * y.topRows(rank_);
}

}  // namespace mbb
