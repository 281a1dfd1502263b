// Extrapolated starting values of the implicit fixed-step iterations (extrapolator.h).
#include "methods/common/extrapolator.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace mbb {

Extrapolator::Extrapolator(int n, bool extrapolate)
    : extrapolate_(extrapolate), history_(n, kMaxOrder + 2) {}

void Extrapolator::Start(const Vector& y0) {
  history_.col(0) = y0;
  count_ = 1;
  h_ = 0.0;
}

void Extrapolator::Accept(const Vector& y, double h) {
  if (count_ == 0) return Start(y);
  // Backward differences need equal steps: after a step of another length only the two
  // newest records (that step's ends) are kept.
  if (count_ >= 2 && h != h_) count_ = 1;
  for (int j = std::min<int>(count_, history_.cols() - 1); j > 0; --j)
    history_.col(j) = history_.col(j - 1);
  history_.col(0) = y;
  count_ = std::min<int>(count_ + 1, history_.cols());
  h_ = h;
}

int Extrapolator::Predict(double h, Vector& y_next) const {
  if (count_ == 0) return -1;
  const int order = extrapolate_ && h == h_ ? ChooseOrder() : 0;
  if (order == 0) {
    y_next = history_.col(0);
    return 0;
  }
  for (Eigen::Index row = 0; row < history_.rows(); ++row) y_next[row] = Extrapolate(order, 0, row);
  return order;
}

int Extrapolator::ChooseOrder() const {
  int best = 0;
  double best_error = std::numeric_limits<double>::infinity();
  // Order p predicted record 0 from records 1 ... p + 1 with error |nabla^{p+1} y_n|.
  for (int p = 0; p <= kMaxOrder && p + 2 <= count_; ++p) {
    double error = 0.0;
    for (Eigen::Index row = 0; row < history_.rows(); ++row)
      error = std::max(error, std::abs(history_(row, 0) - Extrapolate(p, 1, row)));
    if (error < best_error) best = p, best_error = error;
  }
  return best;
}

double Extrapolator::Extrapolate(int p, int first, Eigen::Index row) const {
  static constexpr double kCoefficients[kMaxOrder + 1][kMaxOrder + 1] = {
      {1.0, 0.0, 0.0, 0.0}, {2.0, -1.0, 0.0, 0.0}, {3.0, -3.0, 1.0, 0.0}, {4.0, -6.0, 4.0, -1.0}};
  double sum = 0.0;
  for (int i = 0; i <= p; ++i) sum += kCoefficients[p][i] * history_(row, first + i);
  return sum;
}

}  // namespace mbb
