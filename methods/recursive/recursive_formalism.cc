// The recursive formalism of paper 004 (recursive_formalism.h). Equation numbers are the
// paper's; K_i = I throughout (the joint-tree formulation writes every joint explicitly).
#include "methods/recursive/recursive_formalism.h"

namespace mbb {

RecursiveFormalism::RecursiveFormalism(const JointTreeDae& dae, double rank_tolerance,
                                       bool inverses, bool planar_kernels)
    : dae_(dae),
      scratch_(dae.MakeTreeStateScratch()),
      rank_tolerance_(rank_tolerance),
      inverses_(inverses) {
  const int nb = dae.num_bodies();
  slots_.resize(nb);
  int size = 0;
  auto take = [&size](int count) {
    const int at = size;
    size += count;
    return at;
  };
  for (int i = 0; i < nb; ++i) {
    const TreeBody& b = dae.bodies()[i];
    Slots& s = slots_[i];
    s.parent = b.parent;
    if (b.parent >= 0) slots_[b.parent].last_child = i;  // i grows: the last assignment wins
    s.q_offset = b.q_offset;
    s.d = b.d;
    s.n = b.n;
    s.dp = b.parent < 0 ? 0 : dae.bodies()[b.parent].d;  // H_i is d x d_parent (9)
    // What every evaluation reads first and together; the blocks of the forward recursion
    // (24) and the residual (25), (26) only where they are formed (not with `inverses`): a
    // planar rigid body then takes 16 doubles instead of 29, and the recursions stream
    // what they read and nothing else (at N = 1e5 the arrays are far beyond the caches).
    s.mbar = take(b.d * b.d);
    s.a_plus = take(b.n * b.n);
    s.fbar = take(b.d);
    s.pdd = take(b.d);
    if (!inverses_) {
      s.hbar = take(b.d * s.dp);
      s.null_projector = take(b.n * b.n);
      s.kbar = take(b.d);
    }
  }
  pool_.assign(size, 0.0);
  skipped_.assign(nb, 0);
  rank_.assign(nb, 0);
  const int d = planar_kernels && inverses_ ? PlanarDimension() : 0;
  planar_ = d != 0 && PlanarLayoutHolds(d) ? d : 0;
  // The rigid bodies' planar passes read H_i in the compact form (TreeState::planar_arms).
  state_ = planar_ == 3 ? dae.MakeCompactPlanarState() : dae.MakeState();
  if (planar_)
    for (const Slots& s : slots_) planar_links_.push_back({s.parent, s.last_child});
}

int RecursiveFormalism::PseudoInverse(const BodyMatrix& a, double scale, Block a_plus) {
  eigen_.compute(a);  // Remark 1 / (A1): A = X Lambda X^T
  const auto& lambda = eigen_.eigenvalues();
  const auto& x = eigen_.eigenvectors();
  const double threshold = rank_tolerance_ * (std::max(lambda.maxCoeff(), 0.0) + scale);
  a_plus.setZero();
  int rank = 0;
  for (int k = 0; k < lambda.size(); ++k) {
    if (!(lambda(k) > threshold)) continue;
    a_plus.noalias() += x.col(k) * (1.0 / lambda(k)) * x.col(k).transpose();  // (A1)
    ++rank;
  }
  return rank;
}

bool RecursiveFormalism::Inverse(const BodyMatrix& a, Block a_inv) {
  llt_.compute(a);
  if (llt_.info() != Eigen::Success) return false;
  a_inv = llt_.solve(BodyMatrix::Identity(a.rows(), a.cols()));
  return true;
}

int RecursiveFormalism::Rank(const BodyMatrix& a, double scale) {
  eigen_.compute(a, Eigen::EigenvaluesOnly);
  const auto& lambda = eigen_.eigenvalues();
  const double threshold = rank_tolerance_ * (std::max(lambda.maxCoeff(), 0.0) + scale);
  int rank = 0;
  for (int k = 0; k < lambda.size(); ++k)
    if (lambda(k) > threshold) ++rank;
  return rank;
}

void RecursiveFormalism::Backward(double t, ConstVectorRef q, ConstVectorRef v) {
  dae_.CalcTreeState(scratch_, t, q, v, state_);
  if (planar_) {
    BackwardPlanar();  // starts Mbar_i, fbar_i on its way (no pass of its own over them)
    return;
  }
  const int nb = dae_.num_bodies();
  for (int i = 0; i < nb; ++i) {
    Mbar(i) = state_.M[i];  // K_i^-T M_i K_i^-1 with K_i = I
    Fbar(i) = state_.f[i];
  }
  // From the leaves to the root: the successors of i come after i in `bodies`.
  for (int i = nb - 1; i >= 0; --i) {
    const Slots& b = slots_[i];
    // Copies of H_i, J_i (aligned, fixed capacity, on the stack): Eigen's small products
    // run faster on them than on the maps into the tree state.
    const BodyMatrix J = state_.J[i];
    const BodyMatrix H = state_.H[i];
    const BodyMatrix mbar = Mbar(i);
    const BodyMatrix A = J.transpose() * mbar * J;  // projected mass J^T Mbar J
    const double scale = dae_.mass_scale() * (1.0 + J.squaredNorm());
    if (!(inverses_ && Inverse(A, APlus(i))))
      rank_[i] = PseudoInverse(A, scale, APlus(i));
    else
      rank_[i] = b.n;
    const BodyMatrix a_plus = APlus(i);
    // I - J (J^T Mbar J)^+ J^T Mbar, the projector of (20a,b) and (17a,b).
    const BodyMatrix proj = BodyMatrix::Identity(b.d, b.d) - J * a_plus * J.transpose() * mbar;
    if (!inverses_) {  // what the forward recursion (24) and the residual (25), (26) read
      NullProjector(i) = BodyMatrix::Identity(b.n, b.n) - a_plus * A;  // (27)
      skipped_[i] = Rank(mbar, dae_.mass_scale()) < b.d;
      Hbar(i).noalias() = proj * H;                                              // (20a)
      Kbar(i) = proj * state_.k2[i] - J * (a_plus * (J.transpose() * Fbar(i)));  // (20b)
    }
    if (b.parent < 0) continue;
    // (17a): Mbar - Mbar J A^+ J^T Mbar = Mbar proj; (17b): (I - Mbar J A^+ J^T) = proj^T.
    const BodyMatrix reduced = mbar * proj;
    Mbar(b.parent).noalias() += H.transpose() * reduced * H;  // (17a)
    const BodyVector carried = Fbar(i) + mbar * state_.k2[i];
    Fbar(b.parent).noalias() -= H.transpose() * (proj.transpose() * carried);  // (17b)
  }
}

void RecursiveFormalism::EquationTerm(int j, BodyVector& e) const {
  const int i = slots_[j].parent;
  BodyVector w = state_.k2[j];
  if (i >= 0) w.noalias() += state_.H[j] * Pdd(i);
  e.noalias() = state_.J[j].transpose() * (Mbar(j) * w + Fbar(j));  // (25a), (26)
}

void RecursiveFormalism::SkippedPredecessorTerm(int j, BodyVector& e) const {
  const int i = slots_[j].parent;
  const int pi = slots_[i].parent;
  const auto H = state_.H[j];
  BodyVector w = H * Kbar(i) - state_.k2[j];
  if (pi >= 0) w.noalias() += H * (Hbar(i) * Pdd(pi));
  // (25b) moved to the left: - J^T Mbar (H Hbar_i p_pi'' + H kbar_i - k_j) + J^T fbar_j
  e.noalias() = state_.J[j].transpose() * (Fbar(j) - Mbar(j) * w);
}

void RecursiveFormalism::ForwardAcceleration(int j) {
  const int i = slots_[j].parent;
  if (i < 0) {
    Pdd(j) = -Kbar(j);  // (24a), p_0'' = 0
  } else if (!skipped_[i]) {
    Pdd(j) = -(Hbar(j) * Pdd(i)) - Kbar(j);  // (24a)
  } else {
    const int pi = slots_[i].parent;
    Pdd(j) = Hbar(j) * Kbar(i) - Kbar(j);  // (24b)
    if (pi >= 0) Pdd(j).noalias() += Hbar(j) * (Hbar(i) * Pdd(pi));
  }
}

bool RecursiveFormalism::FullRankAccelerations(VectorRef qdd) {
  if (planar_) return FullRankAccelerationsPlanar(qdd);
  BodyVector e;
  for (int j = 0; j < dae_.num_bodies(); ++j) {
    const Slots& b = slots_[j];
    EquationTerm(j, e);
    auto qj = qdd.segment(b.q_offset, b.n);
    // A second Cholesky factorisation rather than the inverse Backward formed: e / a and
    // e a^-1 differ in the last bit, and IDA's step sequence on the stiff small-mass
    // oscillator (m1 = 1e-6, rtol = 1e-6) amplifies that to 5e-4 in the nightly baselines.
    const BodyMatrix J = state_.J[j];
    const BodyMatrix A = J.transpose() * Mbar(j) * J;
    Eigen::LLT<BodyMatrix> llt(A);
    if (llt.info() != Eigen::Success) return false;
    qj = -llt.solve(e);  // (25a) with the inverse of J^T Mbar J
    // (9): p_j'' = -H_j p_i'' - J_j q_j'' - k_j
    auto pdd = Pdd(j);
    pdd.noalias() = -J * qj;
    pdd -= state_.k2[j];
    if (b.parent >= 0) pdd.noalias() -= state_.H[j] * Pdd(b.parent);
  }
  return true;
}

void RecursiveFormalism::Residual(ConstVectorRef qdd, VectorRef residual) {
  BodyVector e;
  for (int j = 0; j < dae_.num_bodies(); ++j) {
    const Slots& b = slots_[j];
    const auto J = state_.J[j];
    auto rj = residual.segment(b.q_offset, b.n);
    const auto qj = qdd.segment(b.q_offset, b.n);
    if (b.parent < 0 || !skipped_[b.parent]) {
      EquationTerm(j, e);
      rj.noalias() = J.transpose() * (Mbar(j) * (J * qj));  // (25a), (26)
      rj += e;
    } else {
      const Slots& a = slots_[b.parent];
      SkippedPredecessorTerm(j, e);
      rj.noalias() = J.transpose() * (Mbar(j) * (J * qj));  // (25b)
      rj.noalias() -=
          J.transpose() *
          (Mbar(j) * (state_.H[j] * (state_.J[b.parent] *
                                     (NullProjector(b.parent) * qdd.segment(a.q_offset, a.n)))));
      rj += e;
    }
    if (!skipped_[j]) ForwardAcceleration(j);
  }
}

void RecursiveFormalism::PseudoInverseAccelerations(VectorRef qdd) {
  BodyVector e;
  for (int j = 0; j < dae_.num_bodies(); ++j) {
    const Slots& b = slots_[j];
    auto qj = qdd.segment(b.q_offset, b.n);
    if (b.parent < 0 || !skipped_[b.parent]) {
      EquationTerm(j, e);
      qj.noalias() = -(APlus(j) * e);
    } else {
      // The minimum-norm q_i'' of the skipped predecessor has no null-space part
      // (null_projector q_i'' = 0), so (25b) reduces to A_j q_j'' = -e.
      SkippedPredecessorTerm(j, e);
      qj.noalias() = -(APlus(j) * e);
    }
    if (!skipped_[j]) ForwardAcceleration(j);
  }
}

}  // namespace mbb
