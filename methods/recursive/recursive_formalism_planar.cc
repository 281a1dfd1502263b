// The classical recursive formalism of paper 004 (recursive_formalism.h) for planar rigid
// bodies on one-coordinate joints (d_i = 3, n_i = 1: revolute and prismatic joints), the
// pendulum chains and most planar trees: the backward recursion (17a,b) and the forward
// pass (25a), (9) on fixed 3 x 3 blocks in plain loops. The general passes do the same
// arithmetic through Eigen's products on blocks sized at run time, whose dispatch costs
// more than the arithmetic at these sizes. Bit for bit the same results: every entry is
// computed by the same operations in the same order as Eigen's small (coefficient-based)
// products there, a sum over k = 0, 1, 2 in that order, each product rounded then added
// (no fused multiply-add); the 1 x 1 Cholesky factor and its solves as Eigen's LLT does
// them (tests/test_recursive.cc compares the two paths).
#include <cmath>

#include "methods/recursive/recursive_formalism.h"

namespace mbb {
namespace {

// Column-major 3 x 3 blocks and 3-vectors as in the flat arrays (BodyBlocks, the pool).
inline double Entry(const double* m, int row, int col) { return m[row + 3 * col]; }

// x^T y, summed in index order.
inline double Dot(const double* x, const double* y) {
  double s = x[0] * y[0];
  s += x[1] * y[1];
  s += x[2] * y[2];
  return s;
}

// Row `row` of a times column `col` of b, summed in index order.
inline double RowCol(const double* a, int row, const double* b, int col) {
  double s = Entry(a, row, 0) * Entry(b, 0, col);
  s += Entry(a, row, 1) * Entry(b, 1, col);
  s += Entry(a, row, 2) * Entry(b, 2, col);
  return s;
}

// Column `i` of a times column `col` of b (a^T b), summed in index order.
inline double ColCol(const double* a, int i, const double* b, int col) {
  double s = Entry(a, 0, i) * Entry(b, 0, col);
  s += Entry(a, 1, i) * Entry(b, 1, col);
  s += Entry(a, 2, i) * Entry(b, 2, col);
  return s;
}

// out = a b (3 x 3).
inline void Product(const double* a, const double* b, double* out) {
  for (int c = 0; c < 3; ++c)
    for (int r = 0; r < 3; ++r) out[r + 3 * c] = RowCol(a, r, b, c);
}

// out = a^T b (3 x 3).
inline void TransposeProduct(const double* a, const double* b, double* out) {
  for (int c = 0; c < 3; ++c)
    for (int r = 0; r < 3; ++r) out[r + 3 * c] = ColCol(a, r, b, c);
}

// J^T Mbar J of a one-coordinate joint: (J^T Mbar) first, then times J.
inline double ProjectedMass(const double* j, const double* mbar) {
  double t[3];
  for (int k = 0; k < 3; ++k) t[k] = ColCol(j, 0, mbar, k);
  return Dot(t, j);
}

// H_i from the compact state (TreeState::planar_arms): -[1 0 h0; 0 1 h1; 0 0 1] with its
// zeros negated, the very entries CalcPlanarTreeState would have stored, column-major.
inline void PlanarH(const double* arms, double* h) {
  h[0] = -1.0;
  h[1] = -0.0;
  h[2] = -0.0;
  h[3] = -0.0;
  h[4] = -1.0;
  h[5] = -0.0;
  h[6] = arms[0];
  h[7] = arms[1];
  h[8] = -1.0;
}

}  // namespace

bool RecursiveFormalism::PlanarOneCoordinateTree() const {
  for (const Slots& s : slots_)
    if (s.d != 3 || s.n != 1) return false;
  return true;
}

bool RecursiveFormalism::PlanarLayoutHolds() const {
  for (int i = 0; i < static_cast<int>(slots_.size()); ++i) {
    const Slots& s = slots_[i];
    const int base = kPlanarBlock * i;
    if (s.mbar != base || s.a_plus != base + kPlanarAPlus || s.fbar != base + kPlanarFbar ||
        s.pdd != base + kPlanarPdd || s.q_offset != i)
      return false;
  }
  return static_cast<int>(pool_.size()) == kPlanarBlock * static_cast<int>(slots_.size());
}

// Mbar_i and fbar_i start from M_i and f_i (K_i = I) where they are first touched: a leaf
// copies them, the successor of largest index (the first in this pass) adds its (17a,b) terms
// to them. At N = 1e5 a separate pass over every body for the copies streamed 192 B a body
// more; the sums are the same, M_i + first term + next term ..., to the bit.
void RecursiveFormalism::BackwardPlanar() {
  const double* J_all = state_.J.data();
  const double* k2_all = state_.k2.data();
  const double* f_all = state_.f.data();
  for (int i = dae_.num_bodies() - 1; i >= 0; --i) {
    const PlanarLinks& b = planar_links_[i];
    double* block = pool_.data() + kPlanarBlock * i;
    if (b.last_child < 0) {
      const double* m = state_.M[i].data();
      for (int k = 0; k < 9; ++k) block[k] = m[k];
      for (int k = 0; k < 3; ++k) block[kPlanarFbar + k] = f_all[3 * i + k];
    }
    const double* J = J_all + 3 * i;
    double mbar[9];
    for (int k = 0; k < 9; ++k) mbar[k] = block[k];
    const double a = ProjectedMass(J, mbar);
    double a_plus;
    if (a <= 0.0) {  // LLT's test: not positive definite, the pseudo-inverse's rank decision
      const BodyMatrix j_block = state_.J[i];
      const double scale = dae_.mass_scale() * (1.0 + j_block.squaredNorm());
      rank_[i] = PseudoInverse(BodyMatrix::Constant(1, 1, a), scale, APlus(i));
      a_plus = block[kPlanarAPlus];
    } else {  // Cholesky a = L L, then L L a_plus = 1 by two triangular solves (Eigen's)
      const double r = 1.0 / std::sqrt(a);
      a_plus = r * r;
      block[kPlanarAPlus] = a_plus;
      rank_[i] = 1;
    }
    // I - ((J a_plus) J^T) Mbar, the projector of (17a,b).
    double u[3], outer[9], p2[9], proj[9];
    for (int k = 0; k < 3; ++k) u[k] = J[k] * a_plus;
    for (int c = 0; c < 3; ++c)
      for (int r = 0; r < 3; ++r) outer[r + 3 * c] = u[r] * J[c];
    Product(outer, mbar, p2);
    for (int c = 0; c < 3; ++c)
      for (int r = 0; r < 3; ++r) proj[r + 3 * c] = (r == c ? 1.0 : 0.0) - p2[r + 3 * c];
    if (b.parent < 0) continue;
    double H[9];
    PlanarH(state_.planar_arms.data() + 2 * i, H);
    // (17a): Mbar_parent += H^T (Mbar proj) H.
    double reduced[9], left[9];
    Product(mbar, proj, reduced);
    TransposeProduct(H, reduced, left);
    const bool first = planar_links_[b.parent].last_child == i;
    double* parent_block = pool_.data() + kPlanarBlock * b.parent;
    double* parent_mbar = parent_block;
    const double* mbar_so_far = first ? state_.M[b.parent].data() : parent_mbar;
    for (int c = 0; c < 3; ++c)
      for (int r = 0; r < 3; ++r)
        parent_mbar[r + 3 * c] = mbar_so_far[r + 3 * c] + RowCol(left, r, H, c);
    // (17b): fbar_parent -= H^T (proj^T (fbar + Mbar k)).
    const double* fbar = block + kPlanarFbar;
    const double* k2 = k2_all + 3 * i;
    double carried[3], w[3];
    for (int k = 0; k < 3; ++k) carried[k] = fbar[k] + RowCol(mbar, k, k2, 0);
    for (int k = 0; k < 3; ++k) w[k] = ColCol(proj, k, carried, 0);
    double* parent_fbar = parent_block + kPlanarFbar;
    const double* fbar_so_far = first ? f_all + 3 * b.parent : parent_fbar;
    for (int k = 0; k < 3; ++k) parent_fbar[k] = fbar_so_far[k] - ColCol(H, k, w, 0);
  }
}

bool RecursiveFormalism::FullRankAccelerationsPlanar(VectorRef qdd) {
  const double* J_all = state_.J.data();
  const double* k2_all = state_.k2.data();
  for (int j = 0; j < dae_.num_bodies(); ++j) {
    const PlanarLinks& b = planar_links_[j];
    const double* J = J_all + 3 * j;
    const double* k2 = k2_all + 3 * j;
    const double* mbar = pool_.data() + kPlanarBlock * j;
    const double* fbar = mbar + kPlanarFbar;
    const double* parent_pdd =
        b.parent >= 0 ? pool_.data() + kPlanarBlock * b.parent + kPlanarPdd : nullptr;
    double h_block[9];
    const double* H = nullptr;
    if (b.parent >= 0) {
      PlanarH(state_.planar_arms.data() + 2 * j, h_block);
      H = h_block;
    }
    // e = J^T (Mbar (k + H p_parent'') + fbar), the right-hand side of (25a).
    double w[3], u[3];
    for (int k = 0; k < 3; ++k) w[k] = H ? k2[k] + RowCol(H, k, parent_pdd, 0) : k2[k];
    for (int k = 0; k < 3; ++k) u[k] = RowCol(mbar, k, w, 0) + fbar[k];
    const double e = Dot(J, u);
    // (25a): q'' = -(J^T Mbar J)^-1 e by the 1 x 1 Cholesky factor (LLT's solves).
    const double a = ProjectedMass(J, mbar);
    if (a <= 0.0) return false;
    const double l = std::sqrt(a);
    const double q = -((e / l) / l);
    qdd[j] = q;
    // (9): p_j'' = -J_j q_j'' - k_j - H_j p_parent''.
    double* pdd = pool_.data() + kPlanarBlock * j + kPlanarPdd;
    for (int k = 0; k < 3; ++k) {
      pdd[k] = -J[k] * q;
      pdd[k] -= k2[k];
    }
    if (H)
      for (int k = 0; k < 3; ++k) pdd[k] -= RowCol(H, k, parent_pdd, 0);
  }
  return true;
}

}  // namespace mbb
