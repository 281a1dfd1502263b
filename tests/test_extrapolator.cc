// The starting values of the Newmark iterations (methods/common/extrapolator.h): exact on
// polynomials of the order used, the order chosen from the last step's prediction error,
// the observed order of the prediction error on a smooth motion, and the classical start
// where the history cannot be trusted (alternating values, unequal steps).
#include <catch2/catch.hpp>
#include <cmath>

#include "methods/common/extrapolator.h"

namespace mbb {
namespace {

Vector Value(double a, double b) { return (Vector(2) << a, b).finished(); }

// Records y(t_k), k = 0 ... records - 1, t_k = k h, and predicts y(records h).
template <class F>
int PredictNext(Extrapolator& e, F y, double h, int records, Vector& next) {
  e.Start(y(0.0));
  for (int k = 1; k < records; ++k) e.Accept(y(k * h), h);
  return e.Predict(h, next);
}

}  // namespace

TEST_CASE("Extrapolator is exact on the polynomials of its order", "[newmark][extrapolator]") {
  const double h = 0.1;
  Vector next(2);
  Extrapolator e(2, true);
  // Linear: nabla^2 = nabla^3 = 0, the lower order wins the tie.
  auto linear = [](double t) { return Value(1.0 + 2.0 * t, -3.0 * t); };
  CHECK(PredictNext(e, linear, h, 4, next) == 1);
  CHECK((next - linear(0.4)).lpNorm<Eigen::Infinity>() < 1e-14);
  // Quadratic: order 2 from four records (nabla^3 = 0 backtests it exactly).
  auto quadratic = [](double t) { return Value(1.0 - t * t, 0.5 + t + 4.0 * t * t); };
  CHECK(PredictNext(e, quadratic, h, 4, next) == 2);
  CHECK((next - quadratic(0.4)).lpNorm<Eigen::Infinity>() < 1e-14);
  // With three records order 2 cannot be backtested: the best testable one, order 1.
  CHECK(PredictNext(e, quadratic, h, 3, next) == 1);
  // Cubic: order 3 from five records.
  auto cubic = [](double t) { return Value(t * t * t - t, 2.0 - 3.0 * t * t * t); };
  CHECK(PredictNext(e, cubic, h, 5, next) == 3);
  CHECK((next - cubic(0.5)).lpNorm<Eigen::Infinity>() < 1e-14);
}

TEST_CASE("Extrapolator's prediction error has the order of the extrapolation",
          "[newmark][extrapolator]") {
  // On y = (sin(1 + t), cos(1 + 2t)) the order chosen at small steps is the highest, 3,
  // whose error is h^4 |y''''| + 2 h^5 |y^(5)| + ...: halving h divides it by 16 (observed
  // order 4 within 0.1; the h^5 term is 4 % of the first near t = 0.05 at h = 0.005).
  static_assert(Extrapolator::kMaxOrder == 3, "the expected order below");
  auto smooth = [](double t) { return Value(std::sin(1.0 + t), std::cos(1.0 + 2.0 * t)); };
  double errors[2];
  for (int i = 0; i < 2; ++i) {
    const double h = 0.005 / (1 << i);
    const int records = 10 << i;  // predicts y(0.05) both times
    Extrapolator e(2, true);
    Vector next(2);
    CHECK(PredictNext(e, smooth, h, records, next) == 3);
    errors[i] = (next - smooth(records * h)).lpNorm<Eigen::Infinity>();
  }
  CHECK(std::abs(std::log2(errors[0] / errors[1]) - 4.0) < 0.1);
}

TEST_CASE("Extrapolator keeps the classical start where the history cannot be trusted",
          "[newmark][extrapolator]") {
  const double h = 0.1;
  Vector next(2);
  // A value alternating from step to step (the trapezoidal rule's index-3 accelerations):
  // nabla^1, nabla^2, nabla^3 = 2, 4, 8 times the amplitude, so order 0.
  Extrapolator e(2, true);
  auto alternating = [h](double t) {
    const double sign = std::lround(t / h) % 2 == 0 ? 1.0 : -1.0;
    return Value(sign, 1.0 + 0.5 * sign);
  };
  CHECK(PredictNext(e, alternating, h, 4, next) == 0);
  CHECK(next == alternating(3 * h));
  // A step of another length than the recorded ones: y_n.
  auto linear = [](double t) { return Value(t, 2.0 * t); };
  CHECK(PredictNext(e, linear, h, 4, next) == 1);
  CHECK(e.Predict(0.05, next) == 0);
  CHECK(next == linear(3 * h));
  // After an accepted step of another length the history holds that step's two ends only.
  e.Accept(linear(0.35), 0.05);
  CHECK(e.Predict(0.05, next) == 0);
  e.Accept(linear(0.4), 0.05);
  CHECK(e.Predict(0.05, next) == 1);
  CHECK((next - linear(0.45)).lpNorm<Eigen::Infinity>() < 1e-14);
  // `predictor=constant`: always y_n.
  Extrapolator constant(2, false);
  CHECK(PredictNext(constant, linear, h, 4, next) == 0);
  CHECK(next == linear(3 * h));
}

}  // namespace mbb
