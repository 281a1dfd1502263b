// The rank-revealing factorisation of Phi_q (problems/constraint_factorization.h) against an
// independent one, the SVD: numerical rank, orthonormal range and null-space bases, the
// minimum-norm solution (unique: the pseudo-inverse's) and the least-squares multipliers,
// on a full-rank Jacobian (spatial pendulum, slider-crank) and a redundant one (Bricard,
// rank m - 1 everywhere).
#include <catch2/catch.hpp>
#include <string>

#include "problems/constraint_factorization.h"
#include "problems/problem.h"

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
