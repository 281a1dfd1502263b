// The recursive O(N) multibody formalism of paper 004 (M. Arnold, "A recursive multibody
// formalism for systems with small mass and inertia terms", 2013) on the joint-tree
// formulation (problems/model/joint_tree.h, K_i = I):
//
//   backward recursion (17a,b)  Mbar_i, fbar_i from the leaves to the root, with the
//                               Moore-Penrose pseudo-inverse of A_j = J_j^T Mbar_j J_j;
//   (20a,b)                     Hbar_i, kbar_i;
//   forward recursion (24a,b)   p_j'' for every body with non-singular Mbar_j; a body with
//                               rank-deficient Mbar_i is skipped (24b);
//   equations of motion         (25a) for a body whose predecessor is the root or was not
//                               skipped (this is (26) for a skipped body), (25b) for a
//                               successor of a skipped body: r_i second-order equations
//                               and n_i - r_i first-order ones (28a,b) per body.
//
// Rank decisions (stated threshold): an eigenvalue lambda_k of the symmetric positive
// semi-definite A_j or Mbar_j counts as zero when
//   lambda_k <= rank_tolerance * (lambda_max + s),
// s = the model's largest body mass entry (times 1 + |J_j|_F^2 for A_j); default
// rank_tolerance = 1e-10 (exact zero masses give eigenvalues of order 1e-16 lambda_max).
//
// Assumption (23) (no two rank-deficient bodies in a row) is checked by the joint-tree
// formulation when the model is built. Every buffer is sized in the constructor: the
// evaluations allocate nothing (the per-body blocks are fixed-capacity 3 x 3).
#pragma once

#include <vector>

#include "problems/model/joint_tree.h"

namespace mbb {

class RecursiveFormalism {
 public:
  RecursiveFormalism(const JointTreeDae& dae, double rank_tolerance = 1e-10);

  /// Tree state (7)-(11) and the backward recursion (17), (20) at (t, q, q').
  void Backward(double t, ConstVectorRef q, ConstVectorRef v);

  /// Classical full-rank formalism (inverses): q'' from (25a) with p_i'' from (24a).
  /// False (q'' untouched beyond the failing body) if some A_j is singular.
  bool FullRankAccelerations(VectorRef qdd);

  /// Residual of the mixed equations (25a), (25b), (26) for a trial q'' (length n, in
  /// force units). Zero exactly on solutions; the n_i - r_i rows of a rank-deficient body
  /// do not depend on q'' (they are (28b)).
  void Residual(ConstVectorRef qdd, VectorRef residual);

  /// The minimum-norm q'' solving the second-order rows (pseudo-inverses in (25)):
  /// consistent with Residual for the differential components (a start for a DAE solver).
  void PseudoInverseAccelerations(VectorRef qdd);

  // Per body, after Backward (for tests and diagnostics).
  const BodyMatrix& condensed_mass(int i) const { return mbar_[i]; }   // Mbar_i (17a)
  const BodyVector& condensed_force(int i) const { return fbar_[i]; }  // fbar_i (17b)
  bool skipped(int i) const { return skipped_[i]; }                    // Mbar_i singular
  int rank(int i) const { return rank_[i]; }                           // r_i
  const TreeState& state() const { return state_; }
  const JointTreeDae& dae() const { return dae_; }
  /// Absolute accelerations p_j'' of (24a,b) (valid for bodies not skipped).
  const BodyVector& absolute_acceleration(int j) const { return pdd_[j]; }

 private:
  // Pseudo-inverse of a symmetric positive semi-definite matrix with the stated threshold;
  // returns the rank.
  int PseudoInverse(const BodyMatrix& a, double scale, BodyMatrix& a_plus);
  int Rank(const BodyMatrix& a, double scale);
  // The right-hand side of (25a) / (26), e_j = J_j^T (Mbar_j (H_j p_i'' + k_j) + fbar_j).
  void EquationTerm(int j, BodyVector& e) const;
  // The q''-free terms of (25b) for a successor j of the skipped body i.
  void SkippedPredecessorTerm(int j, BodyVector& e) const;
  // (24a,b): p_j'' of a body that is not skipped.
  void ForwardAcceleration(int j);

  const JointTreeDae& dae_;
  std::unique_ptr<DaeWorkspace> ws_;
  double rank_tolerance_;
  TreeState state_;
  std::vector<BodyMatrix> mbar_, a_plus_, null_projector_, hbar_, proj_;
  std::vector<BodyVector> fbar_, kbar_, pdd_;
  std::vector<char> skipped_;
  std::vector<int> rank_;
  Eigen::SelfAdjointEigenSolver<BodyMatrix> eigen_;
  BodyVector zero_;
};

}  // namespace mbb
