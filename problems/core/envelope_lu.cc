#include "problems/core/envelope_lu.h"

#include <algorithm>
#include <cmath>

#include "problems/core/envelope_cholesky.h"
#include "problems/core/invariant.h"

namespace mbb {

void EnvelopeLu::Analyze(const std::vector<std::vector<int>>& neighbours,
                         const std::vector<int>& order) {
  MBB_INVARIANT(order.size() == neighbours.size(), "EnvelopeLu::Analyze: order (size)");
  order_ = order;
  ComputeEnvelope(neighbours, order_, position_, first_, start_);
  upper_base_ = start_.back();
  values_.assign(2 * upper_base_, 0.0);
  inverse_pivot_.assign(neighbours.size(), 0.0);
  work_.resize(static_cast<Eigen::Index>(neighbours.size()));
}

void EnvelopeLu::SetZero() { std::fill(values_.begin(), values_.end(), 0.0); }

long EnvelopeLu::Offset(int i, int j) const {
  const int row = position_[i], col = position_[j];
  if (row > col) {  // L's part, row by row
    MBB_INVARIANT(col >= first_[row], "EnvelopeLu::Offset: entry outside the envelope");
    return start_[row] + (col - first_[row]);
  }
  MBB_INVARIANT(row >= first_[col], "EnvelopeLu::Offset: entry outside the envelope");
  return upper_base_ + start_[col] + (row - first_[col]);  // U's part, column by column
}

bool EnvelopeLu::Factor(double relative_pivot_tolerance) {
  const int size = this->size();
  // Step k computes column k of U and row k of L from the rows and columns before it (the
  // bordering form of Doolittle's elimination); entry j of either needs the entries of row
  // or column j from max(first_j, first_k) on, the overlap of the two envelopes.
  for (int k = 0; k < size; ++k) {
    double* l_row = lower(k);
    double* u_col = upper(k);
    double scale = std::abs(u_col[k]);
    for (int j = first_[k]; j < k; ++j)
      scale = std::max({scale, std::abs(l_row[j]), std::abs(u_col[j])});
    for (int j = first_[k]; j < k; ++j) {
      const int from = std::max(first_[k], first_[j]);
      const double* l_row_j = lower(j);
      const double* u_col_j = upper(j);
      double u = u_col[j], l = l_row[j];
      for (int i = from; i < j; ++i) {
        u -= l_row_j[i] * u_col[i];
        l -= l_row[i] * u_col_j[i];
      }
      u_col[j] = u;
      l_row[j] = l * inverse_pivot_[j];  // a division here was 40 % of a factorisation
    }
    double pivot = u_col[k];
    for (int i = first_[k]; i < k; ++i) pivot -= l_row[i] * u_col[i];
    if (!std::isfinite(pivot) || !(std::abs(pivot) > relative_pivot_tolerance * scale))
      return false;
    u_col[k] = pivot;
    inverse_pivot_[k] = 1.0 / pivot;
  }
  return true;
}

void EnvelopeLu::Solve(VectorRef x) {
  const int size = this->size();
  for (int k = 0; k < size; ++k) work_[k] = x[order_[k]];
  for (int k = 0; k < size; ++k) {  // L y = b, L unit lower triangular
    const double* l_row = lower(k);
    double sum = work_[k];
    for (int i = first_[k]; i < k; ++i) sum -= l_row[i] * work_[i];
    work_[k] = sum;
  }
  for (int k = size - 1; k >= 0; --k) {  // U x = y, column by column
    const double* u_col = upper(k);
    work_[k] *= inverse_pivot_[k];
    for (int i = first_[k]; i < k; ++i) work_[i] -= u_col[i] * work_[k];
  }
  for (int k = 0; k < size; ++k) x[order_[k]] = work_[k];
}

}  // namespace mbb
