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
// evaluations allocate nothing. The formalism's per-body blocks lie in one flat array in
// tree order at their own sizes (Slots); the tree state's are the joint-tree
// formulation's (TreeState).
#pragma once

#include <vector>

#include "problems/model/joint_tree.h"

namespace mbb {

class RecursiveFormalism {
 public:
  /// `inverses`: the classical formalism (the `recursive` method): (J^T Mbar J)^-1 by a
  /// Cholesky factorisation where it is positive definite (the pseudo-inverse where it is
  /// not), no rank decision on Mbar (skipped() stays false) and none of the blocks only
  /// the forward recursion (24) and the residual read (Hbar, kbar, the null-space
  /// projector): FullRankAccelerations only. Otherwise every block goes through the
  /// eigen-decompositions of the rank decisions (Residual, PseudoInverseAccelerations).
  /// `planar_kernels`: with `inverses`, a tree of planar rigid bodies on one-coordinate
  /// joints runs the passes on fixed 3 x 3 blocks (recursive_formalism_planar.cc; the same
  /// results to the bit); false keeps the general passes (the test comparing them).
  RecursiveFormalism(const JointTreeDae& dae, double rank_tolerance = 1e-10, bool inverses = false,
                     bool planar_kernels = true);

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
  // Views of the flat array with the blocks' fixed capacity (temporaries stay on the stack).
  using Block = Eigen::Map<BodyMatrix>;
  using ConstBlock = Eigen::Map<const BodyMatrix>;
  using Column = Eigen::Map<BodyVector>;
  using ConstColumn = Eigen::Map<const BodyVector>;
  ConstBlock condensed_mass(int i) const { return Const(slots_[i].mbar, slots_[i].d, slots_[i].d); }
  ConstColumn condensed_force(int i) const { return ConstCol(slots_[i].fbar, slots_[i].d); }
  bool skipped(int i) const { return skipped_[i]; }  // Mbar_i singular
  int rank(int i) const { return rank_[i]; }         // r_i
  const TreeState& state() const { return state_; }
  /// True when the fixed-size planar passes run (the constructor's `planar_kernels`).
  bool planar_kernels() const { return planar_ != 0; }
  const JointTreeDae& dae() const { return dae_; }
  /// Absolute accelerations p_j'' of (24a,b) (valid for bodies not skipped).
  ConstColumn absolute_acceleration(int j) const { return ConstCol(slots_[j].pdd, slots_[j].d); }

 private:
  // Body i's place in the tree (TreeBody's parent and q_offset, so that the recursions
  // read these 48 B a body and not the TreeBody), its sizes d_i, n_i and the predecessor's
  // d (0 on the ground), and where its blocks start in pool_ (doubles). The blocks of all
  // bodies lie in one flat array in tree order, each at its own size (a planar rigid body:
  // 16 doubles with `inverses`, 29 without; hbar, null_projector, kbar only without), so
  // the per-body memory is what the equations need, not a 6 x 6 capacity per block.
  struct Slots {
    int parent = -1, q_offset = 0;
    int d = 0, n = 0, dp = 0;
    int mbar = 0, hbar = 0;              // d x d: Mbar_i (17a); d x dp: Hbar_i (20a)
    int a_plus = 0, null_projector = 0;  // n x n: (J^T Mbar J)^+, I - A^+ A (27)
    int fbar = 0, kbar = 0, pdd = 0;     // d: fbar_i (17b), kbar_i (20b), p_i'' (24)
    // The successor of largest index (-1: none): the first in the backward pass to add to
    // Mbar_i and fbar_i, which the planar pass then starts from M_i and f_i.
    int last_child = -1;
  };
  Block At(int offset, int rows, int cols) { return Block(pool_.data() + offset, rows, cols); }
  ConstBlock Const(int offset, int rows, int cols) const {
    return ConstBlock(pool_.data() + offset, rows, cols);
  }
  Column Col(int offset, int rows) { return Column(pool_.data() + offset, rows); }
  ConstColumn ConstCol(int offset, int rows) const {
    return ConstColumn(pool_.data() + offset, rows);
  }
  Block Mbar(int i) { return At(slots_[i].mbar, slots_[i].d, slots_[i].d); }
  Block Hbar(int i) { return At(slots_[i].hbar, slots_[i].d, slots_[i].dp); }
  Block APlus(int i) { return At(slots_[i].a_plus, slots_[i].n, slots_[i].n); }
  Block NullProjector(int i) { return At(slots_[i].null_projector, slots_[i].n, slots_[i].n); }
  Column Fbar(int i) { return Col(slots_[i].fbar, slots_[i].d); }
  Column Kbar(int i) { return Col(slots_[i].kbar, slots_[i].d); }
  Column Pdd(int i) { return Col(slots_[i].pdd, slots_[i].d); }
  ConstBlock Mbar(int i) const { return condensed_mass(i); }
  ConstColumn Fbar(int i) const { return condensed_force(i); }
  ConstBlock Hbar(int i) const { return Const(slots_[i].hbar, slots_[i].d, slots_[i].dp); }
  ConstColumn Kbar(int i) const { return ConstCol(slots_[i].kbar, slots_[i].d); }
  ConstBlock APlus(int i) const { return Const(slots_[i].a_plus, slots_[i].n, slots_[i].n); }
  ConstColumn Pdd(int i) const { return absolute_acceleration(i); }

  // Pseudo-inverse of a symmetric positive semi-definite matrix with the stated threshold;
  // returns the rank.
  int PseudoInverse(const BodyMatrix& a, double scale, Block a_plus);
  int Rank(const BodyMatrix& a, double scale);
  // a^-1 of a symmetric positive definite a by Cholesky; false where a is not positive
  // definite.
  bool Inverse(const BodyMatrix& a, Block a_inv);
  // The right-hand side of (25a) / (26), e_j = J_j^T (Mbar_j (H_j p_i'' + k_j) + fbar_j).
  void EquationTerm(int j, BodyVector& e) const;
  // The q''-free terms of (25b) for a successor j of the skipped body i.
  void SkippedPredecessorTerm(int j, BodyVector& e) const;
  // (24a,b): p_j'' of a body that is not skipped.
  void ForwardAcceleration(int j);
  // d when every body is planar of that size on a one-coordinate joint (n = 1): 3 rigid
  // bodies, 2 point masses; 0 otherwise.
  int PlanarDimension() const;
  // The reverse loop of Backward and FullRankAccelerations for such a tree, with
  // `inverses` (recursive_formalism_planar.cc), at d = planar_.
  void BackwardPlanar();
  bool FullRankAccelerationsPlanar(VectorRef qdd);
  template <int D>
  void BackwardPlanarOf();
  template <int D>
  bool FullRankAccelerationsPlanarOf(VectorRef qdd);
  template <int D>
  void PlanarHOf(int i, double* h) const;

  // What the planar passes read of the tree's links: 8 B a body instead of the 52 of Slots.
  // Everything else is at a fixed place there: body i's pool blocks at block * i (Mbar
  // d x d, a_plus 1, fbar d, p'' d, as the constructor takes them), its J_i, k_i, f_i at
  // d i, its q_i at i (PlanarLayoutHolds checks it).
  struct PlanarLinks {
    int parent = -1, last_child = -1;
  };
  struct PlanarLayout {
    constexpr explicit PlanarLayout(int d)
        : block(d * d + 1 + 2 * d), a_plus(d * d), fbar(d * d + 1), pdd(d * d + 1 + d) {}
    int block, a_plus, fbar, pdd;
  };
  bool PlanarLayoutHolds(int d) const;

  const JointTreeDae& dae_;
  TreeStateScratch scratch_;  // CalcTreeState into state_
  double rank_tolerance_;
  TreeState state_;
  std::vector<Slots> slots_;
  std::vector<PlanarLinks> planar_links_;  // with planar_ only
  std::vector<double> pool_;
  std::vector<char> skipped_;
  std::vector<int> rank_;
  bool inverses_;
  int planar_ = 0;  // d of the fixed-size passes (PlanarDimension, with inverses); 0: none
  Eigen::SelfAdjointEigenSolver<BodyMatrix> eigen_;
  Eigen::LLT<BodyMatrix> llt_;
};

}  // namespace mbb
