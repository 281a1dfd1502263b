// Projective criterion and coordinate partitioning, paper 003 s2-s3 (see the header).
#include "methods/partitioning/projective_criterion.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace mbb {
namespace {

// Relative size below which a pivot or a column residual counts as zero: well above the
// rounding of an elimination on O(1) entries (~1e-15), well below any conditioning the
// methods accept.
constexpr double kRankTolerance = 1e-10;
// A dependent column counts as well independent of the ones taken when its residual exceeds
// this fraction of the largest column of C (an angle of about 6 degrees for equal norms).
constexpr double kWellIndependent = 0.1;

// Resizes only when the shape changes (no allocation while the rank is unchanged).
void Shape(Matrix& x, int rows, int cols) {
  if (x.rows() != rows || x.cols() != cols) x.resize(rows, cols);
}

// The complete pivot of the block a(s:rows, s:cols): the largest |a_ij|, the first in
// column-major order among equal ones (Eigen's cwiseAbs().maxCoeff(&i, &j): the same
// choice), as offsets from (s, s). Two passes: the largest value by a branch-free running
// maximum per contiguous column, then its first position; a NaN (which the running maximum
// may skip where Eigen's first entry keeps it) takes Eigen's loop itself. Eigen's visitor on
// the abs-expression of a block was 15 % of a Bricard partitioning-projective run.
double CompletePivot(const Matrix& a, int s, int rows, int cols, int& pi, int& pj) {
  const Eigen::Index ld = a.outerStride();
  const double* base = a.data();
  double best = 0.0;
  bool finite = true;
  for (int j = s; j < cols; ++j) {
    const double* column = base + j * ld;
    double column_max = 0.0, nan_check = 0.0;
    for (int i = s; i < rows; ++i) {
      const double x = std::abs(column[i]);
      column_max = x > column_max ? x : column_max;
      nan_check += column[i] * 0.0;  // NaN if an entry is NaN or infinite
    }
    finite = finite && nan_check == 0.0;
    best = column_max > best ? column_max : best;
  }
  pi = 0;
  pj = 0;
  if (!finite) {  // Eigen's rule verbatim: strictly larger, column-major, from (s, s)
    best = std::abs(base[s * ld + s]);
    for (int j = s; j < cols; ++j)
      for (int i = j == s ? s + 1 : s; i < rows; ++i)
        if (std::abs(base[j * ld + i]) > best) {
          best = std::abs(base[j * ld + i]);
          pi = i - s;
          pj = j - s;
        }
    return best;
  }
  for (int j = s; j < cols; ++j) {
    const double* column = base + j * ld;
    for (int i = s; i < rows; ++i)
      if (std::abs(column[i]) == best) {
        pi = i - s;
        pj = j - s;
        return best;
      }
  }
  return best;
}

// Rows s+1..rows-1 of a -= f_i row s, columns s..cols-1, f_i = a(i, s) / a(s, s): one
// Gaussian elimination step, run down the contiguous columns (column-major storage). Each
// entry sees the same operation as in a row-by-row update, so the result is bit for bit
// that of `a.row(i).tail(..) -= f * a.row(s).tail(..)`. `factors` holds >= rows entries.
void EliminateBelow(Matrix& a, int s, int rows, int cols, Vector& factors) {
  const Eigen::Index ld = a.outerStride();
  double* base = a.data();
  const double pivot = base[s * ld + s];
  for (int i = s + 1; i < rows; ++i) factors[i] = base[s * ld + i] / pivot;
  for (int j = s; j < cols; ++j) {
    double* column = base + j * ld;
    const double a_sj = column[s];
    for (int i = s + 1; i < rows; ++i) column[i] -= factors[i] * a_sj;
  }
}

}  // namespace

PartitionKinematics::PartitionKinematics(int n, int m)
    : n_(n),
      m_(m),
      work_(m, n),
      rows_c_(m, n),
      basis_(m, m),
      column_(m),
      order_(n),
      row_perm_(m),
      col_perm_(n),
      lu_(m) {}

int PartitionKinematics::FindRows(const Eigen::Ref<const Matrix>& phi_q, Partition& partition) {
  // Gaussian elimination with complete pivoting: the pivot rows are independent.
  work_ = phi_q;
  std::iota(row_perm_.begin(), row_perm_.end(), 0);
  std::iota(col_perm_.begin(), col_perm_.end(), 0);
  const double scale = m_ > 0 && n_ > 0 ? work_.cwiseAbs().maxCoeff() : 0.0;
  int r = 0;
  for (; r < std::min(m_, n_); ++r) {
    int pi = 0, pj = 0;
    const double pivot = CompletePivot(work_, r, m_, n_, pi, pj);
    if (!(pivot > kRankTolerance * scale)) break;
    work_.row(r).swap(work_.row(r + pi));
    std::swap(row_perm_[r], row_perm_[r + pi]);
    work_.col(r).swap(work_.col(r + pj));
    std::swap(col_perm_[r], col_perm_[r + pj]);
    EliminateBelow(work_, r, m_, n_, column_);
  }
  rank_ = r;
  partition.rows.assign(row_perm_.begin(), row_perm_.begin() + r);
  std::sort(partition.rows.begin(), partition.rows.end());
  return r;
}

void PartitionKinematics::ChooseAny(const Eigen::Ref<const Matrix>& phi_q, Partition& partition) {
  // Complete pivoting on the kept rows; pivot columns are dependent.
  const int r = static_cast<int>(partition.rows.size());
  for (int i = 0; i < r; ++i) work_.row(i) = phi_q.row(partition.rows[i]);
  std::iota(col_perm_.begin(), col_perm_.end(), 0);
  for (int s = 0; s < r; ++s) {
    int pi = 0, pj = 0;
    CompletePivot(work_, s, r, n_, pi, pj);
    work_.row(s).swap(work_.row(s + pi));
    work_.col(s).swap(work_.col(s + pj));
    std::swap(col_perm_[s], col_perm_[s + pj]);
    EliminateBelow(work_, s, r, n_, column_);
  }
  partition.dependent.assign(col_perm_.begin(), col_perm_.begin() + r);
  std::sort(partition.dependent.begin(), partition.dependent.end());
  partition.independent.clear();
  for (int j = 0, next = 0; j < n_; ++j) {
    if (next < r && partition.dependent[next] == j) {
      ++next;
      continue;
    }
    partition.independent.push_back(j);
  }
}

void PartitionKinematics::ChooseByWeight(const Eigen::Ref<const Matrix>& phi_q,
                                         const Vector& weight, Partition& partition) {
  const int r = static_cast<int>(partition.rows.size());
  for (int i = 0; i < r; ++i) rows_c_.row(i) = phi_q.row(partition.rows[i]);
  std::iota(order_.begin(), order_.end(), 0);
  // Ascending weight, ties by index (a deterministic choice; std::sort, unlike
  // std::stable_sort, takes no temporary buffer).
  std::sort(order_.begin(), order_.end(), [&weight](int a, int b) {
    return weight[a] < weight[b] || (weight[a] == weight[b] && a < b);
  });
  const double scale = r > 0 ? rows_c_.topRows(r).cwiseAbs().maxCoeff() : 0.0;
  const double column_scale = r > 0 ? rows_c_.topRows(r).colwise().norm().maxCoeff() : 0.0;
  partition.dependent.clear();
  int taken = 0;
  // Two passes over the ascending weights: first only columns well independent of those
  // taken (residual above kWellIndependent of the largest column: the matroid greedy alone
  // accepts a barely independent column and with it an ill-conditioned C_D, seen on the spin
  // top in Euler parameters), then any independent column to complete the set.
  std::fill(col_perm_.begin(), col_perm_.end(), 0);  // 1: taken
  for (const double threshold : {kWellIndependent * column_scale, kRankTolerance * scale}) {
    for (int j : order_) {
      if (taken == r) break;
      if (col_perm_[j]) continue;
      column_.head(r) = rows_c_.col(j).head(r);
      // Modified Gram-Schmidt against the columns taken so far.
      for (int s = 0; s < taken; ++s)
        column_.head(r) -= basis_.col(s).head(r).dot(column_.head(r)) * basis_.col(s).head(r);
      const double norm = column_.head(r).norm();
      if (!(norm > threshold)) continue;  // (nearly) dependent on the taken columns
      basis_.col(taken).head(r) = column_.head(r) / norm;
      partition.dependent.push_back(j);
      col_perm_[j] = 1;
      ++taken;
    }
  }
  std::sort(partition.dependent.begin(), partition.dependent.end());
  partition.independent.clear();
  for (int j = 0, next = 0; j < n_; ++j) {
    if (next < taken && partition.dependent[next] == j) {
      ++next;
      continue;
    }
    partition.independent.push_back(j);
  }
}

bool PartitionKinematics::Factor(const Eigen::Ref<const Matrix>& phi_q,
                                 const Partition& partition) {
  const int r = static_cast<int>(partition.dependent.size());
  const int k = static_cast<int>(partition.independent.size());
  Shape(c_d_, r, r);
  Shape(c_i_, r, k);
  Shape(a_, r, k);
  Shape(d_, k, n_);
  for (int i = 0; i < r; ++i) {
    for (int j = 0; j < r; ++j) c_d_(i, j) = phi_q(partition.rows[i], partition.dependent[j]);
    for (int j = 0; j < k; ++j) c_i_(i, j) = phi_q(partition.rows[i], partition.independent[j]);
  }
  d_.setZero();
  for (int j = 0; j < k; ++j) d_(j, partition.independent[j]) = 1.0;  // I^(k) of (9)
  if (r == 0) return true;
  lu_.compute(c_d_);
  const auto pivots = lu_.matrixLU().diagonal().cwiseAbs();
  if (!(pivots.minCoeff() > 1e-13 * std::max(pivots.maxCoeff(), 1e-300))) return false;
  a_ = lu_.solve(c_i_);
  a_ = -a_;  // A = -C_D^-1 C_I (7)
  for (int i = 0; i < r; ++i) d_.col(partition.dependent[i]) = a_.row(i).transpose();  // (9)
  return true;
}

void PartitionKinematics::SolveDependent(Vector& b) const { b = lu_.solve(b); }

int PartitionKinematics::DeterminantSignDependent() const {
  if (c_d_.rows() == 0) return 1;
  return lu_.determinant() < 0.0 ? -1 : 1;
}

double PartitionKinematics::ConditionDependent() {
  const int r = static_cast<int>(c_d_.rows());
  if (r == 0) return 0.0;
  Shape(identity_, r, r);
  Shape(inverse_, r, r);
  identity_.setIdentity();
  inverse_ = lu_.solve(identity_);
  const double norm = c_d_.cwiseAbs().colwise().sum().maxCoeff();
  const double inverse_norm = inverse_.cwiseAbs().colwise().sum().maxCoeff();
  return norm * inverse_norm;
}

ProjectiveCriterion::ProjectiveCriterion(int n, int m)
    : n_(n),
      kinematics_(n, m),
      mass_llt_(n),
      rest_ldlt_(std::max(n - 1, 1)),
      mass_inverse_(n, n),
      identity_(Matrix::Identity(n, n)),
      rest_(std::max(n - 1, 1), std::max(n - 1, 1)),
      rest_col_(std::max(n - 1, 1)),
      rest_x_(std::max(n - 1, 1)),
      schur_(n) {}

bool ProjectiveCriterion::InverseDiagonalReciprocal(const Matrix& mass) {
  mass_llt_.compute(mass);
  bool definite = mass_llt_.info() == Eigen::Success;
  if (definite) {
    const auto l = mass_llt_.matrixLLT().diagonal();
    definite = l.minCoeff() > 1e-7 * l.maxCoeff();  // cond(M) < 1e14
  }
  if (definite) {
    mass_inverse_ = mass_llt_.solve(identity_);
    for (int i = 0; i < n_; ++i) schur_[i] = 1.0 / mass_inverse_(i, i);
    return true;
  }
  // Singular M: generalised Schur complement M_ii - M_ir M_rr^+ M_ri per coordinate
  // (LDLT's solve zeroes the components of zero pivots: the pseudo-inverse of a PSD M_rr).
  if (n_ == 1) {
    schur_[0] = mass(0, 0);
    return true;
  }
  const double scale = mass.cwiseAbs().maxCoeff();
  for (int i = 0; i < n_; ++i) {
    for (int a = 0, ra = 0; a < n_; ++a) {
      if (a == i) continue;
      rest_col_[ra] = mass(a, i);
      for (int b = 0, rb = 0; b < n_; ++b) {
        if (b == i) continue;
        rest_(ra, rb++) = mass(a, b);
      }
      ++ra;
    }
    rest_ldlt_.compute(rest_);
    rest_x_ = rest_ldlt_.solve(rest_col_);
    const double s = mass(i, i) - rest_col_.dot(rest_x_);
    schur_[i] = s > 1e-14 * scale ? s : 0.0;  // rounding of a zero complement
  }
  return true;
}

bool ProjectiveCriterion::CosAlpha(const Matrix& mass, const Matrix& phi_q, Vector& cos2_alpha) {
  kinematics_.FindRows(phi_q, partition_);
  kinematics_.ChooseAny(phi_q, partition_);
  if (!kinematics_.Factor(phi_q, partition_)) return false;
  const Matrix& d = kinematics_.d();
  const int k = static_cast<int>(d.rows());
  if (k == 0) {
    cos2_alpha.setZero();
    return true;
  }
  Shape(md_, k, k);
  Shape(md_inv_d_, k, n_);
  Shape(dm_, k, n_);
  dm_.noalias() = d * mass;
  md_.noalias() = dm_ * d.transpose();  // M_d = D M D^T (13)
  md_llt_.compute(md_);
  if (md_llt_.info() != Eigen::Success) return false;
  md_inv_d_ = md_llt_.solve(d);
  InverseDiagonalReciprocal(mass);
  for (int i = 0; i < n_; ++i)  // (23a), |k_i|^2 = M^-1(i, i) = 1 / S_i
    cos2_alpha[i] = d.col(i).dot(md_inv_d_.col(i)) * schur_[i];
  return true;
}

bool ProjectiveCriterion::CosBeta(const Matrix& mass, const Matrix& phi_q, Vector& cos2_beta) {
  const int r = kinematics_.FindRows(phi_q, partition_);
  mass_llt_.compute(mass);
  if (mass_llt_.info() != Eigen::Success) return false;
  const auto l = mass_llt_.matrixLLT().diagonal();
  if (!(l.minCoeff() > 1e-7 * l.maxCoeff())) return false;
  mass_inverse_ = mass_llt_.solve(identity_);
  Shape(rows_c_, r, n_);
  Shape(c_minv_, r, n_);
  Shape(mc_, r, r);
  Shape(mc_inv_c_, r, n_);
  for (int i = 0; i < r; ++i) rows_c_.row(i) = phi_q.row(partition_.rows[i]);
  c_minv_.noalias() = rows_c_ * mass_inverse_;    // columns k_i^*(c) (18)
  mc_.noalias() = c_minv_ * rows_c_.transpose();  // M_c = C M^-1 C^T (15)
  mc_llt_.compute(mc_);
  if (r > 0 && mc_llt_.info() != Eigen::Success) return false;
  if (r > 0) mc_inv_c_ = mc_llt_.solve(c_minv_);
  for (int i = 0; i < n_; ++i)  // (23b)
    cos2_beta[i] = r > 0 ? c_minv_.col(i).dot(mc_inv_c_.col(i)) / mass_inverse_(i, i) : 0.0;
  return true;
}

bool ProjectiveCriterion::SvdScore(const Matrix& phi_q, Vector& score) {
  const int r = kinematics_.FindRows(phi_q, partition_);
  Shape(rows_c_, r, n_);
  Shape(mc_, r, r);
  Shape(mc_inv_c_, r, n_);
  for (int i = 0; i < r; ++i) rows_c_.row(i) = phi_q.row(partition_.rows[i]);
  if (r == 0) {
    score.setOnes();
    return true;
  }
  mc_.noalias() = rows_c_ * rows_c_.transpose();
  mc_llt_.compute(mc_);
  if (mc_llt_.info() != Eigen::Success) return false;
  mc_inv_c_ = mc_llt_.solve(rows_c_);
  // 1 - (C^T (C C^T)^-1 C)_ii = |V_2^T e_i|^2
  for (int i = 0; i < n_; ++i) score[i] = 1.0 - rows_c_.col(i).dot(mc_inv_c_.col(i));
  return true;
}

}  // namespace mbb
