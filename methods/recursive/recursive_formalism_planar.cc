// The classical recursive formalism of paper 004 (recursive_formalism.h) for planar trees
// of one kind of body on one-coordinate joints: rigid bodies (d_i = 3, n_i = 1: revolute
// and prismatic joints; the pendulum chains and most planar trees) or point masses (d_i = 2:
// distance and prismatic joints; the point-mass pendulums): the backward recursion (17a,b)
// and the forward pass (25a), (9) on fixed D x D blocks in plain loops. The general passes
// do the same arithmetic through Eigen's products on blocks sized at run time, whose
// dispatch costs more than the arithmetic at these sizes. Bit for bit the same results:
// every entry is computed by the same operations in the same order as Eigen's small
// (coefficient-based) products there, a sum over k = 0, 1, ... in that order, each product
// rounded then added (no fused multiply-add); the 1 x 1 Cholesky factor and its solves as
// Eigen's LLT does them (tests/test_recursive.cc compares the two paths).
#include <cmath>

#include "methods/recursive/recursive_formalism.h"

namespace mbb {
namespace {

// Column-major D x D blocks and D-vectors as in the flat arrays (BodyBlocks, the pool).
template <int D>
inline double Entry(const double* m, int row, int col) {
  return m[row + D * col];
}

// x^T y, summed in index order.
template <int D>
inline double Dot(const double* x, const double* y) {
  double s = x[0] * y[0];
  for (int k = 1; k < D; ++k) s += x[k] * y[k];
  return s;
}

// Row `row` of a times column `col` of b, summed in index order.
template <int D>
inline double RowCol(const double* a, int row, const double* b, int col) {
  double s = Entry<D>(a, row, 0) * Entry<D>(b, 0, col);
  for (int k = 1; k < D; ++k) s += Entry<D>(a, row, k) * Entry<D>(b, k, col);
  return s;
}

// Column `i` of a times column `col` of b (a^T b), summed in index order.
template <int D>
inline double ColCol(const double* a, int i, const double* b, int col) {
  double s = Entry<D>(a, 0, i) * Entry<D>(b, 0, col);
  for (int k = 1; k < D; ++k) s += Entry<D>(a, k, i) * Entry<D>(b, k, col);
  return s;
}

// out = a b (D x D).
template <int D>
inline void Product(const double* a, const double* b, double* out) {
  for (int c = 0; c < D; ++c)
    for (int r = 0; r < D; ++r) out[r + D * c] = RowCol<D>(a, r, b, c);
}

// out = a^T b (D x D).
template <int D>
inline void TransposeProduct(const double* a, const double* b, double* out) {
  for (int c = 0; c < D; ++c)
    for (int r = 0; r < D; ++r) out[r + D * c] = ColCol<D>(a, r, b, c);
}

// J^T Mbar J of a one-coordinate joint: (J^T Mbar) first, then times J.
template <int D>
inline double ProjectedMass(const double* j, const double* mbar) {
  double t[D];
  for (int k = 0; k < D; ++k) t[k] = ColCol<D>(j, 0, mbar, k);
  return Dot<D>(t, j);
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

int RecursiveFormalism::PlanarDimension() const {
  if (slots_.empty()) return 0;
  const int d = slots_[0].d;
  if (d != 2 && d != 3) return 0;
  for (const Slots& s : slots_)
    if (s.d != d || s.n != 1) return 0;
  return d;
}

bool RecursiveFormalism::PlanarLayoutHolds(int d) const {
  const PlanarLayout at(d);
  for (int i = 0; i < static_cast<int>(slots_.size()); ++i) {
    const Slots& s = slots_[i];
    const int base = at.block * i;
    if (s.mbar != base || s.a_plus != base + at.a_plus || s.fbar != base + at.fbar ||
        s.pdd != base + at.pdd || s.q_offset != i)
      return false;
  }
  return static_cast<int>(pool_.size()) == at.block * static_cast<int>(slots_.size());
}

void RecursiveFormalism::BackwardPlanar() {
  if (planar_ == 3)
    BackwardPlanarOf<3>();
  else
    BackwardPlanarOf<2>();
}

bool RecursiveFormalism::FullRankAccelerationsPlanar(VectorRef qdd) {
  return planar_ == 3 ? FullRankAccelerationsPlanarOf<3>(qdd)
                      : FullRankAccelerationsPlanarOf<2>(qdd);
}

// H_i (D x D) of body i: rigid bodies from the compact state, point masses as stored.
template <int D>
void RecursiveFormalism::PlanarHOf(int i, double* h) const {
  if constexpr (D == 3) {
    PlanarH(state_.planar_arms.data() + 2 * i, h);
  } else {
    const double* stored = state_.H[i].data();
    for (int k = 0; k < D * D; ++k) h[k] = stored[k];
  }
}

// Mbar_i and fbar_i start from M_i and f_i (K_i = I) where they are first touched: a leaf
// copies them, the successor of largest index (the first in this pass) adds its (17a,b) terms
// to them. At N = 1e5 a separate pass over every body for the copies streamed 192 B a body
// more; the sums are the same, M_i + first term + next term ..., to the bit.
template <int D>
void RecursiveFormalism::BackwardPlanarOf() {
  constexpr PlanarLayout at(D);
  const double* J_all = state_.J.data();
  const double* k2_all = state_.k2.data();
  const double* f_all = state_.f.data();
  for (int i = dae_.num_bodies() - 1; i >= 0; --i) {
    const PlanarLinks& b = planar_links_[i];
    double* block = pool_.data() + at.block * i;
    if (b.last_child < 0) {
      const double* m = state_.M[i].data();
      for (int k = 0; k < D * D; ++k) block[k] = m[k];
      for (int k = 0; k < D; ++k) block[at.fbar + k] = f_all[D * i + k];
    }
    const double* J = J_all + D * i;
    double mbar[D * D];
    for (int k = 0; k < D * D; ++k) mbar[k] = block[k];
    const double a = ProjectedMass<D>(J, mbar);
    double a_plus;
    if (a <= 0.0) {  // LLT's test: not positive definite, the pseudo-inverse's rank decision
      const BodyMatrix j_block = state_.J[i];
      const double scale = dae_.mass_scale() * (1.0 + j_block.squaredNorm());
      rank_[i] = PseudoInverse(BodyMatrix::Constant(1, 1, a), scale, APlus(i));
      a_plus = block[at.a_plus];
    } else {  // Cholesky a = L L, then L L a_plus = 1 by two triangular solves (Eigen's)
      const double r = 1.0 / std::sqrt(a);
      a_plus = r * r;
      block[at.a_plus] = a_plus;
      rank_[i] = 1;
    }
    // I - ((J a_plus) J^T) Mbar, the projector of (17a,b).
    double u[D], outer[D * D], p2[D * D], proj[D * D];
    for (int k = 0; k < D; ++k) u[k] = J[k] * a_plus;
    for (int c = 0; c < D; ++c)
      for (int r = 0; r < D; ++r) outer[r + D * c] = u[r] * J[c];
    Product<D>(outer, mbar, p2);
    for (int c = 0; c < D; ++c)
      for (int r = 0; r < D; ++r) proj[r + D * c] = (r == c ? 1.0 : 0.0) - p2[r + D * c];
    if (b.parent < 0) continue;
    double H[D * D];
    PlanarHOf<D>(i, H);
    // (17a): Mbar_parent += H^T (Mbar proj) H.
    double reduced[D * D], left[D * D];
    Product<D>(mbar, proj, reduced);
    TransposeProduct<D>(H, reduced, left);
    const bool first = planar_links_[b.parent].last_child == i;
    double* parent_block = pool_.data() + at.block * b.parent;
    double* parent_mbar = parent_block;
    const double* mbar_so_far = first ? state_.M[b.parent].data() : parent_mbar;
    for (int c = 0; c < D; ++c)
      for (int r = 0; r < D; ++r)
        parent_mbar[r + D * c] = mbar_so_far[r + D * c] + RowCol<D>(left, r, H, c);
    // (17b): fbar_parent -= H^T (proj^T (fbar + Mbar k)).
    const double* fbar = block + at.fbar;
    const double* k2 = k2_all + D * i;
    double carried[D], w[D];
    for (int k = 0; k < D; ++k) carried[k] = fbar[k] + RowCol<D>(mbar, k, k2, 0);
    for (int k = 0; k < D; ++k) w[k] = ColCol<D>(proj, k, carried, 0);
    double* parent_fbar = parent_block + at.fbar;
    const double* fbar_so_far = first ? f_all + D * b.parent : parent_fbar;
    for (int k = 0; k < D; ++k) parent_fbar[k] = fbar_so_far[k] - ColCol<D>(H, k, w, 0);
  }
}

template <int D>
bool RecursiveFormalism::FullRankAccelerationsPlanarOf(VectorRef qdd) {
  constexpr PlanarLayout at(D);
  const double* J_all = state_.J.data();
  const double* k2_all = state_.k2.data();
  for (int j = 0; j < dae_.num_bodies(); ++j) {
    const PlanarLinks& b = planar_links_[j];
    const double* J = J_all + D * j;
    const double* k2 = k2_all + D * j;
    const double* mbar = pool_.data() + at.block * j;
    const double* fbar = mbar + at.fbar;
    const double* parent_pdd =
        b.parent >= 0 ? pool_.data() + at.block * b.parent + at.pdd : nullptr;
    double h_block[D * D];
    const double* H = nullptr;
    if (b.parent >= 0) {
      PlanarHOf<D>(j, h_block);
      H = h_block;
    }
    // e = J^T (Mbar (k + H p_parent'') + fbar), the right-hand side of (25a).
    double w[D], u[D];
    for (int k = 0; k < D; ++k) w[k] = H ? k2[k] + RowCol<D>(H, k, parent_pdd, 0) : k2[k];
    for (int k = 0; k < D; ++k) u[k] = RowCol<D>(mbar, k, w, 0) + fbar[k];
    const double e = Dot<D>(J, u);
    // (25a): q'' = -(J^T Mbar J)^-1 e by the 1 x 1 Cholesky factor (LLT's solves).
    const double a = ProjectedMass<D>(J, mbar);
    if (a <= 0.0) return false;
    const double l = std::sqrt(a);
    const double q = -((e / l) / l);
    qdd[j] = q;
    // (9): p_j'' = -J_j q_j'' - k_j - H_j p_parent''.
    double* pdd = pool_.data() + at.block * j + at.pdd;
    for (int k = 0; k < D; ++k) {
      pdd[k] = -J[k] * q;
      pdd[k] -= k2[k];
    }
    if (H)
      for (int k = 0; k < D; ++k) pdd[k] -= RowCol<D>(H, k, parent_pdd, 0);
  }
  return true;
}

}  // namespace mbb
