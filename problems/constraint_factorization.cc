#include "problems/constraint_factorization.h"

#include <algorithm>
#include <cmath>

namespace mbb {

ConstraintFactorization::ConstraintFactorization(int m, int n)
    : m_(m),
      n_(n),
      phi_q_t_(n, m),
      qr_(n, m),
      basis_(n, n),
      work_mc_(m, std::max(n, 1)),
      y_(m),
      x_(n),
      householder_work_(n) {
  qr_.setThreshold(kConstraintRankThreshold);
}

void ConstraintFactorization::Compute(const Eigen::Ref<const Matrix>& phi_q, int max_rank) {
  MBB_INVARIANT(phi_q.rows() == m_ && phi_q.cols() == n_, "Compute: phi_q must be m x n");
  bases_formed_ = false;
  if (m_ == 0) {
    rank_ = computed_rank_ = 0;
    return;
  }
  phi_q_t_ = phi_q.transpose();
  qr_.compute(phi_q_t_);  // (1)
  computed_rank_ = static_cast<int>(qr_.rank());
  rank_ = std::min(computed_rank_, max_rank);
}

void ConstraintFactorization::FormBases() {
  if (m_ == 0)
    basis_.setIdentity();
  else
    qr_.householderQ().evalTo(basis_, householder_work_);
  bases_formed_ = true;
}

double ConstraintFactorization::ConditionEstimate() const {
  if (rank_ == 0) return 1.0;
  return std::abs(qr_.matrixQR()(0, 0)) / std::abs(qr_.matrixQR()(rank_ - 1, rank_ - 1));
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
  y_.noalias() = qr_.colsPermutation().transpose() * b;
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

// Q x (or Q^T x) with Q = H_0 H_1 ... H_{p-1} the reflectors of the QR of Phi_q^T,
// H_k = I - tau_k v_k v_k^T on rows k..n-1 with v_k = [1; essential part], one dot product
// and one update each. Eigen's HouseholderSequence applied to a vector goes through a
// dynamic-size block product that allocates a temporary per reflector (counted with an
// interposed malloc), which a step loop must not do.
void ConstraintFactorization::ApplyReflectors(Vector& x, bool transposed) const {
  const int p = static_cast<int>(qr_.hCoeffs().size());
  for (int i = 0; i < p; ++i) {
    const int k = transposed ? i : p - 1 - i;
    const int tail = n_ - k - 1;
    const auto essential = qr_.matrixQR().col(k).tail(tail);
    const double s = qr_.hCoeffs()(k) * (x(k) + essential.dot(x.tail(tail)));
    x(k) -= s;
    x.tail(tail).noalias() -= s * essential;
  }
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
  qr_.matrixQR().topLeftCorner(r, r).triangularView<Eigen::Upper>().solveInPlace(y_.head(r));
  y_.tail(m_ - r).setZero();
  lambda.noalias() = qr_.colsPermutation() * y_;
}

}  // namespace mbb
