#include "problems/core/constraint_factorization.h"

#include <algorithm>
#include <cmath>

namespace mbb {

ConstraintFactorization::ConstraintFactorization(int m, int n)
    : m_(m),
      n_(n),
      own_qr_(n <= kOwnQrMaxCoordinates),
      phi_q_t_(own_qr_ ? 0 : n, own_qr_ ? 0 : m),
      eigen_qr_(own_qr_ ? 0 : n, own_qr_ ? 0 : m),
      qr_(n, m),
      basis_(n, n),
      work_mc_(m, std::max(n, 1)),
      y_(m),
      x_(n) {}

void ConstraintFactorization::Compute(const Eigen::Ref<const Matrix>& phi_q, int max_rank) {
  MBB_INVARIANT(phi_q.rows() == m_ && phi_q.cols() == n_, "Compute: phi_q must be m x n");
  bases_formed_ = false;
  if (m_ == 0) {
    rank_ = computed_rank_ = 0;
    return;
  }
  if (own_qr_) {
    qr_.Compute(phi_q);  // (1)
  } else {
    phi_q_t_ = phi_q.transpose();
    eigen_qr_.compute(phi_q_t_);  // (1)
    qr_.CopyFrom(eigen_qr_);
  }
  computed_rank_ = qr_.Rank(kConstraintRankThreshold);
  rank_ = std::min(computed_rank_, max_rank);
}

void ConstraintFactorization::CopyFrom(const ConstraintFactorization& other, int max_rank) {
  MBB_INVARIANT(other.m_ == m_ && other.n_ == n_, "CopyFrom: a factorisation of another size");
  bases_formed_ = false;
  if (m_ == 0) {
    rank_ = computed_rank_ = 0;
    return;
  }
  qr_.CopyFactorsFrom(other.qr_);  // the solves read qr_ for both kernels
  computed_rank_ = other.computed_rank_;
  rank_ = std::min(computed_rank_, max_rank);
}

void ConstraintFactorization::FormBases() {
  if (m_ == 0)
    basis_.setIdentity();
  else
    qr_.FormQ(basis_);
  bases_formed_ = true;
}

double ConstraintFactorization::ConditionEstimate() const {
  if (rank_ == 0) return 1.0;
  return std::abs(qr_.packed()(0, 0)) / std::abs(qr_.packed()(rank_ - 1, rank_ - 1));
}

// x = Q [R11^-T (P^T b)_{1:r}; 0]: through the explicit Y if formed, else by applying the
// Householder reflections to the padded vector.
void ConstraintFactorization::SolveMinimumNorm(ConstVectorRef b, VectorRef x) {
  MBB_INVARIANT(b.size() == m_ && x.size() == n_, "SolveMinimumNorm: b (m), x (n)");
  if (rank_ == 0) {
    x.setZero();
    return;
  }
  const int r = rank_;
  PermuteToPivotOrder(b, y_);
  SolveR11Transposed(y_);
  if (bases_formed_) {
    x.noalias() = basis_.leftCols(r) * y_.head(r);
    return;
  }
  x_.setZero();
  x_.head(r) = y_.head(r);
  ApplyReflectors(x_, /*transposed=*/false);
  x = x_;
}

// All reflectors of the QR of Phi_q^T (n x m): Q is n x n.
void ConstraintFactorization::ApplyReflectors(Vector& x, bool transposed) const {
  ApplyHouseholderReflectors(qr_.packed(), qr_.tau(), static_cast<int>(qr_.tau().size()), x,
                             transposed);
}

// lambda = P [R11^-1 Y^T c; 0].
void ConstraintFactorization::SolveMultipliers(ConstVectorRef c, VectorRef lambda) {
  MBB_INVARIANT(c.size() == n_ && lambda.size() == m_, "SolveMultipliers: c (n), lambda (m)");
  if (m_ == 0) return;
  const int r = rank_;
  if (bases_formed_) {
    y_.head(r).noalias() = basis_.leftCols(r).transpose() * c;
  } else {
    x_ = c;
    ApplyReflectors(x_, /*transposed=*/true);
    y_.head(r) = x_.head(r);
  }
  const RowMajorMatrix& packed = qr_.packed();
  for (int i = r - 1; i >= 0; --i)  // R11 y = y by back substitution along R's rows
    y_(i) = (y_(i) - packed.row(i).segment(i + 1, r - i - 1).dot(y_.segment(i + 1, r - i - 1))) /
            packed(i, i);
  y_.tail(m_ - r).setZero();
  for (int k = 0; k < m_; ++k) lambda(qr_.permutation()[k]) = y_(k);
}

std::vector<int> IndependentConstraintRows(const MechanicalDae& dae, DaeWorkspace& ws, double t,
                                           const Vector& q) {
  const int n = dae.num_coordinates(), m = dae.num_constraints();
  std::vector<int> rows;
  if (m == 0) return rows;
  Matrix g(m, n);
  dae.CalcPhiQ(ws, t, q, g);
  Eigen::ColPivHouseholderQR<Matrix> qr(g.transpose());
  qr.setThreshold(1e-9);  // relative to the largest pivot; a consistent state has exact zeros
  const int rank = static_cast<int>(qr.rank());
  for (int k = 0; k < rank; ++k) rows.push_back(qr.colsPermutation().indices()[k]);
  std::sort(rows.begin(), rows.end());
  return rows;
}

void SelectRows(const Matrix& full, const std::vector<int>& rows, Matrix& out) {
  for (size_t i = 0; i < rows.size(); ++i) out.row(i) = full.row(rows[i]);
}

void SelectRows(const Vector& full, const std::vector<int>& rows, Vector& out) {
  for (size_t i = 0; i < rows.size(); ++i) out[i] = full[rows[i]];
}

}  // namespace mbb
