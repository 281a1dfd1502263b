// The rank-revealing factorisation of Phi_q (problems/core/constraint_factorization.h) against an
// independent one, the SVD: numerical rank, orthonormal range and null-space bases, the
// minimum-norm solution (unique: the pseudo-inverse's) and the least-squares multipliers,
// on a full-rank Jacobian (spatial pendulum, slider-crank) and a redundant one (Bricard,
// rank m - 1 everywhere); the small-size QR kernel (problems/core/pivoted_qr.h) against Eigen's,
// and both kernels of the factorisation on random Jacobians.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <string>
#include <tuple>

#include "problems/core/constraint_factorization.h"
#include "problems/core/pivoted_qr.h"
#include "problems/core/problem.h"

namespace mbb {
namespace {

// Tolerances: the factorisation is backward stable, so products and orthogonality hold to
// a modest multiple of eps times the norms involved; 1e-12 leaves a factor ~50 over
// n * eps for these n <= 42, and the Jacobian entries are O(1).
constexpr double kTol = 1e-12;

Matrix PhiQAtStart(const Problem& p) {
  auto ws = p.dae->MakeWorkspace();
  Matrix phi_q(p.m(), p.n());
  p.dae->CalcPhiQ(*ws, p.t0, p.q0, phi_q);
  return phi_q;
}

}  // namespace

TEST_CASE(
    "constraint factorisation: rank, bases, minimum-norm solve and multipliers agree "
    "with the SVD",
    "[factorization]") {
  for (const std::string id : {"spatial_pendulum", "slider_crank_3d", "bricard"}) {
    INFO(id);
    const Problem p = BuildProblem(id, ParameterSet());
    const Matrix phi_q = PhiQAtStart(p);
    const int m = p.m(), n = p.n();
    Eigen::JacobiSVD<Matrix> svd(phi_q, Eigen::ComputeFullU | Eigen::ComputeFullV);
    svd.setThreshold(kConstraintRankThreshold);
    const int svd_rank = static_cast<int>(svd.rank());

    ConstraintFactorization f(m, n);
    f.Compute(phi_q);
    CHECK(f.rank() == svd_rank);
    if (id == "bricard") CHECK(f.rank() == m - 1);  // the one redundant closure condition

    f.FormBases();
    const auto y = f.range_basis();
    const auto z = f.null_space_basis();
    CHECK(z.cols() == n - svd_rank);
    CHECK((phi_q * z).lpNorm<Eigen::Infinity>() < kTol);
    CHECK((y.transpose() * y - Matrix::Identity(y.cols(), y.cols())).lpNorm<Eigen::Infinity>() <
          kTol);
    CHECK((z.transpose() * z - Matrix::Identity(z.cols(), z.cols())).lpNorm<Eigen::Infinity>() <
          kTol);
    CHECK((y.transpose() * z).lpNorm<Eigen::Infinity>() < kTol);

    // A consistent right-hand side b = Phi_q w: the minimum-norm solution is pinv(Phi_q) b,
    // with or without the explicit bases (two code paths).
    const Vector w = Vector::LinSpaced(n, -1.0, 2.0);
    const Vector b = phi_q * w;
    const Vector expected = svd.solve(b);
    Vector x(n);
    f.SolveMinimumNorm(b, x);
    CHECK((x - expected).lpNorm<Eigen::Infinity>() < kTol);
    Matrix xs;
    f.SolveMinimumNormColumns(b, xs);
    CHECK((xs.col(0) - expected).lpNorm<Eigen::Infinity>() < kTol);
    ConstraintFactorization householder_only(m, n);
    householder_only.Compute(phi_q);
    householder_only.SolveMinimumNorm(b, x);
    CHECK((x - expected).lpNorm<Eigen::Infinity>() < kTol);

    // Multipliers of a consistent c = Phi_q^T mu solve Phi_q^T lambda = c (both paths);
    // they are unique, and then equal mu, only when Phi_q has full rank.
    const Vector mu = Vector::LinSpaced(m, 1.0, -0.5);
    const Vector c = phi_q.transpose() * mu;
    Vector lambda(m), lambda_h(m);
    f.SolveMultipliers(c, lambda);
    householder_only.SolveMultipliers(c, lambda_h);
    CHECK((phi_q.transpose() * lambda - c).lpNorm<Eigen::Infinity>() < kTol);
    CHECK((phi_q.transpose() * lambda_h - c).lpNorm<Eigen::Infinity>() < kTol);
    if (svd_rank == m) CHECK((lambda - mu).lpNorm<Eigen::Infinity>() < kTol);

    // A cap below the numerical rank (tangent-newmark off the manifold) is honoured.
    f.Compute(phi_q, svd_rank - 1);
    CHECK(f.rank() == svd_rank - 1);
    CHECK(f.computed_rank() == svd_rank);
  }
}

}  // namespace mbb

namespace mbb {

TEST_CASE("pivoted QR: A P = Q R, the pivots and rank of Eigen's ColPivHouseholderQR",
          "[factorization]") {
  // Random A (fixed seeds) with distinct column norms (no ties, so the pivot order is
  // determined) and a rank-deficient one (two columns combinations of the others; unequal
  // weights: column 2 + column 3 would leave those two tied exactly once the combination is
  // eliminated, and a tie is broken by round-off, differently by exact and downdated norms).
  std::srand(7);
  for (auto [n, m, deficient] : {std::tuple{15, 14, false}, std::tuple{35, 35, false},
                                 std::tuple{30, 12, true}, std::tuple{9, 12, false}}) {
    INFO(n << " x " << m << (deficient ? ", rank m - 2" : ""));
    Matrix phi_q = Matrix::Random(m, n);  // A = phi_q^T
    if (deficient) {
      phi_q.row(m - 1) = 0.5 * phi_q.row(0) - 2.0 * phi_q.row(1);
      phi_q.row(m - 2) = phi_q.row(2) + 0.7 * phi_q.row(3);
    }
    const Matrix a = phi_q.transpose();
    PivotedQr qr(n, m);
    qr.Compute(phi_q);
    Eigen::ColPivHouseholderQR<Matrix> eigen(a);
    eigen.setThreshold(kConstraintRankThreshold);

    CHECK(qr.Rank(kConstraintRankThreshold) == eigen.rank());
    if (deficient) CHECK(qr.Rank(kConstraintRankThreshold) == std::min(n, m) - 2);
    // Backward stability: A P - Q R and Q^T Q - I of a few eps times |A| (<= 1e-12 for
    // these sizes and O(1) entries; see kTol).
    Matrix q(n, n);
    qr.FormQ(q);
    const int s = std::min(n, m);
    Matrix r = Matrix::Zero(n, m);
    r.topRows(s) = Matrix(qr.packed().topRows(s)).triangularView<Eigen::Upper>();
    Matrix ap(n, m);
    for (int k = 0; k < m; ++k) ap.col(k) = a.col(qr.permutation()[k]);
    CHECK((ap - q * r).lpNorm<Eigen::Infinity>() < kTol);
    CHECK((q.transpose() * q - Matrix::Identity(n, n)).lpNorm<Eigen::Infinity>() < kTol);
    // The same pivots and R (up to round-off) as Eigen's, which chooses by downdated norms
    // of the same columns (no tie here), over the columns that carry rank (beyond it the
    // order among round-off-sized columns is arbitrary).
    const int rank = static_cast<int>(eigen.rank());
    for (int k = 0; k < rank; ++k)
      CHECK(qr.permutation()[k] == eigen.colsPermutation().indices()[k]);
    const Matrix r_eigen = eigen.matrixQR().topLeftCorner(rank, m).triangularView<Eigen::Upper>();
    const Matrix r_own = r.topLeftCorner(rank, m);
    CHECK((r_own - r_eigen).lpNorm<Eigen::Infinity>() < kTol);

    // The copy of Eigen's factors reads back the same rank and R.
    PivotedQr copy(n, m);
    copy.CopyFrom(eigen);
    CHECK(copy.Rank(kConstraintRankThreshold) == eigen.rank());
    CHECK(copy.packed() == RowMajorMatrix(eigen.matrixQR()));
  }
}

TEST_CASE("constraint factorisation: both QR kernels give the minimum-norm solution",
          "[factorization]") {
  // Random Jacobians on each side of kOwnQrMaxCoordinates, one of them rank-deficient,
  // against the SVD's pseudo-inverse solution (kTol as above; these are O(1) and well
  // conditioned).
  std::srand(11);
  const int limit = ConstraintFactorization::kOwnQrMaxCoordinates;
  for (auto [n, m] : {std::pair{limit, limit - 3}, std::pair{limit + 6, limit - 3}}) {
    INFO(n << " coordinates, " << m << " constraints");
    Matrix phi_q = Matrix::Random(m, n);
    phi_q.row(m - 1) = phi_q.row(0) - phi_q.row(1);  // rank m - 1
    Eigen::JacobiSVD<Matrix> svd(phi_q, Eigen::ComputeThinU | Eigen::ComputeThinV);
    svd.setThreshold(kConstraintRankThreshold);
    ConstraintFactorization f(m, n);
    f.Compute(phi_q);
    CHECK(f.rank() == m - 1);
    CHECK(f.rank() == svd.rank());
    const Vector b = phi_q * Vector::LinSpaced(n, -1.0, 1.0);
    Vector x(n);
    f.SolveMinimumNorm(b, x);  // by the reflectors
    CHECK((x - svd.solve(b)).lpNorm<Eigen::Infinity>() < kTol);
    f.FormBases();
    f.SolveMinimumNorm(b, x);  // through the range basis
    CHECK((x - svd.solve(b)).lpNorm<Eigen::Infinity>() < kTol);
    CHECK((phi_q * f.null_space_basis()).lpNorm<Eigen::Infinity>() < kTol);
  }
}

}  // namespace mbb
