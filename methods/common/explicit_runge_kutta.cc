#include "methods/common/explicit_runge_kutta.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace mbb {
namespace {

// Dormand-Prince 5(4) error weights e_i = b_i - b*_i, b* the embedded 4th-order solution
// [Dormand, Prince 1980; Hairer et al. 1993, Table II.5.2]; stage 7 is the FSAL stage.
constexpr double kDopri5Error[7] = {
    71.0 / 57600.0,      0.0,          -71.0 / 16695.0, 71.0 / 1920.0,
    -17253.0 / 339200.0, 22.0 / 525.0, -1.0 / 40.0};

constexpr ButcherTableau kDopri5 = {
    6,
    {0.0, 1.0 / 5.0, 3.0 / 10.0, 4.0 / 5.0, 8.0 / 9.0, 1.0},
    {{0, 0, 0, 0, 0, 0},
     {1.0 / 5.0, 0, 0, 0, 0, 0},
     {3.0 / 40.0, 9.0 / 40.0, 0, 0, 0, 0},
     {44.0 / 45.0, -56.0 / 15.0, 32.0 / 9.0, 0, 0, 0},
     {19372.0 / 6561.0, -25360.0 / 2187.0, 64448.0 / 6561.0, -212.0 / 729.0, 0, 0},
     {9017.0 / 3168.0, -355.0 / 33.0, 46732.0 / 5247.0, 49.0 / 176.0, -5103.0 / 18656.0, 0}},
    {35.0 / 384.0, 0.0, 500.0 / 1113.0, 125.0 / 192.0, -2187.0 / 6784.0, 11.0 / 84.0},
    kDopri5Error};

constexpr ButcherTableau kRk4 = {4,
                                 {0.0, 0.5, 0.5, 1.0, 0, 0},
                                 {{0, 0, 0, 0, 0, 0},
                                  {0.5, 0, 0, 0, 0, 0},
                                  {0, 0.5, 0, 0, 0, 0},
                                  {0, 0, 1.0, 0, 0, 0},
                                  {0, 0, 0, 0, 0, 0},
                                  {0, 0, 0, 0, 0, 0}},
                                 {1.0 / 6.0, 1.0 / 3.0, 1.0 / 3.0, 1.0 / 6.0, 0, 0},
                                 nullptr};

// Step size controller [Hairer et al. 1993, s II.4, eqs. (4.11)-(4.13)].
constexpr double kSafety = 0.9, kFacMin = 0.2, kFacMax = 5.0;
// Smallest step relative to 1 + |t| before an adaptive run gives up (well above rounding of
// t, ~1e-16 (1 + |t|)).
constexpr double kMinStepRelative = 1e-12;

}  // namespace

const ButcherTableau& ClassicalRk4() { return kRk4; }
const ButcherTableau& DormandPrince5() { return kDopri5; }

std::string AdaptiveRkStep::UnderflowMessage(double t) const {
  char buf[160];
  std::snprintf(buf, sizeof(buf),
                "step size h = %.3e below the minimum %.1e (1 + |t|) at t = %.9g "
                "(error norm %.3g at h = %.3e)",
                h_smaller, kMinStepRelative, t, error, h_tried);
  return buf;
}

ExplicitRungeKutta::ExplicitRungeKutta(const ButcherTableau& tableau, int capacity)
    : tab_(tableau),
      size_(capacity),
      y0_(Vector::Zero(capacity)),
      ys_(Vector::Zero(capacity)),
      y1_(Vector::Zero(capacity)),
      k_(Matrix::Zero(capacity, tableau.stages + 1)) {}

void ExplicitRungeKutta::StageState(int stage, double h) {
  auto y = ys_.head(size_);
  y = y0_.head(size_);
  for (int j = 0; j < stage; ++j) {
    if (tab_.a[stage][j] == 0.0) continue;
    y += (h * tab_.a[stage][j]) * k_.col(j).head(size_);
  }
}

void ExplicitRungeKutta::Solution(double h) {
  auto y = y1_.head(size_);
  y = y0_.head(size_);
  for (int i = 0; i < tab_.stages; ++i) {
    if (tab_.b[i] == 0.0) continue;
    y += (h * tab_.b[i]) * k_.col(i).head(size_);
  }
}

void ExplicitRungeKutta::SetRotatedBlock(int start) {
  block_ = start;
  block0_.resize(size_ - start);
  block1_.resize(size_ - start);
}

// The weighted RMS norm [Hairer et al. 1993, eq. II.4.11] of e = h sum_i e_i k_i.
double ExplicitRungeKutta::ErrorNorm(double h, double rtol, double atol) {
  const int stages = tab_.stages + 1;
  const int block = block_ >= 0 ? block_ : size_;
  double sum = 0.0;
  for (int j = 0; j < block; ++j) {
    double e = 0.0;
    for (int i = 0; i < stages; ++i) e += tab_.error[i] * k_(j, i);
    const double sc = atol + rtol * std::max(std::abs(y0_[j]), std::abs(y1_[j]));
    sum += (h * e / sc) * (h * e / sc);
  }
  if (block < size_) {
    block0_ = y0_.segment(block, size_ - block);
    block1_ = y1_.segment(block, size_ - block);
    const double sc = atol + rtol * std::max(block0_.norm(), block1_.norm());
    for (int j = block; j < size_; ++j) {
      double e = 0.0;
      for (int i = 0; i < stages; ++i) e += tab_.error[i] * k_(j, i);
      sum += (h * e / sc) * (h * e / sc);
    }
  }
  return std::sqrt(sum / static_cast<double>(size_));
}

bool ExplicitRungeKutta::Control(double err, bool rejected, double t, double h,
                                 AdaptiveRkStep& out) {
  if (err <= 1.0) {  // accepted (II.4.12-13)
    const double fac = err > 0.0 ? kSafety * std::pow(err, -0.2) : kFacMax;
    out.h_taken = h;
    out.h_next = h * std::min(kFacMax, std::max(kFacMin, fac));
    if (rejected) out.h_next = std::min(out.h_next, h);  // no increase right after a rejection
    return true;
  }
  const double fac = std::isfinite(err) ? kSafety * std::pow(err, -0.2) : kFacMin;
  out.h_smaller = h * std::max(kFacMin, fac);
  if (out.h_smaller < kMinStepRelative * (1.0 + std::abs(t))) {
    out.underflow = true;
    out.h_tried = h;
    out.error = err;
  }
  return false;
}

}  // namespace mbb
