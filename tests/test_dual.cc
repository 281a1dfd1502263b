// Forward-mode automatic differentiation (problems/core/dual.h): the operations with plain
// numbers take a shortcut (no arithmetic on the number's zero derivative); they must give
// what promoting the number to a Dual gives, at every nesting depth.
#include <array>
#include <catch2/catch.hpp>

#include "problems/core/dual.h"

namespace mbb {
namespace {

using D1 = Dual<double>;
using D2 = Dual<D1>;

std::array<double, 4> Parts(const D2& x) { return {x.v.v, x.v.d, x.d.v, x.d.d}; }

// Exact equality: the shortcut skips only additions of zero and products with zero, so the
// values agree to the bit (== also takes -0 for +0, the one difference allowed).
void CheckSame(const D2& shortcut, const D2& promoted) {
  const auto a = Parts(shortcut), b = Parts(promoted);
  for (int k = 0; k < 4; ++k) CHECK(a[k] == b[k]);
}

TEST_CASE("operations with numbers equal those with the number promoted to a Dual", "[dual]") {
  const D2 x(D1(0.7, -1.3), D1(2.1, 0.37));
  for (const double c : {2.5, -0.3, 1e-7, 3.0}) {
    const D2 p(c);  // the promoted number: zero derivatives
    CheckSame(x + c, x + p);
    CheckSame(c + x, p + x);
    CheckSame(x - c, x - p);
    CheckSame(c - x, p - x);
    CheckSame(x * c, x * p);
    CheckSame(c * x, p * x);
    CheckSame(x / c, x / p);
    CheckSame(c / x, p / x);
  }
  CheckSame(x * 3, x * D2(3.0));  // an int operand
  CheckSame(2 - x, D2(2.0) - x);
}

TEST_CASE("nested duals give the second derivative of an expression with constants", "[dual]") {
  // f(x) = 3 x^2 - 2 / x + 5: f' = 6 x + 2 / x^2, f'' = 6 - 4 / x^3, along x(s) = x0 + s.
  const double x0 = 1.7;
  const D2 x(D1(x0, 1.0), D1(1.0, 0.0));
  const D2 f = 3.0 * x * x - 2.0 / x + 5;
  // Each part is a few roundings of terms of size ~10: 1e-14 relative.
  CHECK(f.v.v == Approx(3 * x0 * x0 - 2 / x0 + 5).epsilon(1e-14));
  CHECK(f.v.d == Approx(6 * x0 + 2 / (x0 * x0)).epsilon(1e-14));
  CHECK(f.d.v == Approx(6 * x0 + 2 / (x0 * x0)).epsilon(1e-14));
  CHECK(f.d.d == Approx(6 - 4 / (x0 * x0 * x0)).epsilon(1e-14));
}

}  // namespace
}  // namespace mbb
