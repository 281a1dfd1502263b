#include "problems/core/sparse_constraint_system.h"

#include <cmath>
#include <numeric>

#include "problems/core/constraint_factorization.h"
#include "problems/core/parameters.h"

namespace mbb {

ConstraintSolves ParseConstraintSolves(const std::string& value) {
  if (value == "auto") return ConstraintSolves::kAuto;
  if (value == "dense") return ConstraintSolves::kDense;
  if (value == "sparse") return ConstraintSolves::kSparse;
  throw InputError("parameter 'constraint_solves' = '" + value +
                   "': must be auto, dense or sparse");
}

int ConstraintRankAt(const MechanicalDae& dae, DaeWorkspace& ws, double t, ConstVectorRef q) {
  const int m = dae.num_constraints(), n = dae.num_coordinates();
  if (m == 0) return 0;
  auto sparse = SparseConstraintSystem::Make(dae, nullptr, ConstraintSolves::kAuto);
  if (sparse && sparse->Factor(ws, t, q)) return m;
  Matrix phi_q(m, n);
  dae.CalcPhiQ(ws, t, q, phi_q);
  ConstraintFactorization factorization(m, n);
  factorization.Compute(phi_q);
  return factorization.rank();
}

std::unique_ptr<SparseConstraintSystem> SparseConstraintSystem::Make(const MechanicalDae& dae,
                                                                     const Matrix* metric,
                                                                     ConstraintSolves choice,
                                                                     const std::vector<int>& rows) {
  if (choice == ConstraintSolves::kDense || dae.num_constraints() == 0 ||
      !dae.capabilities().phi_q_entries)
    return nullptr;
  if (choice == ConstraintSolves::kAuto && dae.num_coordinates() < kSparseMinCoordinates)
    return nullptr;
  std::unique_ptr<SparseConstraintSystem> system(
      new SparseConstraintSystem(dae, dae.constraint_jacobian_pattern(), rows));
  if (!system->SetBlocks(metric)) return nullptr;
  system->SetSchurPattern();
  return system;
}

SparseConstraintSystem::SparseConstraintSystem(const MechanicalDae& dae,
                                               const JacobianCompression& pattern,
                                               const std::vector<int>& rows)
    : dae_(dae),
      n_(dae.num_coordinates()),
      m_(rows.empty() ? dae.num_constraints() : static_cast<int>(rows.size())),
      scatter_(Vector::Zero(n_)),
      transposed_(n_),
      correction_(n_),
      residual_(m_),
      mu_correction_(m_),
      basis_rhs_(m_),
      basis_projection_(n_),
      basis_mu_(m_) {
  // Row of J of each row of Phi_q (-1: not taken).
  std::vector<int> row_of(dae.num_constraints(), -1);
  for (int r = 0; r < dae.num_constraints(); ++r) row_of[r] = rows.empty() ? r : -1;
  for (size_t i = 0; i < rows.size(); ++i) row_of[rows[i]] = static_cast<int>(i);
  // Compressed rows from the pattern's entries (listed group by group).
  row_start_.assign(m_ + 1, 0);
  for (int g = 0; g < pattern.num_groups(); ++g)
    for (auto e = pattern.begin(g); e != pattern.end(g); ++e)
      if (row_of[e->row] >= 0) ++row_start_[row_of[e->row] + 1];
  std::partial_sum(row_start_.begin(), row_start_.end(), row_start_.begin());
  std::vector<int> next(row_start_.begin(), row_start_.end() - 1);
  column_.assign(row_start_[m_], 0);
  entry_slot_.assign(pattern.num_entries(), -1);
  int k = 0;
  for (int g = 0; g < pattern.num_groups(); ++g)
    for (auto e = pattern.begin(g); e != pattern.end(g); ++e, ++k) {
      if (row_of[e->row] < 0) continue;
      const int slot = next[row_of[e->row]]++;
      column_[slot] = e->col;
      entry_slot_[k] = slot;
    }
  value_.assign(row_start_[m_], 0.0);
  entries_.assign(pattern.num_entries(), 0.0);
}

// The blocks of G are the connected components of its non-zeros; each is inverted once.
bool SparseConstraintSystem::SetBlocks(const Matrix* metric) {
  std::vector<int> root(n_);
  std::iota(root.begin(), root.end(), 0);
  auto find = [&root](int i) {
    while (root[i] != i) i = root[i] = root[root[i]];
    return i;
  };
  if (metric != nullptr) {
    for (int j = 0; j < n_; ++j)
      for (int i = 0; i < n_; ++i)
        if (i != j && (*metric)(i, j) != 0.0) root[find(i)] = find(j);
  }
  block_of_.assign(n_, -1);
  local_index_.assign(n_, 0);
  block_start_.assign(1, 0);
  block_coordinates_.clear();
  std::vector<std::vector<int>> members;
  for (int i = 0; i < n_; ++i) {
    const int r = find(i);
    if (block_of_[r] < 0) {
      block_of_[r] = static_cast<int>(members.size());
      members.emplace_back();
    }
    block_of_[i] = block_of_[r];
  }
  for (int i = 0; i < n_; ++i) members[block_of_[i]].push_back(i);
  inverse_start_.assign(1, 0);
  inverse_.clear();
  for (const std::vector<int>& block : members) {
    const int size = static_cast<int>(block.size());
    if (size > kMaxBlock) return false;
    Matrix g(size, size);
    for (int a = 0; a < size; ++a)
      for (int b = 0; b < size; ++b)
        g(a, b) = metric != nullptr ? (*metric)(block[a], block[b]) : (a == b ? 1.0 : 0.0);
    Eigen::LLT<Matrix> llt(g);
    if (llt.info() != Eigen::Success) return false;  // a massless coordinate: dense route
    const Matrix inverse = llt.solve(Matrix::Identity(size, size));
    if (!inverse.allFinite()) return false;
    for (int a = 0; a < size; ++a) {
      local_index_[block[a]] = a;
      block_coordinates_.push_back(block[a]);
    }
    block_start_.push_back(static_cast<int>(block_coordinates_.size()));
    inverse_.insert(inverse_.end(), inverse.data(), inverse.data() + inverse.size());
    inverse_start_.push_back(static_cast<long>(inverse_.size()));
  }
  return true;
}

// Rows r and s of S couple if some block of G holds a coordinate of each.
void SparseConstraintSystem::SetSchurPattern() {
  const int blocks = static_cast<int>(block_start_.size()) - 1;
  std::vector<std::vector<int>> rows_of_block(blocks);
  for (int r = 0; r < m_; ++r)
    for (int slot = row_start_[r]; slot < row_start_[r + 1]; ++slot) {
      std::vector<int>& rows = rows_of_block[block_of_[column_[slot]]];
      if (rows.empty() || rows.back() != r) rows.push_back(r);
    }
  std::vector<std::vector<int>> neighbours(m_);
  std::vector<int> seen(m_, -1);
  for (int r = 0; r < m_; ++r) {
    seen[r] = r;
    for (int slot = row_start_[r]; slot < row_start_[r + 1]; ++slot)
      for (int s : rows_of_block[block_of_[column_[slot]]])
        if (seen[s] != r) {
          seen[s] = r;
          neighbours[r].push_back(s);
        }
  }
  cholesky_.Analyze(neighbours);
  neighbours_ = neighbours;
  schur_start_.assign(1, 0);
  schur_row_.clear();
  schur_offset_.clear();
  for (int r = 0; r < m_; ++r) {
    schur_row_.push_back(r);
    schur_offset_.push_back(cholesky_.Offset(r, r));
    for (int s : neighbours[r])
      if (s < r) {
        schur_row_.push_back(s);
        schur_offset_.push_back(cholesky_.Offset(r, s));
      }
    schur_start_.push_back(static_cast<int>(schur_row_.size()));
  }
}

void SparseConstraintSystem::EvaluateJacobian(DaeWorkspace& ws, double t, ConstVectorRef q) {
  dae_.CalcPhiQEntries(ws, t, q, entries_.data());
  for (size_t k = 0; k < entries_.size(); ++k)
    if (entry_slot_[k] >= 0) value_[entry_slot_[k]] = entries_[k];
}

bool SparseConstraintSystem::Factor(DaeWorkspace& ws, double t, ConstVectorRef q) {
  EvaluateJacobian(ws, t, q);
  cholesky_.SetZero();
  for (int r = 0; r < m_; ++r) {
    // scatter_ = G^-1 J_r^T (non-zero on the blocks row r touches), then S(r, s) = J_s . it.
    for (int slot = row_start_[r]; slot < row_start_[r + 1]; ++slot) {
      const int j = column_[slot], b = block_of_[j];
      const int size = block_start_[b + 1] - block_start_[b];
      const double* inverse_column = inverse_.data() + inverse_start_[b] + size * local_index_[j];
      for (int a = 0; a < size; ++a)
        scatter_[block_coordinates_[block_start_[b] + a]] += inverse_column[a] * value_[slot];
    }
    for (int e = schur_start_[r]; e < schur_start_[r + 1]; ++e) {
      const int s = schur_row_[e];
      double sum = 0.0;
      for (int slot = row_start_[s]; slot < row_start_[s + 1]; ++slot)
        sum += value_[slot] * scatter_[column_[slot]];
      cholesky_.AtOffset(schur_offset_[e]) = sum;
    }
    for (int slot = row_start_[r]; slot < row_start_[r + 1]; ++slot) {
      const int b = block_of_[column_[slot]];
      for (int a = block_start_[b]; a < block_start_[b + 1]; ++a)
        scatter_[block_coordinates_[a]] = 0.0;
    }
  }
  return cholesky_.Factor(kPivotTolerance);
}

void SparseConstraintSystem::MultiplyJacobian(ConstVectorRef x, VectorRef out) const {
  for (int r = 0; r < m_; ++r) {
    double sum = 0.0;
    for (int slot = row_start_[r]; slot < row_start_[r + 1]; ++slot)
      sum += value_[slot] * x[column_[slot]];
    out[r] = sum;
  }
}

void SparseConstraintSystem::MultiplyJacobianTranspose(ConstVectorRef y, VectorRef out) const {
  out.setZero();
  for (int r = 0; r < m_; ++r)
    for (int slot = row_start_[r]; slot < row_start_[r + 1]; ++slot)
      out[column_[slot]] += value_[slot] * y[r];
}

void SparseConstraintSystem::ApplyInverseMetric(ConstVectorRef y, VectorRef out) const {
  const int blocks = static_cast<int>(block_start_.size()) - 1;
  for (int b = 0; b < blocks; ++b) {
    const int begin = block_start_[b], size = block_start_[b + 1] - begin;
    const double* inverse = inverse_.data() + inverse_start_[b];
    for (int a = 0; a < size; ++a) {
      double sum = 0.0;
      for (int c = 0; c < size; ++c)
        sum += inverse[a + size * c] * y[block_coordinates_[begin + c]];
      out[block_coordinates_[begin + a]] = sum;
    }
  }
}

void SparseConstraintSystem::AddWeightedTranspose(ConstVectorRef mu, VectorRef x) {
  transposed_.setZero();
  for (int r = 0; r < m_; ++r)
    for (int slot = row_start_[r]; slot < row_start_[r + 1]; ++slot)
      transposed_[column_[slot]] += value_[slot] * mu[r];
  ApplyInverseMetric(transposed_, correction_);
  x += correction_;
}

void SparseConstraintSystem::SolveMinimumNorm(ConstVectorRef r, VectorRef x, VectorRef mu) {
  mu = r;
  cholesky_.Solve(mu);
  x.setZero();
  AddWeightedTranspose(mu, x);
  // One refinement step on J x = r (corrected semi-normal equations, header).
  MultiplyJacobian(x, residual_);
  mu_correction_ = r - residual_;
  cholesky_.Solve(mu_correction_);
  AddWeightedTranspose(mu_correction_, x);
  mu += mu_correction_;
}

bool SparseConstraintSystem::NullSpaceBasis(const Matrix& seeds, Matrix& basis) {
  for (Eigen::Index j = 0; j < basis.cols(); ++j) {
    auto column = basis.col(j);
    column = seeds.col(j);
    for (int pass = 0; pass < 2; ++pass) {
      MultiplyJacobian(column, basis_rhs_);
      SolveMinimumNorm(basis_rhs_, basis_projection_, basis_mu_);
      column -= basis_projection_;
      for (Eigen::Index i = 0; i < j; ++i) column -= basis.col(i).dot(column) * basis.col(i);
    }
    const double norm = column.norm();
    if (!(norm > 0.0) || !std::isfinite(norm)) return false;
    column /= norm;
  }
  return true;
}

Matrix PseudoRandomSeeds(int n, int k) {
  Matrix seeds(n, k);
  unsigned long long state = 0x2545F4914F6CDD1Dull;
  for (int j = 0; j < k; ++j)
    for (int i = 0; i < n; ++i) {
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      seeds(i, j) = static_cast<double>(state >> 11) * 0x1.0p-53 - 0.5;
    }
  return seeds;
}

}  // namespace mbb
