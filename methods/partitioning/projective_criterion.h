// The projective criterion of paper 003 (Blajer, Schiehlen, Schirm 1994, s3) for choosing
// independent coordinates from redundant ones, and the coordinate partitioning it works on
// (s2, eqs 5-9). Numerics only: no problem, no method.
//
//   partition       q = [q_I; q_D] (5), C_D square and nonsingular; A = -C_D^-1 C_I (7),
//                   D = [I A^T] (9) in the original coordinate order
//   tangent metric  M_d = D M D^T (13)
//   normal metric   M_c = C M^-1 C^T (15)
//   (23a)           cos^2 alpha_i = d_i^T M_d^-1 d_i / M^-1(i, i),   d_i the i-th column of D
//   (23b)           cos^2 beta_i  = c_i^T M_c^-1 c_i / M^-1(i, i),   c_i the i-th column of C M^-1
//
// (23a) does not depend on which valid partition builds D (every D spans the same tangent
// subspace, s3 after eq 26), so it is evaluated with the partition complete pivoting picks.
// For a singular M (the stiff pendulum's diag(m, m, 0)) M^-1(i, i) is replaced by its
// reciprocal, the Schur complement S_i = min {x^T M x : x_i = 1} = M_ii - M_ir M_rr^+ M_ri,
// which is 1 / M^-1(i, i) for a positive definite M and tends to 0 along a massless
// coordinate (its covector k_i is infinitely long in the metric of M): cos^2 alpha_i =
// d_i^T M_d^-1 d_i S_i, the limit of (23a) as the missing inertia goes to zero. M_d stays
// positive definite as long as M is on the tangent subspace. (23b) needs M^-1 and is
// evaluated only for a nonsingular M.
//
// The geometry-only score of the SVD choice [Mani, Haug, Atkinson 1985]: with
// C = U [S 0] V^T, the squared length of row i of V_2 (the null-space basis), i.e. the
// Euclidean cos^2 between e_i and the tangent subspace, computed as 1 - (C^+ C)_ii. It is
// (23a) with M = I, and so does not change with the masses.
//
// Redundant constraints (rank C = r < m) are handled by keeping r independent rows (found
// by complete pivoting); k = n - r. Every buffer is allocated at construction.
#pragma once

#include <Eigen/Dense>
#include <vector>

namespace mbb {

using Vector = Eigen::VectorXd;
using Matrix = Eigen::MatrixXd;

/// Independent and dependent coordinates (indices into q) and the constraint rows kept.
struct Partition {
  std::vector<int> independent;  // k
  std::vector<int> dependent;    // r
  std::vector<int> rows;         // r independent rows of C
  bool operator==(const Partition& o) const {
    return independent == o.independent && dependent == o.dependent && rows == o.rows;
  }
};

/// Coordinate partitioning of a constraint Jacobian C (m x n): choice of a partition and the
/// matrices of (7), (9) for it.
class PartitionKinematics {
 public:
  PartitionKinematics(int n, int m);

  /// Rank r of C and r independent rows (complete pivoting); false if C has no row.
  int FindRows(const Eigen::Ref<const Matrix>& phi_q, Partition& partition);
  /// Chooses the partition whose independent coordinates have the largest total `weight`
  /// (a matroid greedy: dependent columns taken in ascending weight while independent of
  /// the ones taken). `rows` of the partition must be set (FindRows).
  void ChooseByWeight(const Eigen::Ref<const Matrix>& phi_q, const Vector& weight,
                      Partition& partition);
  /// Chooses dependent columns by complete pivoting on the kept rows (any valid partition).
  void ChooseAny(const Eigen::Ref<const Matrix>& phi_q, Partition& partition);

  /// Factors C_D of `partition`; false if it is singular. Then A (r x k) = -C_D^-1 C_I (7)
  /// and D (k x n) of (9).
  bool Factor(const Eigen::Ref<const Matrix>& phi_q, const Partition& partition);
  const Matrix& a() const { return a_; }
  const Matrix& d() const { return d_; }
  /// Solves C_D x = b in place (b of size r).
  void SolveDependent(Vector& b) const;
  /// 1-norm condition number of the factored C_D (0 if r = 0).
  double ConditionDependent();
  /// Sign of det C_D of the last factorisation (+1 if r = 0): it changes only where C_D
  /// passes through a singular matrix.
  int DeterminantSignDependent() const;

 private:
  int n_, m_;
  Matrix work_;    // m x n elimination copy
  Matrix rows_c_;  // r x n, kept rows (sized m x n, top-left used)
  Matrix basis_;   // m x m orthonormal basis of chosen dependent columns
  Vector column_;  // m
  std::vector<int> order_, row_perm_, col_perm_;
  Matrix c_d_, c_i_, a_, d_, inverse_, identity_;
  Eigen::PartialPivLU<Matrix> lu_;
  int rank_ = 0;
};

/// Evaluates (23a), (23b) and the SVD score for given M and C.
class ProjectiveCriterion {
 public:
  ProjectiveCriterion(int n, int m);

  /// (23a) into cos2_alpha (n). False if M_d is not positive definite or C is empty of
  /// tangent directions. Works for a singular M (see the file comment).
  bool CosAlpha(const Matrix& mass, const Matrix& phi_q, Vector& cos2_alpha);
  /// (23b) into cos2_beta (n). False if M is singular.
  bool CosBeta(const Matrix& mass, const Matrix& phi_q, Vector& cos2_beta);
  /// 1 - (C^+ C)_ii: the squared row norms of the SVD's null-space basis V_2 (n).
  bool SvdScore(const Matrix& phi_q, Vector& score);

  /// The partition the last CosAlpha used to build D; after SvdScore or CosBeta, its rows
  /// (FindRows on their C).
  const Partition& partition() const { return partition_; }

 private:
  // 1 / M^-1(i, i), or the Schur complement for a singular M, into schur_.
  bool InverseDiagonalReciprocal(const Matrix& mass);

  int n_;
  PartitionKinematics kinematics_;
  Partition partition_;
  Eigen::LLT<Matrix> mass_llt_;
  Eigen::LDLT<Matrix> rest_ldlt_;
  Eigen::LLT<Matrix> md_llt_, mc_llt_;
  Matrix mass_inverse_, identity_, rest_, md_, dm_, md_inv_d_, c_minv_, mc_, mc_inv_c_, rows_c_;
  Vector rest_col_, rest_x_, schur_;
};

}  // namespace mbb
