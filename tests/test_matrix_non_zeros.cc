// Products over the non-zeros of a dense matrix (methods/common/matrix_non_zeros.h) equal
// the dense products to rounding, with or without a known pattern, for a vector and for a
// block of columns.
#include <catch2/catch.hpp>

#include "methods/common/matrix_non_zeros.h"

namespace mbb {

TEST_CASE("products over a matrix's non-zeros equal the dense products", "[newmark]") {
  const int rows = 5, cols = 7;
  Matrix a = Matrix::Zero(rows, cols);
  a(0, 0) = 2.0, a(0, 6) = -1.5, a(2, 3) = 0.25, a(4, 1) = 3.0, a(4, 6) = -0.75;
  const Vector x = Vector::LinSpaced(cols, -1.0, 2.0);
  const Matrix x_block = Matrix::Random(cols, 3);
  MatrixNonZeros entries(rows, cols);
  entries.Gather(a);
  CHECK(entries.size() == 5);
  Vector y = Vector::Ones(rows);
  entries.AddProduct(-0.5, x, y);
  const Vector y_dense = Vector::Ones(rows) - 0.5 * a * x;
  // Each entry of y sums at most two products, in another order than the dense kernel:
  // a few roundings of |a| |x|.
  CHECK((y - y_dense).lpNorm<Eigen::Infinity>() <= 1e-15 * 10.0);
  Matrix y_block = Matrix::Zero(rows, 3);
  entries.AddProduct(2.0, x_block, y_block);
  CHECK((y_block - 2.0 * a * x_block).lpNorm<Eigen::Infinity>() <= 1e-15 * 20.0);

  // With a pattern, its entries are taken whatever their value (here one is zero).
  const JacobianCompression pattern = JacobianCompression::FromPattern(
      rows, cols, [&](int r, int c) { return a(r, c) != 0.0 || (r == 1 && c == 2); });
  entries.Gather(a, &pattern);
  CHECK(entries.size() == 6);
  y.setZero();
  entries.AddProduct(1.0, x, y);
  CHECK((y - a * x).lpNorm<Eigen::Infinity>() <= 1e-15 * 10.0);
}

}  // namespace mbb
