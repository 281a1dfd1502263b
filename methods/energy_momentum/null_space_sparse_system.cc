#include "methods/energy_momentum/null_space_sparse_system.h"

#include <cmath>
#include <limits>

#include "problems/core/constraint_factorization.h"

namespace mbb {
namespace {

// The lift as the dense form's (null_space_em.cc): Newton on Phi(t1, q1) = 0 to 1e-14
// relative and one correction past it, the matrix G1 G0^T refactored only where an iteration
// contracts by less than kLiftContraction (a chord iteration on the last factor otherwise).
constexpr int kLiftIterations = 20;
constexpr double kLiftContraction = 0.1;
constexpr double kLiftTolerance = 1e-14;

}  // namespace

std::unique_ptr<NullSpaceSparseSystem> NullSpaceSparseSystem::Make(const MechanicalDae& dae,
                                                                   const std::vector<int>& kept,
                                                                   ConstraintSolves choice) {
  if (kept.empty() || static_cast<int>(kept.size()) >= dae.num_coordinates()) return nullptr;
  if (choice == ConstraintSolves::kAuto) {
    if (dae.num_coordinates() < kAutoMinCoordinates) return nullptr;
    choice = ConstraintSolves::kSparse;
  }
  auto start = SparseConstraintSystem::Make(dae, nullptr, choice, kept);
  auto mid = SparseConstraintSystem::Make(dae, nullptr, choice, kept);
  auto end = SparseConstraintSystem::Make(dae, nullptr, choice, kept);
  if (!start || !mid || !end) return nullptr;
  return std::unique_ptr<NullSpaceSparseSystem>(
      new NullSpaceSparseSystem(dae, kept, std::move(start), std::move(mid), std::move(end)));
}

NullSpaceSparseSystem::NullSpaceSparseSystem(const MechanicalDae& dae, const std::vector<int>& kept,
                                             std::unique_ptr<SparseConstraintSystem> start,
                                             std::unique_ptr<SparseConstraintSystem> mid,
                                             std::unique_ptr<SparseConstraintSystem> end)
    : dae_(dae),
      kept_(kept),
      n_(dae.num_coordinates()),
      m_(static_cast<int>(kept.size())),
      start_(std::move(start)),
      mid_(std::move(mid)),
      end_(std::move(end)),
      seeds_(PseudoRandomSeeds(n_, n_ - m_)),
      tangent_basis_(n_, n_ - m_),
      null_space_(n_, n_ - m_),
      phi_all_(dae.num_constraints()),
      phi_(m_),
      vec_m_(m_),
      vec_n_(n_),
      vec_n2_(n_),
      scatter_(Vector::Zero(n_)) {
  // G1 G0^T has S's pattern (rows couple where they share a coordinate); its LU in S's
  // reverse Cuthill-McKee order, without pivoting: the matrix is S0 = G0 G0^T (positive
  // definite) up to O(|q1 - q0|).
  const std::vector<std::vector<int>>& neighbours = start_->schur_neighbours();
  lift_lu_.Analyze(neighbours, ReverseCuthillMcKee(neighbours));
  lift_row_start_.assign(1, 0);
  for (int r = 0; r < m_; ++r) {
    lift_rows_.push_back(r);
    lift_offsets_.push_back(lift_lu_.Offset(r, r));
    for (int s : neighbours[r]) {
      lift_rows_.push_back(s);
      lift_offsets_.push_back(lift_lu_.Offset(r, s));
    }
    lift_row_start_.push_back(static_cast<int>(lift_rows_.size()));
  }
}

bool NullSpaceSparseSystem::BeginStep(DaeWorkspace& ws, double t0, const Vector& q0,
                                      const Vector& v, double h, Vector& z, Vector& y) {
  if (!start_->Factor(ws, t0, q0) || !start_->NullSpaceBasis(seeds_, tangent_basis_)) return false;
  // h v = U U^T h v + G0^T S0^-1 G0 h v: the dense form's predictor, in this chart.
  z.noalias() = tangent_basis_.transpose() * v;
  z *= h;
  start_->MultiplyJacobian(v, vec_m_);
  y.resize(m_);  // a no-op after the first step
  start_->SolveMinimumNorm(vec_m_, vec_n_, y);
  y *= h;
  lift_lu_valid_ = false;  // a new chart
  return true;
}

bool NullSpaceSparseSystem::Lift(DaeWorkspace& ws, double t1, const Vector& q0, const Vector& z,
                                 Vector& y, Vector& dq, Vector& q1) {
  bool polished = false;
  double previous = std::numeric_limits<double>::infinity();
  for (int k = 0; k < kLiftIterations; ++k) {
    // The increment itself, not q1 - q0 (the dense lift says why).
    start_->MultiplyJacobianTranspose(y, dq);
    dq.noalias() += tangent_basis_ * z;
    q1 = q0 + dq;
    dae_.CalcPhi(ws, t1, q1, phi_all_);
    SelectRows(phi_all_, kept_, phi_);
    const double scale = 1.0 + q1.lpNorm<Eigen::Infinity>();
    const double residual = phi_.lpNorm<Eigen::Infinity>();
    max_lift_iterations_ = std::max(max_lift_iterations_, k);
    if (!std::isfinite(residual)) return false;
    if (residual <= kLiftTolerance * scale) {
      if (polished || residual <= 4.0 * std::numeric_limits<double>::epsilon() * scale) return true;
      polished = true;
    }
    if (polished || !lift_lu_valid_ || residual > kLiftContraction * previous) {
      if (!FactorLiftMatrix(ws, t1, q1)) return false;
    }
    previous = residual;
    lift_lu_.Solve(phi_);
    y -= phi_;
  }
  return false;
}

bool NullSpaceSparseSystem::FactorLiftMatrix(DaeWorkspace& ws, double t1, const Vector& q1) {
  end_->EvaluateJacobian(ws, t1, q1);
  lift_lu_.SetZero();
  for (int r = 0; r < m_; ++r) {
    // (G1 G0^T)(r, s) = G0_s . G1_r, with G1_r scattered.
    for (int slot = end_->row_begin(r); slot < end_->row_end(r); ++slot)
      scatter_[end_->column(slot)] = end_->value(slot);
    for (int e = lift_row_start_[r]; e < lift_row_start_[r + 1]; ++e) {
      const int row = lift_rows_[e];
      double sum = 0.0;
      for (int slot = start_->row_begin(row); slot < start_->row_end(row); ++slot)
        sum += start_->value(slot) * scatter_[start_->column(slot)];
      lift_lu_.AtOffset(lift_offsets_[e]) = sum;
    }
    for (int slot = end_->row_begin(r); slot < end_->row_end(r); ++slot)
      scatter_[end_->column(slot)] = 0.0;
  }
  lift_lu_valid_ = lift_lu_.Factor(SparseConstraintSystem::kPivotTolerance);
  return lift_lu_valid_;
}

bool NullSpaceSparseSystem::Midpoint(DaeWorkspace& ws, double t_mid, const Vector& q_mid,
                                     const Vector& r, Vector& mu) {
  if (!mid_->Factor(ws, t_mid, q_mid) || !mid_->NullSpaceBasis(seeds_, null_space_)) return false;
  mid_->MultiplyJacobian(r, vec_m_);
  mid_->SolveMinimumNorm(vec_m_, vec_n_, mu);
  return mu.allFinite();
}

bool NullSpaceSparseSystem::TangentMap(DaeWorkspace& ws, double t1, const Vector& q1,
                                       Matrix& dq_dz) {
  if (!FactorLiftMatrix(ws, t1, q1)) return false;  // the next Lift starts from it
  dq_dz = tangent_basis_;
  for (Eigen::Index j = 0; j < dq_dz.cols(); ++j) {
    end_->MultiplyJacobian(tangent_basis_.col(j), vec_m_);
    lift_lu_.Solve(vec_m_);
    start_->MultiplyJacobianTranspose(vec_m_, vec_n2_);
    dq_dz.col(j) -= vec_n2_;
  }
  return dq_dz.allFinite();
}

}  // namespace mbb
