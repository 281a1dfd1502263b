#include "methods/common/sparse_kkt_system.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace mbb {

std::unique_ptr<SparseKktSystem> SparseKktSystem::Make(const MechanicalDae& dae,
                                                       ConstraintSolves choice,
                                                       const std::vector<int>& kept) {
  if (choice == ConstraintSolves::kDense) return nullptr;
  if (choice == ConstraintSolves::kAuto && dae.num_coordinates() < kAutoMinCoordinates)
    return nullptr;
  const MechanicalDae::Capabilities capabilities = dae.capabilities();
  if (!capabilities.tangent_entries) return nullptr;
  if (dae.num_constraints() > 0 && !capabilities.phi_q_entries) return nullptr;
  static const JacobianCompression kNoConstraints;
  std::vector<int> rows = kept;
  if (rows.empty()) {
    rows.resize(dae.num_constraints());
    std::iota(rows.begin(), rows.end(), 0);
  }
  return std::unique_ptr<SparseKktSystem>(new SparseKktSystem(
      dae, dae.tangent_pattern(),
      dae.num_constraints() > 0 ? dae.constraint_jacobian_pattern() : kNoConstraints, rows));
}

SparseKktSystem::SparseKktSystem(const MechanicalDae& dae, const TangentPattern& pattern,
                                 const JacobianCompression& phi_q, const std::vector<int>& kept)
    : n_(dae.num_coordinates()),
      m_(static_cast<int>(kept.size())),
      k_entries_(pattern.entries()),
      k_(k_entries_.size(), 0.0),
      full_entries_(phi_q.entries()),
      full_values_(full_entries_.size(), 0.0),
      kept_row_(dae.num_constraints(), -1),
      solution_(n_ + m_),
      residual_(n_ + m_),
      row_sums_(n_ + m_) {
  for (int i = 0; i < m_; ++i) kept_row_[kept[i]] = i;
  for (size_t e = 0; e < full_entries_.size(); ++e) {
    const int row = kept_row_[full_entries_[e].row];
    if (row < 0) continue;
    j_entries_.push_back({row, full_entries_[e].col});
    kept_entry_.push_back(static_cast<int>(e));
  }
  j_.assign(j_entries_.size(), 0.0);
  // The graph of (1), and that of the coordinates alone (K plus the coordinates sharing a
  // constraint row) for their ordering.
  std::vector<std::vector<int>> neighbours(n_ + m_), coordinate_graph(n_);
  std::vector<std::vector<int>> row_columns(m_);
  for (const auto& e : k_entries_)
    if (e.row != e.col) {
      neighbours[e.row].push_back(e.col);
      neighbours[e.col].push_back(e.row);
      coordinate_graph[e.row].push_back(e.col);
      coordinate_graph[e.col].push_back(e.row);
    }
  for (const auto& e : j_entries_) {
    neighbours[n_ + e.row].push_back(e.col);
    neighbours[e.col].push_back(n_ + e.row);
    row_columns[e.row].push_back(e.col);
  }
  for (const auto& columns : row_columns)
    for (int a : columns)
      for (int b : columns)
        if (a != b) coordinate_graph[a].push_back(b);
  for (auto& list : coordinate_graph) {
    std::sort(list.begin(), list.end());
    list.erase(std::unique(list.begin(), list.end()), list.end());
  }
  // Each constraint right after the last of its coordinates (header).
  const std::vector<int> coordinates = ReverseCuthillMcKee(coordinate_graph);
  std::vector<int> position(n_);
  for (int k = 0; k < n_; ++k) position[coordinates[k]] = k;
  std::vector<std::vector<int>> after(n_ + 1);
  for (int r = 0; r < m_; ++r) {
    int last = -1;
    for (int c : row_columns[r]) last = std::max(last, position[c]);
    after[last < 0 ? n_ : last].push_back(n_ + r);  // an empty row last (and refused there)
  }
  std::vector<int> order;
  order.reserve(n_ + m_);
  for (int k = 0; k <= n_; ++k) {
    if (k < n_) order.push_back(coordinates[k]);
    order.insert(order.end(), after[k].begin(), after[k].end());
  }
  lu_.Analyze(neighbours, order);
  for (int i = 0; i < n_; ++i) diagonal_offset_.push_back(lu_.Offset(i, i));
  for (const auto& e : k_entries_) k_offset_.push_back(lu_.Offset(e.row, e.col));
  for (const auto& e : j_entries_) {
    j_offset_.push_back(lu_.Offset(n_ + e.row, e.col));
    jt_offset_.push_back(lu_.Offset(e.col, n_ + e.row));
  }
}

bool SparseKktSystem::Factor() {
  for (size_t k = 0; k < j_.size(); ++k) j_[k] = full_values_[kept_entry_[k]];
  row_sums_.setZero();
  double largest_diagonal = 0.0;
  for (size_t k = 0; k < k_.size(); ++k) {
    row_sums_[k_entries_[k].row] += std::abs(k_[k]);
    if (k_entries_[k].row == k_entries_[k].col)
      largest_diagonal = std::max(largest_diagonal, std::abs(k_[k]));
  }
  for (size_t k = 0; k < j_.size(); ++k) {
    row_sums_[n_ + j_entries_[k].row] += std::abs(j_[k]);
    row_sums_[j_entries_[k].col] += std::abs(j_[k]);
  }
  matrix_norm_ = row_sums_.size() > 0 ? row_sums_.maxCoeff() : 0.0;
  largest_diagonal_ = largest_diagonal;
  // Unshifted first; a model that needed the shift once keeps it (its structure does not
  // change from one pass to the next).
  if (!shifted_ && FactorWithShift(0.0)) return true;
  shifted_ = true;
  return FactorWithShift(kShift * largest_diagonal_);
}

bool SparseKktSystem::FactorWithShift(double shift) {
  shift_ = shift;
  lu_.SetZero();
  for (size_t k = 0; k < k_.size(); ++k) lu_.AtOffset(k_offset_[k]) = k_[k];
  for (size_t k = 0; k < j_.size(); ++k) {
    lu_.AtOffset(j_offset_[k]) = j_[k];
    lu_.AtOffset(jt_offset_[k]) = j_[k];
  }
  if (shift != 0.0)
    for (int i = 0; i < n_; ++i) lu_.AtOffset(diagonal_offset_[i]) += shift;
  return lu_.Factor(kPivotTolerance);
}

void SparseKktSystem::Multiply(ConstVectorRef x, VectorRef out) const {
  out.setZero();
  auto head = out.head(n_);
  auto tail = out.tail(m_);
  AddEntriesProduct(k_entries_, k_.data(), x.head(n_), head);
  AddEntriesTransposeProduct(j_entries_, j_.data(), x.tail(m_), head);
  AddEntriesProduct(j_entries_, j_.data(), x.head(n_), tail);
}

double SparseKktSystem::BackwardError(ConstVectorRef b) {
  Multiply(solution_, residual_);
  residual_ = b - residual_;
  const double scale =
      matrix_norm_ * solution_.lpNorm<Eigen::Infinity>() + b.lpNorm<Eigen::Infinity>();
  return residual_.lpNorm<Eigen::Infinity>() / scale;
}

bool SparseKktSystem::Solve(VectorRef b) {
  if (SolveWithCurrentFactor(b)) return true;
  // Elimination without pivoting can grow without a small pivot (Euler parameters again:
  // the normalisation direction's pivot is only the O(h^2) stiffness); the shifted factor
  // then, once for this model.
  if (shift_ != 0.0) return false;
  shifted_ = true;
  return FactorWithShift(kShift * largest_diagonal_) && SolveWithCurrentFactor(b);
}

bool SparseKktSystem::SolveWithCurrentFactor(VectorRef b) {
  solution_ = b;
  lu_.Solve(solution_);
  double error = BackwardError(b);
  // Iterative refinement against the unshifted matrix: x += F^-1 (b - A x), F the factored
  // one. Unshifted, one step where the first solution is not at rounding already; shifted,
  // each step reduces the error by about shift |A^-1|, so a few.
  const int steps = shift_ == 0.0 ? 1 : kShiftedRefinements;
  for (int step = 0; step < steps && !(error <= kRefineAbove); ++step) {
    lu_.Solve(residual_);
    solution_ += residual_;
    error = BackwardError(b);
  }
  if (!(error <= kBackwardErrorTolerance)) return false;
  b = solution_;
  return true;
}

}  // namespace mbb
