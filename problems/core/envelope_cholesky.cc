#include "problems/core/envelope_cholesky.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "problems/core/invariant.h"

namespace mbb {
// Reverse Cuthill-McKee: breadth-first from a node of least degree in each connected
// component, neighbours taken in order of increasing degree, and the whole order reversed
// (reversal never widens the envelope and usually narrows it: George, Liu 1981, s 4.3).
std::vector<int> ReverseCuthillMcKee(const std::vector<std::vector<int>>& neighbours) {
  const int size = static_cast<int>(neighbours.size());
  std::vector<int> by_degree(size);
  std::iota(by_degree.begin(), by_degree.end(), 0);
  auto degree = [&](int i) { return neighbours[i].size(); };
  std::stable_sort(by_degree.begin(), by_degree.end(),
                   [&](int a, int b) { return degree(a) < degree(b); });
  std::vector<int> order;
  order.reserve(size);
  std::vector<char> visited(size, 0);
  std::vector<int> next;
  for (int root : by_degree) {
    if (visited[root]) continue;
    visited[root] = 1;
    order.push_back(root);
    for (size_t head = order.size() - 1; head < order.size(); ++head) {
      next.clear();
      for (int j : neighbours[order[head]])
        if (!visited[j]) {
          visited[j] = 1;
          next.push_back(j);
        }
      std::stable_sort(next.begin(), next.end(),
                       [&](int a, int b) { return degree(a) < degree(b); });
      order.insert(order.end(), next.begin(), next.end());
    }
  }
  std::reverse(order.begin(), order.end());
  return order;
}

void ComputeEnvelope(const std::vector<std::vector<int>>& neighbours, const std::vector<int>& order,
                     std::vector<int>& position, std::vector<int>& first,
                     std::vector<long>& start) {
  const int size = static_cast<int>(neighbours.size());
  position.assign(size, -1);
  for (int k = 0; k < size; ++k) position[order[k]] = k;
  MBB_INVARIANT(std::find(position.begin(), position.end(), -1) == position.end(),
                "ComputeEnvelope: order is not a permutation");
  first.assign(size, 0);
  start.assign(size + 1, 0);
  for (int k = 0; k < size; ++k) {
    int row_first = k;
    for (int j : neighbours[order[k]]) row_first = std::min(row_first, position[j]);
    first[k] = row_first;
    start[k + 1] = start[k] + (k - row_first + 1);
  }
}

void EnvelopeCholesky::Analyze(const std::vector<std::vector<int>>& neighbours) {
  order_ = ReverseCuthillMcKee(neighbours);
  ComputeEnvelope(neighbours, order_, position_, first_, start_);
  values_.assign(start_.back(), 0.0);
  work_.resize(static_cast<Eigen::Index>(neighbours.size()));
}

void EnvelopeCholesky::SetZero() { std::fill(values_.begin(), values_.end(), 0.0); }

long EnvelopeCholesky::Offset(int i, int j) const {
  int row = position_[i], col = position_[j];
  if (row < col) std::swap(row, col);
  MBB_INVARIANT(col >= first_[row], "EnvelopeCholesky::Offset: entry outside the envelope");
  return start_[row] + (col - first_[row]);
}

bool EnvelopeCholesky::Factor(double relative_pivot_tolerance) {
  const int size = this->size();
  // Row by row (the bordering method): row k of L from the rows above it, whose envelopes
  // overlap row k's from max(first_k, first_j) on.
  for (int k = 0; k < size; ++k) {
    double* row = values_.data() + start_[k] - first_[k];  // row[j] = L(k, j)
    for (int j = first_[k]; j < k; ++j) {
      const double* above = values_.data() + start_[j] - first_[j];
      double sum = row[j];
      for (int i = std::max(first_[k], first_[j]); i < j; ++i) sum -= row[i] * above[i];
      row[j] = sum / above[j];
    }
    const double diagonal = row[k];
    double pivot = diagonal;
    for (int i = first_[k]; i < k; ++i) pivot -= row[i] * row[i];
    if (!(pivot > relative_pivot_tolerance * diagonal) || !std::isfinite(pivot)) return false;
    row[k] = std::sqrt(pivot);
  }
  return true;
}

double EnvelopeCholesky::DiagonalRatio() const {
  double largest = 0.0, smallest = std::numeric_limits<double>::infinity();
  for (int k = 0; k < size(); ++k) {
    const double d = values_[start_[k] + (k - first_[k])];
    largest = std::max(largest, d);
    smallest = std::min(smallest, d);
  }
  return size() == 0 ? 1.0 : largest / smallest;
}

void EnvelopeCholesky::Solve(VectorRef x) {
  const int size = this->size();
  for (int k = 0; k < size; ++k) work_[k] = x[order_[k]];
  for (int k = 0; k < size; ++k) {  // L y = b
    const double* row = values_.data() + start_[k] - first_[k];
    double sum = work_[k];
    for (int i = first_[k]; i < k; ++i) sum -= row[i] * work_[i];
    work_[k] = sum / row[k];
  }
  for (int k = size - 1; k >= 0; --k) {  // L^T x = y, by columns of L^T (rows of L)
    const double* row = values_.data() + start_[k] - first_[k];
    work_[k] /= row[k];
    for (int i = first_[k]; i < k; ++i) work_[i] -= row[i] * work_[k];
  }
  for (int k = 0; k < size; ++k) x[order_[k]] = work_[k];
}

}  // namespace mbb
