// The recursive formalism of paper 004 (recursive_formalism.h). Equation numbers are the
// paper's; K_i = I throughout (the joint-tree formulation writes every joint explicitly).
#include "methods/recursive/recursive_formalism.h"

namespace mbb {

RecursiveFormalism::RecursiveFormalism(const JointTreeDae& dae, double rank_tolerance)
    : dae_(dae),
      ws_(dae.MakeWorkspace()),
      rank_tolerance_(rank_tolerance),
      state_(dae.MakeState()) {
  const int nb = dae.num_bodies();
  mbar_.resize(nb);
  a_plus_.resize(nb);
  null_projector_.resize(nb);
  hbar_.resize(nb);
  proj_.resize(nb);
  fbar_.resize(nb);
  kbar_.resize(nb);
  pdd_.resize(nb);
  skipped_.assign(nb, 0);
  rank_.assign(nb, 0);
  for (int i = 0; i < nb; ++i) {
    const TreeBody& b = dae.bodies()[i];
    mbar_[i].setZero(b.d, b.d);
    a_plus_[i].setZero(b.n, b.n);
    null_projector_[i].setZero(b.n, b.n);
    hbar_[i].setZero(b.d, state_.H[i].cols());
    proj_[i].setZero(b.d, b.d);
    fbar_[i].setZero(b.d);
    kbar_[i].setZero(b.d);
    pdd_[i].setZero(b.d);
  }
  zero_.setZero(3);
}

int RecursiveFormalism::PseudoInverse(const BodyMatrix& a, double scale, BodyMatrix& a_plus) {
  eigen_.compute(a);  // Remark 1 / (A1): A = X Lambda X^T
  const auto& lambda = eigen_.eigenvalues();
  const auto& x = eigen_.eigenvectors();
  const double threshold = rank_tolerance_ * (std::max(lambda.maxCoeff(), 0.0) + scale);
  a_plus.setZero(a.rows(), a.cols());
  int rank = 0;
  for (int k = 0; k < lambda.size(); ++k) {
    if (!(lambda(k) > threshold)) continue;
    a_plus.noalias() += x.col(k) * (1.0 / lambda(k)) * x.col(k).transpose();  // (A1)
    ++rank;
  }
  return rank;
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
  dae_.CalcTreeState(*ws_, t, q, v, state_);
  const auto& bodies = dae_.bodies();
  const int nb = dae_.num_bodies();
  for (int i = 0; i < nb; ++i) {
    mbar_[i] = state_.M[i];  // K_i^-T M_i K_i^-1 with K_i = I
    fbar_[i] = state_.f[i];
  }
  // From the leaves to the root: the successors of i come after i in `bodies`.
  for (int i = nb - 1; i >= 0; --i) {
    const TreeBody& b = bodies[i];
    const BodyMatrix& J = state_.J[i];
    const BodyMatrix& H = state_.H[i];
    const BodyMatrix A = J.transpose() * mbar_[i] * J;  // projected mass J^T Mbar J
    const double scale = dae_.mass_scale() * (1.0 + J.squaredNorm());
    rank_[i] = PseudoInverse(A, scale, a_plus_[i]);
    null_projector_[i] = BodyMatrix::Identity(b.n, b.n) - a_plus_[i] * A;  // (27)
    skipped_[i] = Rank(mbar_[i], dae_.mass_scale()) < b.d;
    // I - J (J^T Mbar J)^+ J^T Mbar, the projector of (20a,b) and (17a,b).
    proj_[i] = BodyMatrix::Identity(b.d, b.d) - J * a_plus_[i] * J.transpose() * mbar_[i];
    hbar_[i].noalias() = proj_[i] * H;                                                   // (20a)
    kbar_[i] = proj_[i] * state_.k2[i] - J * (a_plus_[i] * (J.transpose() * fbar_[i]));  // (20b)
    if (b.parent < 0) continue;
    // (17a): Mbar - Mbar J A^+ J^T Mbar = Mbar proj; (17b): (I - Mbar J A^+ J^T) = proj^T.
    const BodyMatrix reduced = mbar_[i] * proj_[i];
    mbar_[b.parent].noalias() += H.transpose() * reduced * H;  // (17a)
    const BodyVector carried = fbar_[i] + mbar_[i] * state_.k2[i];
    fbar_[b.parent].noalias() -= H.transpose() * (proj_[i].transpose() * carried);  // (17b)
  }
}

void RecursiveFormalism::EquationTerm(int j, BodyVector& e) const {
  const int i = dae_.bodies()[j].parent;
  BodyVector w = state_.k2[j];
  if (i >= 0) w.noalias() += state_.H[j] * pdd_[i];
  e.noalias() = state_.J[j].transpose() * (mbar_[j] * w + fbar_[j]);  // (25a), (26)
}

void RecursiveFormalism::SkippedPredecessorTerm(int j, BodyVector& e) const {
  const int i = dae_.bodies()[j].parent;
  const int pi = dae_.bodies()[i].parent;
  const BodyMatrix& H = state_.H[j];
  BodyVector w = H * kbar_[i] - state_.k2[j];
  if (pi >= 0) w.noalias() += H * (hbar_[i] * pdd_[pi]);
  // (25b) moved to the left: - J^T Mbar (H Hbar_i p_pi'' + H kbar_i - k_j) + J^T fbar_j
  e.noalias() = state_.J[j].transpose() * (fbar_[j] - mbar_[j] * w);
}

void RecursiveFormalism::ForwardAcceleration(int j) {
  const int i = dae_.bodies()[j].parent;
  if (i < 0) {
    pdd_[j] = -kbar_[j];  // (24a), p_0'' = 0
  } else if (!skipped_[i]) {
    pdd_[j] = -(hbar_[j] * pdd_[i]) - kbar_[j];  // (24a)
  } else {
    const int pi = dae_.bodies()[i].parent;
    pdd_[j] = hbar_[j] * kbar_[i] - kbar_[j];  // (24b)
    if (pi >= 0) pdd_[j].noalias() += hbar_[j] * (hbar_[i] * pdd_[pi]);
  }
}

bool RecursiveFormalism::FullRankAccelerations(VectorRef qdd) {
  const auto& bodies = dae_.bodies();
  BodyVector e;
  for (int j = 0; j < dae_.num_bodies(); ++j) {
    const TreeBody& b = bodies[j];
    EquationTerm(j, e);
    const BodyMatrix A = state_.J[j].transpose() * mbar_[j] * state_.J[j];
    Eigen::LLT<BodyMatrix> llt(A);
    if (llt.info() != Eigen::Success) return false;
    auto qj = qdd.segment(b.q_offset, b.n);
    qj = -llt.solve(e);  // (25a) with the inverse of J^T Mbar J
    // (9): p_j'' = -H_j p_i'' - J_j q_j'' - k_j
    pdd_[j].noalias() = -state_.J[j] * qj;
    pdd_[j] -= state_.k2[j];
    if (b.parent >= 0) pdd_[j].noalias() -= state_.H[j] * pdd_[b.parent];
  }
  return true;
}

void RecursiveFormalism::Residual(ConstVectorRef qdd, VectorRef residual) {
  const auto& bodies = dae_.bodies();
  BodyVector e;
  for (int j = 0; j < dae_.num_bodies(); ++j) {
    const TreeBody& b = bodies[j];
    const BodyMatrix& J = state_.J[j];
    auto rj = residual.segment(b.q_offset, b.n);
    const auto qj = qdd.segment(b.q_offset, b.n);
    if (b.parent < 0 || !skipped_[b.parent]) {
      EquationTerm(j, e);
      rj.noalias() = J.transpose() * (mbar_[j] * (J * qj));  // (25a), (26)
      rj += e;
    } else {
      const TreeBody& a = bodies[b.parent];
      SkippedPredecessorTerm(j, e);
      rj.noalias() = J.transpose() * (mbar_[j] * (J * qj));  // (25b)
      rj.noalias() -=
          J.transpose() *
          (mbar_[j] * (state_.H[j] * (state_.J[b.parent] *
                                      (null_projector_[b.parent] * qdd.segment(a.q_offset, a.n)))));
      rj += e;
    }
    if (!skipped_[j]) ForwardAcceleration(j);
  }
}

void RecursiveFormalism::PseudoInverseAccelerations(VectorRef qdd) {
  const auto& bodies = dae_.bodies();
  BodyVector e;
  for (int j = 0; j < dae_.num_bodies(); ++j) {
    const TreeBody& b = bodies[j];
    auto qj = qdd.segment(b.q_offset, b.n);
    if (b.parent < 0 || !skipped_[b.parent]) {
      EquationTerm(j, e);
      qj.noalias() = -(a_plus_[j] * e);
    } else {
      // The minimum-norm q_i'' of the skipped predecessor has no null-space part
      // (null_projector q_i'' = 0), so (25b) reduces to A_j q_j'' = -e.
      SkippedPredecessorTerm(j, e);
      qj.noalias() = -(a_plus_[j] * e);
    }
    if (!skipped_[j]) ForwardAcceleration(j);
  }
}

}  // namespace mbb
