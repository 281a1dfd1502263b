// The implicit methods' sparse routes: newmark-index3's Newton system
// (methods/common/sparse_kkt_system.h, problems/core/envelope_lu.h,
// problems/core/tangent_pattern.h), tangent-newmark's pass
// (methods/newmark/tangent_sparse_system.h) and null-space-em's local-coordinate step
// (methods/energy_momentum/null_space_sparse_system.h): the envelope LU against a dense LU, the
// assembled system against the dense one the method builds, and runs on both routes, including
// passes and steps the sparse route refuses.
#include <catch2/catch.hpp>

#include <random>

#include "harness/runner.h"
#include "methods/common/sparse_kkt_system.h"
#include "methods/method.h"
#include "problems/core/envelope_lu.h"
#include "problems/core/problem.h"
#include "tests/comparisons.h"
#include "tests/forwarding_dae.h"
#include "tests/run_spec.h"

namespace mbb {
namespace {

TEST_CASE("envelope LU solves a sparse non-symmetric system as a dense LU does", "[sparse]") {
  // A ring of 40 with chords every 7 (fill inside the envelope), values not symmetric,
  // diagonally dominant (condition number below 10): both solutions agree to a few ulps;
  // 1e-12 leaves a wide margin. Natural order and a shuffled one.
  const int size = 40;
  std::vector<std::vector<int>> neighbours(size);
  Matrix dense = Matrix::Zero(size, size);
  std::mt19937 random(5);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  auto couple = [&](int i, int j) {
    neighbours[i].push_back(j);
    neighbours[j].push_back(i);
    dense(i, j) = uniform(random);
    dense(j, i) = uniform(random);
  };
  for (int k = 0; k < size; ++k) couple(k, (k + 1) % size);
  for (int k = 0; k + 7 < size; k += 7) couple(k, k + 7);
  for (int k = 0; k < size; ++k) dense(k, k) = 10.0 + uniform(random);
  std::vector<int> natural(size), shuffled(size);
  for (int k = 0; k < size; ++k) natural[k] = shuffled[k] = k;
  std::shuffle(shuffled.begin(), shuffled.end(), std::mt19937(9));
  Vector b(size);
  for (int k = 0; k < size; ++k) b[k] = uniform(random);
  for (const auto& order : {natural, shuffled}) {
    EnvelopeLu lu;
    lu.Analyze(neighbours, order);
    lu.SetZero();
    for (int i = 0; i < size; ++i) {
      lu.AtOffset(lu.Offset(i, i)) = dense(i, i);
      for (int j : neighbours[i]) lu.AtOffset(lu.Offset(i, j)) = dense(i, j);
    }
    REQUIRE(lu.Factor(1e-12));
    Vector x = b;
    lu.Solve(x);
    CHECK(RelativeDifference(x, dense.partialPivLu().solve(b)) < 1e-12);
  }
}

TEST_CASE("envelope LU refuses a zero pivot", "[sparse]") {
  EnvelopeLu lu;
  lu.Analyze({{1}, {0}}, {0, 1});
  lu.SetZero();
  lu.AtOffset(lu.Offset(0, 1)) = lu.AtOffset(lu.Offset(1, 0)) = 1.0;  // [0 1; 1 0]
  CHECK_FALSE(lu.Factor(1e-10));
}

// The Newton matrix of newmark-index3 at a state off the manifold, with its terms scaled as
// the method scales them (beta h^2 = 2.5e-7, gamma h = 5e-4), on both routes.
struct NewtonMatrices {
  Matrix dense;
  std::unique_ptr<SparseKktSystem> sparse;
};

NewtonMatrices AssembleNewtonMatrices(const Problem& p, ConstraintSolves solves) {
  const MechanicalDae& dae = *p.dae;
  const int n = p.n(), m = p.m();
  auto ws = dae.MakeWorkspace();
  const double t = 0.1, bh2 = 2.5e-7, gh = 5e-4;
  Vector q = p.q0, v(n), a(n), lambda(m);
  for (int i = 0; i < n; ++i) {
    q[i] += 1e-3 * std::sin(1.0 + i);
    v[i] = std::cos(2.0 + i);
    a[i] = std::sin(0.5 * i);
  }
  for (int r = 0; r < m; ++r) lambda[r] = std::cos(0.3 * r);
  Matrix mass(n, n), dma(n, n), reaction(n, n), dq(n, n), dv(n, n), phi_q(m, n);
  dae.CalcMassMatrix(*ws, q, mass);
  dae.CalcMassTimesAccelerationJacobian(*ws, q, a, dma);
  dae.CalcReactionStiffness(*ws, t, q, lambda, reaction);
  dae.CalcForceJacobians(*ws, t, q, v, dq, dv);
  dae.CalcPhiQ(*ws, t, q, phi_q);
  NewtonMatrices out;
  out.dense = Matrix::Zero(n + m, n + m);
  out.dense.topLeftCorner(n, n) = mass + bh2 * (dma + reaction - dq) - gh * dv;
  out.dense.topRightCorner(n, m) = phi_q.transpose();
  out.dense.bottomLeftCorner(m, n) = phi_q;
  out.sparse = SparseKktSystem::Make(dae, solves);
  if (out.sparse) {
    const size_t entries = out.sparse->matrix_entries().size();
    std::vector<double> mass_values(entries), stiffness(entries), damping(entries);
    dae.CalcMassMatrixEntries(*ws, q, mass_values.data());
    dae.CalcTangentStiffnessEntries(*ws, t, q, v, a, lambda, stiffness.data(), damping.data());
    for (size_t e = 0; e < entries; ++e)
      out.sparse->matrix_values()[e] = mass_values[e] + bh2 * stiffness[e] + gh * damping[e];
    dae.CalcPhiQEntries(*ws, t, q, out.sparse->jacobian_values());
  }
  return out;
}

TEST_CASE("the sparse Newton system solves what the dense LU solves on the four-bar chain",
          "[sparse]") {
  // n_four_bar N = 5 (33 coordinates, 30 constraints), away from its singular positions:
  // the two solutions agree to a few ulps times the condition number of the scaled Newton
  // matrix (about 1e2 here); 1e-11 is the margin. The ordering puts every constraint after
  // its coordinates, so the envelope holds O(n) entries, not the (n + m)^2 of the dense LU.
  const Problem p =
      BuildProblem("n_four_bar", ParameterSet(std::map<std::string, std::string>{{"N", "5"}}));
  NewtonMatrices newton = AssembleNewtonMatrices(p, ConstraintSolves::kSparse);
  REQUIRE(newton.sparse != nullptr);
  REQUIRE(newton.sparse->Factor());
  const int size = p.n() + p.m();
  CHECK(newton.sparse->envelope_size() < 20 * size);
  Vector b(size);
  for (int k = 0; k < size; ++k) b[k] = std::sin(3.0 * k + 1.0);
  Vector x = b;
  REQUIRE(newton.sparse->Solve(x));
  CHECK(RelativeDifference(x, newton.dense.partialPivLu().solve(b)) < 1e-11);
}

TEST_CASE("the sparse Newton system is not made where the dense one must answer", "[sparse]") {
  const Problem small = BuildProblem("four_bar", ParameterSet());  // 9 coordinates
  REQUIRE(small.n() < SparseKktSystem::kAutoMinCoordinates);
  CHECK(SparseKktSystem::Make(*small.dae, ConstraintSolves::kAuto) == nullptr);
  CHECK(SparseKktSystem::Make(*small.dae, ConstraintSolves::kDense) == nullptr);
}

TEST_CASE("newmark-index3 on the sparse route follows the dense route", "[sparse]") {
  // n_four_bar N = 10 over 0.6 s (before the singular position at 0.71 s, where Newton
  // fails on both routes): 600 steps of 2 iterations. The routes solve the same equations
  // in a different order of operations; the final coordinates agreed to 7e-17 m, and 1e-12 m
  // leaves room for other machines' round-off while any wrong entry of the Newton matrix
  // would change the iteration count or the converged point by far more than that.
  const auto& [dense, sparse] =
      ExecuteOnBothRoutes("n_four_bar", "newmark-index3", {{"N", "10"}}, {{"h", "1e-3"}}, 0.6);
  REQUIRE(dense.status == RunStatus::kOk);
  REQUIRE(sparse.status == RunStatus::kOk);
  CHECK(FinalCoordinateDifference(sparse, dense) < 1e-12);
  CHECK(sparse.counters.newton_iterations == dense.counters.newton_iterations);
  CHECK(sparse.extra_metrics.at("newton_solves_sparse") == sparse.counters.newton_iterations);
  CHECK(sparse.extra_metrics.at("newton_solves_dense_fallback") == 0.0);
  CHECK(dense.extra_metrics.count("newton_solves_sparse") == 0);
}

TEST_CASE(
    "newmark-index3's sparse Newton system shifts and refines where Euler parameters "
    "make the elimination fail",
    "[sparse]") {
  // The flyball governor in Euler parameters: each body's 4 x 4 mass block 4 G^T J G has
  // rank 3 (the normalisation direction carries no inertia), so in the order "constraints
  // after their coordinates" the elimination meets an O(h^2) pivot and grows (backward
  // errors of 1e-10 to 1e-6 measured); the factor with K + 1e-8 max|K_ii| I and refinement
  // against the unshifted matrix (sparse_kkt_system.h) must then solve every pass, and the
  // run follow the dense LU's: final coordinates measured 2.4e-12 apart over 0.2 s (a pass
  // or two more in all, where a correction lands at round-off); 1e-10 is the margin, far
  // below the method's own error. Before the shift every pass went to the dense LU.
  const auto& [dense, sparse] =
      ExecuteOnBothRoutes("flyball_governor", "newmark-index3", {}, {}, 0.05);
  REQUIRE(dense.status == RunStatus::kOk);
  REQUIRE(sparse.status == RunStatus::kOk);
  CHECK(sparse.extra_metrics.at("newton_solves_dense_fallback") == 0.0);
  CHECK(sparse.extra_metrics.at("newton_solves_sparse") ==
        static_cast<double>(sparse.counters.newton_iterations));
  CHECK(FinalCoordinateDifference(sparse, dense) < 1e-10);
}

TEST_CASE(
    "newmark-index3's sparse Newton system imposes an independent subset of redundant "
    "rows",
    "[sparse]") {
  // Bricard: rank m - 1 on the manifold. Both routes impose the same 29 rows
  // (IndependentConstraintRows); over 2 s at h = 0.01 their final coordinates measured 7e-14
  // apart, with the same 598 passes and no dense pass on the sparse route; 1e-9 is the margin,
  // and a wrong row map (a dropped row imposed, or a kept one left out) would fail the run
  // or leave the 30th row violated by O(h^2).
  const auto& [dense, sparse] =
      ExecuteOnBothRoutes("bricard", "newmark-index3", {}, {{"h", "0.01"}}, 2.0);
  REQUIRE(dense.status == RunStatus::kOk);
  REQUIRE(sparse.status == RunStatus::kOk);
  CHECK(sparse.extra_metrics.at("newton_solves_dense_fallback") == 0.0);
  CHECK(sparse.metrics.position_residual_max < 1e-12);
  CHECK(FinalCoordinateDifference(sparse, dense) < 1e-9);
}

// n_four_bar whose Phi_q entries (read by the sparse routes only) lose their first row
// while t is in [0.3, 0.4): S = Phi_q Phi_q^T is singular there and the sparse route must
// refuse, so that those passes take the dense route.
class RefusingSparseDae final : public ForwardingDae {
 public:
  using ForwardingDae::ForwardingDae;
  void CalcPhiQEntries(DaeWorkspace& ws, double t, ConstVectorRef q,
                       double* values) const override {
    ForwardingDae::CalcPhiQEntries(ws, t, q, values);
    if (t < 0.3 || t >= 0.4) return;
    const auto& entries = constraint_jacobian_pattern().entries();
    for (size_t e = 0; e < entries.size(); ++e)
      if (entries[e].row == 0) values[e] = 0.0;
  }
};

struct LastState final : StepObserver {
  Vector q;
  void OnStep(const StepSample& sample) override { q = sample.q; }
};

// The runs the sparse-route tests compare: `method` with constraint_solves=dense and =sparse
// on p, and =sparse on p behind RefusingSparseDae; each ok, with its last coordinates.
struct ThreeRoutes {
  RunOutcome dense, sparse, refused;
  LastState dense_state, sparse_state, refused_state;
};
ThreeRoutes RunThreeRoutes(const char* method, const Problem& p, const RunSettings& settings) {
  auto run = [&](const Problem& problem, const char* solves, LastState& last) {
    const auto created = FindMethod(method).create(
        ParameterSet(std::map<std::string, std::string>{{"constraint_solves", solves}}));
    REQUIRE(created->CheckApplicable(problem).empty());
    return created->Run(problem, settings, last);
  };
  ThreeRoutes r;
  r.dense = run(p, "dense", r.dense_state);
  r.sparse = run(p, "sparse", r.sparse_state);
  Problem refusing = p;
  refusing.dae = std::make_shared<RefusingSparseDae>(p.dae);
  r.refused = run(refusing, "sparse", r.refused_state);
  REQUIRE(r.dense.status == RunStatus::kOk);
  REQUIRE(r.sparse.status == RunStatus::kOk);
  REQUIRE(r.refused.status == RunStatus::kOk);
  return r;
}

TEST_CASE(
    "tangent-newmark on the sparse route follows the dense route, and hands over the "
    "passes it refuses",
    "[sparse]") {
  // n_four_bar N = 10 over 0.5 s at h = 1e-3 (1000 passes): the routes solve the same
  // equations with a different basis of the tangent space and different solves, so they
  // agree to the round-off the iteration carries (measured: 6.5e-11 m over 1 s through the
  // singular position at 0.71 s, 1e-15 over 0.2 s); 1e-9 m is the margin, and a wrong term
  // of the pass would move the converged steps by the method's own error (1e-5 m) or more.
  Problem p =
      BuildProblem("n_four_bar", ParameterSet(std::map<std::string, std::string>{{"N", "10"}}));
  RunSettings settings;
  settings.h = 1e-3;
  settings.t_end = 0.5;
  const ThreeRoutes r = RunThreeRoutes("tangent-newmark", p, settings);
  const RunOutcome &dense = r.dense, &sparse = r.sparse, &refused = r.refused;
  CHECK(dense.extra_metrics.count("newton_solves_sparse") == 0);
  CHECK(sparse.extra_metrics.at("newton_solves_dense_fallback") == 0.0);
  CHECK(sparse.extra_metrics.at("newton_solves_sparse") ==
        static_cast<double>(sparse.counters.newton_iterations));
  // 100 steps in the window, two passes or more each.
  CHECK(refused.extra_metrics.at("newton_solves_dense_fallback") >= 200.0);
  CHECK((r.sparse_state.q - r.dense_state.q).lpNorm<Eigen::Infinity>() < 1e-9);
  CHECK((r.refused_state.q - r.dense_state.q).lpNorm<Eigen::Infinity>() < 1e-9);
}

}  // namespace
TEST_CASE(
    "null-space-em on the sparse route follows the dense route, and hands over the steps it "
    "refuses",
    "[sparse][energy-momentum]") {
  // The double four-bar in directors (30 coordinates, 29 constraints, 1 unknown) over 2 s at
  // h = 0.01, through the singular positions at 0.71 s and 1.22 s. Both routes solve the
  // same equations (10) for the same unknown in different bases with different solves, so
  // they agree to the Newton tolerance the steps carry (measured 1.1e-14 m over 2 s and
  // 1.6e-12 m over 10 s, with the same 792 Newton iterations; 9e-15 m with the 11 refused
  // steps); 1e-9 m is the margin, and a wrong basis or tangent map would move the steps by
  // the scheme's own error (1e-4 m) or stop Newton. The refusing DAE makes G G^T singular
  // for t in [0.3, 0.4): those steps (ten or more: a step refuses if t0, t_1/2 or t1 is in
  // the window) run dense.
  const Problem p = DirectorsProblem("double_four_bar");
  RunSettings settings;
  settings.h = 0.01;
  settings.t_end = 2.0;
  const ThreeRoutes r = RunThreeRoutes("null-space-em", p, settings);
  const RunOutcome &dense = r.dense, &sparse = r.sparse, &refused = r.refused;
  CHECK(dense.extra_metrics.count("steps_sparse") == 0);
  CHECK(sparse.extra_metrics.at("steps_dense_fallback") == 0.0);
  CHECK(sparse.extra_metrics.at("steps_sparse") == 200.0);
  CHECK(sparse.extra_metrics.at("newton_unknowns") == 1.0);
  CHECK(refused.extra_metrics.at("steps_dense_fallback") >= 10.0);
  CHECK(refused.extra_metrics.at("steps_sparse") +
            refused.extra_metrics.at("steps_dense_fallback") ==
        200.0);
  CHECK((r.sparse_state.q - r.dense_state.q).lpNorm<Eigen::Infinity>() < 1e-9);
  CHECK((r.refused_state.q - r.dense_state.q).lpNorm<Eigen::Infinity>() < 1e-9);
}

TEST_CASE("null-space-em's sparse route keeps the independent rows of Bricard's closure",
          "[sparse][energy-momentum]") {
  // Bricard in directors (60 coordinates; the closure leaves one of the 60 rows dependent):
  // both routes impose the rows IndependentConstraintRows keeps. Over 1 s at h = 0.01 the
  // routes measured 6e-15 m apart, with energy drifts of 3e-14 J; a wrong row map would
  // fail the factorisation (a dependent row kept) or leave a row violated by O(h^2).
  const auto& [dense, sparse] =
      ExecuteOnBothRoutes("bricard", "null-space-em", {}, {{"h", "0.01"}}, 1.0);
  REQUIRE(dense.status == RunStatus::kOk);
  REQUIRE(sparse.status == RunStatus::kOk);
  CHECK(sparse.extra_metrics.at("steps_dense_fallback") == 0.0);
  CHECK(sparse.metrics.position_residual_max < 1e-12);
  CHECK(sparse.metrics.energy_max_abs_drift < 1e-10);
  CHECK(FinalCoordinateDifference(sparse, dense) < 1e-9);
}

}  // namespace mbb
