// The sparse constraint solves (problems/core/sparse_constraint_system.h, envelope_cholesky.h):
// the same answers as the dense rank-revealing route where both apply, a refusal where only
// the dense one can answer (redundant rows, a massless coordinate), and the ordering that
// makes a chain cost O(n).
#include <catch2/catch.hpp>

#include <algorithm>
#include <numeric>
#include <random>

#include "harness/runner.h"
#include "methods/common/acceleration_solver.h"
#include "problems/core/constraint_factorization.h"
#include "problems/core/constraint_projection.h"
#include "problems/core/envelope_cholesky.h"
#include "problems/core/problem.h"
#include "problems/core/sparse_constraint_system.h"
#include "tests/comparisons.h"
#include "tests/run_spec.h"

namespace mbb {
namespace {

TEST_CASE("reverse Cuthill-McKee gives a shuffled chain the envelope of a tridiagonal matrix",
          "[sparse]") {
  const int size = 50;
  std::vector<int> label(size);
  std::iota(label.begin(), label.end(), 0);
  std::shuffle(label.begin(), label.end(), std::mt19937(7));
  std::vector<std::vector<int>> neighbours(size);
  for (int k = 0; k + 1 < size; ++k) {
    neighbours[label[k]].push_back(label[k + 1]);
    neighbours[label[k + 1]].push_back(label[k]);
  }
  EnvelopeCholesky cholesky;
  cholesky.Analyze(neighbours);
  // A path ordered from one end: the diagonal and one entry left of it in every row but the
  // first. In the shuffled numbering the envelope would hold about size^2 / 3 entries.
  CHECK(cholesky.envelope_size() == 2 * size - 1);
}

TEST_CASE("envelope Cholesky solves a sparse SPD system as a dense Cholesky does", "[sparse]") {
  // A ring of 40 with chords every 7: not banded in any ordering, so fill inside the envelope
  // is exercised. Diagonally dominant, so SPD with condition number below 10: the two
  // solutions agree to a few ulps of it; 1e-12 leaves a wide margin.
  const int size = 40;
  std::vector<std::vector<int>> neighbours(size);
  Matrix dense = Matrix::Zero(size, size);
  std::mt19937 random(3);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  auto couple = [&](int i, int j) {
    neighbours[i].push_back(j);
    neighbours[j].push_back(i);
    dense(i, j) = dense(j, i) = uniform(random);
  };
  for (int k = 0; k < size; ++k) couple(k, (k + 1) % size);
  for (int k = 0; k + 7 < size; k += 7) couple(k, k + 7);
  for (int k = 0; k < size; ++k) dense(k, k) = 10.0;
  EnvelopeCholesky cholesky;
  cholesky.Analyze(neighbours);
  cholesky.SetZero();
  for (int i = 0; i < size; ++i) {
    cholesky.At(i, i) = dense(i, i);
    for (int j : neighbours[i]) cholesky.At(i, j) = dense(i, j);
  }
  REQUIRE(cholesky.Factor(1e-12));
  Vector b(size);
  for (int k = 0; k < size; ++k) b[k] = uniform(random);
  Vector x = b;
  cholesky.Solve(x);
  CHECK(RelativeDifference(x, dense.llt().solve(b)) < 1e-12);
}

TEST_CASE("envelope Cholesky refuses a singular matrix", "[sparse]") {
  EnvelopeCholesky cholesky;
  cholesky.Analyze({{1}, {0}});
  cholesky.SetZero();
  cholesky.At(0, 0) = cholesky.At(1, 1) = cholesky.At(0, 1) = 1.0;  // [1 1; 1 1]
  CHECK_FALSE(cholesky.Factor(1e-10));
}

TEST_CASE("sparse and dense constraint solves agree on the four-bar chain", "[sparse]") {
  const Problem p =
      BuildProblem("n_four_bar", ParameterSet(std::map<std::string, std::string>{{"N", "5"}}));
  const MechanicalDae& dae = *p.dae;
  const int n = p.n(), m = p.m();
  auto ws = dae.MakeWorkspace();
  // A state off the manifold and moving, so that Phi, gamma and the forces are all generic.
  Vector q = p.q0, v(n);
  for (int i = 0; i < n; ++i) {
    q[i] += 1e-3 * std::sin(1.0 + i);
    v[i] = std::cos(2.0 + i);
  }

  // Minimum-norm corrections (metric I) against the QR's: Phi_q here has condition number
  // of order 10, so both are accurate to about 1e-15; 1e-12 is the margin.
  auto sparse = SparseConstraintSystem::Make(dae, nullptr, ConstraintSolves::kSparse);
  REQUIRE(sparse != nullptr);
  REQUIRE(sparse->Factor(*ws, 0.1, q));
  Matrix phi_q(m, n);
  dae.CalcPhiQ(*ws, 0.1, q, phi_q);
  ConstraintFactorization qr(m, n);
  qr.Compute(phi_q);
  REQUIRE(qr.rank() == m);
  Vector b(m), x_sparse(n), x_dense(n), mu(m);
  for (int k = 0; k < m; ++k) b[k] = std::sin(3.0 * k);
  sparse->SolveMinimumNorm(b, x_sparse, mu);
  qr.SolveMinimumNorm(b, x_dense);
  CHECK(RelativeDifference(x_sparse, x_dense) < 1e-12);
  CHECK((phi_q * x_sparse - b).lpNorm<Eigen::Infinity>() < 1e-12 * b.lpNorm<Eigen::Infinity>());

  // Accelerations and multipliers (metric M) against the null-space solve.
  AccelerationSolver dense_solver(dae, *ws, {}, ConstraintSolves::kDense);
  AccelerationSolver sparse_solver(dae, *ws, {}, ConstraintSolves::kSparse);
  Vector a_dense(n), a_sparse(n), lambda_dense(m), lambda_sparse(m);
  REQUIRE(dense_solver.Solve(0.1, q, v, a_dense, lambda_dense));
  REQUIRE(sparse_solver.Solve(0.1, q, v, a_sparse, lambda_sparse));
  CHECK_FALSE(dense_solver.last_solve_sparse());
  CHECK(sparse_solver.last_solve_sparse());
  CHECK(RelativeDifference(a_sparse, a_dense) < 1e-12);
  CHECK(RelativeDifference(lambda_sparse, lambda_dense) < 1e-12);

  // The projection converges to the same point.
  ConstraintProjector dense_projector(dae, *ws, ConstraintSolves::kDense);
  ConstraintProjector sparse_projector(dae, *ws, ConstraintSolves::kSparse);
  Vector q_dense = q, q_sparse = q;
  REQUIRE(dense_projector.ProjectPositions(0.1, q_dense, 1e-14, 10));
  REQUIRE(sparse_projector.ProjectPositions(0.1, q_sparse, 1e-14, 10));
  CHECK(sparse_projector.last_rank() == m);
  CHECK((q_sparse - q_dense).lpNorm<Eigen::Infinity>() < 1e-12);
}

TEST_CASE("the sparse route refuses what only the rank-revealing one can solve", "[sparse]") {
  SECTION("redundant constraints: Bricard's closure") {
    // Rank 29 of 30 rows on the manifold (test_speed.cc): S is singular.
    const Problem p = BuildProblem("bricard", ParameterSet());
    auto ws = p.dae->MakeWorkspace();
    auto sparse = SparseConstraintSystem::Make(*p.dae, nullptr, ConstraintSolves::kSparse);
    REQUIRE(sparse != nullptr);
    CHECK_FALSE(sparse->Factor(*ws, 0.0, p.q0));
    ConstraintProjector projector(*p.dae, *ws, ConstraintSolves::kSparse);
    Vector v = p.v0;
    projector.ProjectVelocities(0.0, p.q0, v);
    CHECK(projector.last_rank() == p.m() - 1);  // answered by the QR
  }
  SECTION("a massless coordinate: the stiff pendulum's M = diag(m, m, 0)") {
    const Problem p = BuildProblem("stiff_pendulum", ParameterSet());
    Matrix mass(p.n(), p.n());
    auto ws = p.dae->MakeWorkspace();
    p.dae->CalcMassMatrix(*ws, p.q0, mass);
    CHECK(SparseConstraintSystem::Make(*p.dae, &mass, ConstraintSolves::kSparse) == nullptr);
  }
  SECTION("`dense` and small models under `auto`") {
    const Problem p =
        BuildProblem("n_four_bar", ParameterSet(std::map<std::string, std::string>{{"N", "2"}}));
    REQUIRE(p.n() < kSparseMinCoordinates);
    CHECK(SparseConstraintSystem::Make(*p.dae, nullptr, ConstraintSolves::kAuto) == nullptr);
    CHECK(SparseConstraintSystem::Make(*p.dae, nullptr, ConstraintSolves::kDense) == nullptr);
  }
}

TEST_CASE("a run on the sparse route matches the dense route through singular positions",
          "[sparse]") {
  // The four-bar chain's cranks pass horizontal (a singular position, where the sparse route
  // hands over to the QR) at t = 0.71 s. Classical RK4 at h = 1e-3 meets the closed form to
  // 4.1e-10 m (dense) and 3.1e-10 m (sparse) over 1 s; 1e-8 m leaves a factor 25 for
  // other machines' round-off, and a route that solved a different system (a wrong metric,
  // a dropped row) would miss it by orders.
  const auto& [dense, sparse] =
      ExecuteOnBothRoutes("n_four_bar", "odeint-rk4", {{"N", "10"}}, {{"h", "1e-3"}}, 1.0);
  REQUIRE(dense.status == RunStatus::kOk);
  REQUIRE(sparse.status == RunStatus::kOk);
  REQUIRE(dense.metrics.error.has_value());
  REQUIRE(sparse.metrics.error.has_value());
  CHECK(sparse.metrics.error->position_max_abs < 1e-8);
  CHECK(dense.metrics.error->position_max_abs < 1e-8);
  CHECK(sparse.metrics.position_residual_max < 1e-12);
}

}  // namespace
}  // namespace mbb
