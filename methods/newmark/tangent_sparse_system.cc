#include "methods/newmark/tangent_sparse_system.h"

#include <cmath>
#include <limits>

namespace mbb {

std::unique_ptr<TangentSparseSystem> TangentSparseSystem::Make(const MechanicalDae& dae,
                                                               DaeWorkspace& ws, double t,
                                                               ConstVectorRef q,
                                                               ConstraintSolves choice) {
  if (!dae.capabilities().tangent_entries || dae.num_constraints() >= dae.num_coordinates())
    return nullptr;
  auto constraints = SparseConstraintSystem::Make(dae, nullptr, choice);
  if (!constraints || !constraints->Factor(ws, t, q)) return nullptr;  // rank < m: dense
  return std::unique_ptr<TangentSparseSystem>(new TangentSparseSystem(dae, std::move(constraints)));
}

TangentSparseSystem::TangentSparseSystem(const MechanicalDae& dae,
                                         std::unique_ptr<SparseConstraintSystem> s)
    : dae_(dae),
      n_(dae.num_coordinates()),
      m_(dae.num_constraints()),
      constraints_(std::move(s)),
      tangent_entries_(dae.tangent_pattern().entries()),
      phi_q_entries_(dae.constraint_jacobian_pattern().entries()),
      mass_(tangent_entries_.size()),
      stiffness_(tangent_entries_.size()),
      damping_(tangent_entries_.size()),
      h_dot_(phi_q_entries_.size()),
      h_ddot_(phi_q_entries_.size()),
      scratch_(phi_q_entries_.size()),
      seeds_(PseudoRandomSeeds(n_, n_ - m_)),
      null_space_(n_, n_ - m_),
      vec_m_(m_),
      vec_m2_(m_),
      vec_n_(n_),
      projection_(n_),
      q_perturbed_(n_),
      zero_n_(Vector::Zero(n_)) {}

bool TangentSparseSystem::Factor(DaeWorkspace& ws, double t, ConstVectorRef q) {
  return constraints_->Factor(ws, t, q) && constraints_->NullSpaceBasis(seeds_, null_space_);
}

void TangentSparseSystem::SolveMinimumNorm(ConstVectorRef b, VectorRef x) {
  constraints_->SolveMinimumNorm(b, x, vec_m2_);
}

void TangentSparseSystem::SolveMultiplier(ConstVectorRef c, VectorRef lambda) {
  MultiplyH(c, vec_m_);
  constraints_->SolveMinimumNorm(vec_m_, projection_, lambda);
}

void TangentSparseSystem::EvaluateMass(DaeWorkspace& ws, ConstVectorRef q) {
  if (mass_evaluated_ && dae_.has_constant_mass_matrix()) return;
  dae_.CalcMassMatrixEntries(ws, q, mass_.data());
  mass_evaluated_ = true;
}

void TangentSparseSystem::EvaluateDerivatives(DaeWorkspace& ws, double t, ConstVectorRef x,
                                              ConstVectorRef v, ConstVectorRef a,
                                              ConstVectorRef lambda) {
  dae_.CalcTangentStiffnessEntries(ws, t, x, v, a, lambda, stiffness_.data(), damping_.data());
  // H' = Phi_qq v + Phi_qt (eq. 35); H'' = Phi_qq a - dgamma/dq (eq. 41).
  dae_.CalcPhiQDotEntries(ws, t, x, v, h_dot_.data());
  dae_.CalcPhiQDotEntries(ws, t, x, a, h_ddot_.data());
  dae_.CalcPhiQDotEntries(ws, t, x, zero_n_, scratch_.data());  // Phi_qt
  for (size_t e = 0; e < h_ddot_.size(); ++e) h_ddot_[e] -= scratch_[e];
  if (dae_.capabilities().gamma_jacobian_entries)
    dae_.CalcGammaJacobianEntries(ws, t, x, v, scratch_.data());
  else
    GammaJacobianByDifferences(ws, t, x, v);
  for (size_t e = 0; e < h_ddot_.size(); ++e) h_ddot_[e] -= scratch_[e];
}

// dgamma/dq on Phi_q's pattern into scratch_, by central differences, all columns of a
// group perturbed together (no row sees two of them): tangent_pass.cc's dense form.
void TangentSparseSystem::GammaJacobianByDifferences(DaeWorkspace& ws, double t, ConstVectorRef x,
                                                     ConstVectorRef v) {
  const JacobianCompression& pattern = dae_.constraint_jacobian_pattern();
  auto step_of = [&](int j) {
    return std::cbrt(std::numeric_limits<double>::epsilon()) * (1.0 + std::abs(x[j]));
  };
  size_t e = 0;
  for (int g = 0; g < pattern.num_groups(); ++g) {
    for (int sign : {1, -1}) {
      q_perturbed_ = x;
      for (int j = 0; j < n_; ++j)
        if (pattern.group_of_column(j) == g) q_perturbed_[j] += sign * step_of(j);
      dae_.CalcGamma(ws, t, q_perturbed_, v, sign > 0 ? vec_m_ : vec_m2_);
    }
    for (auto entry = pattern.begin(g); entry != pattern.end(g); ++entry, ++e)
      scratch_[e] = (vec_m_[entry->row] - vec_m2_[entry->row]) / (2.0 * step_of(entry->col));
  }
}

const std::vector<JacobianCompression::Entry>& TangentSparseSystem::EntriesOf(Term term) const {
  return term == Term::kHDot || term == Term::kHDDot ? phi_q_entries_ : tangent_entries_;
}

const double* TangentSparseSystem::ValuesOf(Term term) const {
  switch (term) {
    case Term::kMass:
      return mass_.data();
    case Term::kStiffness:
      return stiffness_.data();
    case Term::kDamping:
      return damping_.data();
    case Term::kHDot:
      return h_dot_.data();
    case Term::kHDDot:
      return h_ddot_.data();
  }
  return nullptr;
}

}  // namespace mbb
