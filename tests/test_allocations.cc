// "Inner loops allocate nothing": counts heap allocations (operator new and malloc) in the
// calls a step loop makes, after a warm-up call. Its own executable, because the counter
// (conformance/allocation_counter.cc) replaces operator new for the whole program.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "conformance/allocation_counter.h"
#include "methods/common/acceleration_solver.h"
#include "methods/common/first_order_ode.h"
#include "methods/method.h"
#include "methods/qr/qr_projection.h"
#include "problems/core/constraint_factorization.h"
#include "problems/core/constraint_projection.h"
#include "problems/core/problem.h"

namespace mbb {
namespace {

using conformance::AllocationCount;

template <class F>
long AllocationsIn(F&& f) {
  f();  // warm-up: first calls may size buffers
  const long before = AllocationCount();
  for (int k = 0; k < 10; ++k) f();
  return AllocationCount() - before;
}

}  // namespace

namespace {

// Allocations in a position and velocity projection from q perturbed.
long ProjectionAllocations(ConstraintProjector& projector, const Vector& q, Vector v) {
  Vector qp = q;
  return AllocationsIn([&] {
    qp = q;
    qp[0] += 1e-6;
    projector.ProjectPositions(0.1, qp, 1e-14, 5);
    projector.ProjectVelocities(0.1, qp, v);
  });
}

// Allocations in a right-hand side and a projection of the ODE form (default options).
long OdeFormAllocations(const Problem& p) {
  const int n = p.n();
  FirstOrderOde ode(p, OdeFormOptions{});
  std::vector<double> y(2 * n, 0.0), dydt(2 * n);
  Eigen::Map<Vector>(y.data(), n) = p.q0;
  return AllocationsIn([&] {
    ode.Rhs(0.1, y.data(), dydt.data());
    ode.Project(0.1, y.data());
  });
}

// Allocations in a run of `steps` fixed steps of h (status ok required).
long RunAllocations(const Method& method, const Problem& p, double h, int steps,
                    RunOutcome* outcome = nullptr) {
  RunSettings s;
  s.h = h;
  s.t_end = steps * h;
  NullObserver observer;
  const long before = AllocationCount();
  const RunOutcome result = method.Run(p, s, observer);
  const long allocations = AllocationCount() - before;
  REQUIRE(result.status == RunStatus::kOk);
  if (outcome) *outcome = result;
  return allocations;
}

}  // namespace

TEST_CASE("DAE evaluations, the acceleration solve and projection do not allocate",
          "[allocations]") {
  // Hand-written DAEs, and the joint-tree formulation: a spatial tree (gyro_top), loops
  // closed by constraints on their cut joints in the plane (four_bar) and in space (bricard).
  using Params = std::map<std::string, std::string>;
  const std::vector<std::pair<std::string, Params>> problems = {
      {"stiff_pendulum", {}},
      {"spatial_pendulum", {}},
      {"physical_pendulum", {}},
      {"gyro_top", {{"formulation", "joint-tree"}}},
      {"four_bar", {{"formulation", "joint-tree"}}},
      {"bricard", {{"formulation", "joint-tree"}}}};
  for (const auto& [id, params] : problems) {
    const Problem p = BuildProblem(id, ParameterSet(params));
    const MechanicalDae& dae = *p.dae;
    auto ws = dae.MakeWorkspace();
    const int n = p.n(), m = p.m();
    Vector q = p.q0, v = Vector::Constant(n, 0.1), a(n), lambda(m), phi(m), gamma(m), f(n);
    Matrix phi_q(m, n), k(n, n), dq(n, n), dv(n, n), mass(n, n);
    INFO(id);
    CHECK(AllocationsIn([&] {
            dae.CalcPhi(*ws, 0.1, q, phi);
            dae.CalcPhiQ(*ws, 0.1, q, phi_q);
            dae.CalcGamma(*ws, 0.1, q, v, gamma);
            dae.CalcVelocityResidual(*ws, 0.1, q, v, phi);
            dae.CalcPhiQDot(*ws, 0.1, q, v, phi_q);
            dae.CalcReactionStiffness(*ws, 0.1, q, lambda, k);
            dae.CalcMassMatrix(*ws, q, mass);
            dae.CalcForces(*ws, 0.1, q, v, f);
            dae.CalcForceJacobians(*ws, 0.1, q, v, dq, dv);
            dae.CalcMassTimesAccelerationJacobian(*ws, q, v, k);
            (void)dae.CalcEnergy(*ws, 0.1, q, v);
          }) == 0);

    ConstraintFactorization factorization(m, n), householder_only(m, n);
    Vector x(n), b = phi_q * q;
    CHECK(AllocationsIn([&] {
            factorization.Compute(phi_q);
            factorization.FormBases();
            factorization.SolveMinimumNorm(b, x);
            factorization.SolveMultipliers(x, lambda);
            householder_only.Compute(phi_q, m);
            householder_only.SolveMinimumNorm(b, x);
            householder_only.SolveMultipliers(x, lambda);
          }) == 0);

    AccelerationSolver solver(dae, *ws);
    CHECK(AllocationsIn([&] { solver.Solve(0.1, q, v, a, lambda); }) == 0);

    ConstraintProjector projector(dae, *ws);
    CHECK(ProjectionAllocations(projector, q, v) == 0);
    CHECK(OdeFormAllocations(p) == 0);
  }
}

TEST_CASE("the sparse constraint solves do not allocate", "[allocations]") {
  // n_four_bar N = 20 (123 coordinates): past the `auto` threshold, so the ODE form takes
  // the sparse route by default.
  const Problem p =
      BuildProblem("n_four_bar", ParameterSet(std::map<std::string, std::string>{{"N", "20"}}));
  const MechanicalDae& dae = *p.dae;
  auto ws = dae.MakeWorkspace();
  const int n = p.n(), m = p.m();
  Vector q = p.q0, v = Vector::Constant(n, 0.1), a(n), lambda(m);
  AccelerationSolver solver(dae, *ws, {}, ConstraintSolves::kAuto);
  CHECK(AllocationsIn([&] { solver.Solve(0.1, q, v, a, lambda); }) == 0);
  CHECK(solver.last_solve_sparse());
  ConstraintProjector projector(dae, *ws, ConstraintSolves::kAuto);
  CHECK(ProjectionAllocations(projector, q, v) == 0);
  CHECK(projector.last_rank() == m);
  CHECK(OdeFormAllocations(p) == 0);  // OdeFormOptions' default: auto
}

TEST_CASE("newmark-index3 and tangent-newmark on their sparse routes do not allocate per step",
          "[allocations]") {
  // n_four_bar N = 20 (123 coordinates): past the `auto` threshold. A run of 2N steps makes
  // exactly as many allocations as a run of N steps.
  const Problem p =
      BuildProblem("n_four_bar", ParameterSet(std::map<std::string, std::string>{{"N", "20"}}));
  for (const char* name : {"newmark-index3", "tangent-newmark"}) {
    const auto method = FindMethod(name).create(ParameterSet());
    RunOutcome outcome;
    RunAllocations(*method, p, 1e-3, 10, &outcome);  // warm-up
    INFO(name);
    REQUIRE(outcome.extra_metrics.at("newton_solves_sparse") > 0.0);
    CHECK(RunAllocations(*method, p, 1e-3, 50) == RunAllocations(*method, p, 1e-3, 100));
  }
}

TEST_CASE("continued-qr and traditional-qr steps do not allocate", "[allocations]") {
  // A run of 2N steps makes exactly as many allocations as a run of N steps (Begin sizes
  // every buffer); slider_crank_3d has 20 constraints, so the general exp(Omega h) is used.
  const Problem p = BuildProblem("slider_crank_3d", ParameterSet());
  for (const bool continued : {true, false}) {
    QrOptions o;
    o.continuation = continued ? QrContinuation::kExponential : QrContinuation::kNone;
    QrProjectionMethod method(o);
    RunAllocations(method, p, 1e-4, 10);  // warm-up
    INFO((continued ? "continued" : "traditional"));
    CHECK(RunAllocations(method, p, 1e-4, 50) == RunAllocations(method, p, 1e-4, 100));
  }
}

TEST_CASE("continued-qr with SVD / eigen bases and the adaptive QR variants do not allocate",
          "[allocations]") {
  // As above: a longer run (more steps; adaptive: more accepted and rejected trials) makes
  // exactly as many allocations as a shorter one.
  const Problem p = BuildProblem("slider_crank_3d", ParameterSet());
  struct Variant {
    const char* name;
    QrOptions options;
  };
  std::vector<Variant> variants;
  for (const QrBasis b : {QrBasis::kSvd, QrBasis::kEigen}) {
    for (const QrContinuation c : {QrContinuation::kExponential, QrContinuation::kFirstOrder}) {
      QrOptions o;
      o.continuation = c;
      o.basis = b;
      variants.push_back({"continued svd/eigen", o});
    }
  }
  for (const QrContinuation c : {QrContinuation::kExponential, QrContinuation::kNone}) {
    QrOptions o;
    o.continuation = c;
    o.adaptive = true;
    variants.push_back({"adaptive", o});
  }
  for (const Variant& variant : variants) {
    QrProjectionMethod method(variant.options);
    auto allocations = [&](double t_end) {
      RunSettings s;
      s.h = 1e-4;  // the first step of the adaptive runs
      s.t_end = t_end;
      s.rtol = 1e-10;
      s.atol = 1e-12;
      NullObserver observer;
      const long before = AllocationCount();
      const RunOutcome outcome = method.Run(p, s, observer);
      REQUIRE(outcome.status == RunStatus::kOk);
      return std::make_pair(AllocationCount() - before, outcome.counters.steps);
    };
    allocations(1e-3);  // warm-up
    const auto shorter = allocations(5e-3), longer = allocations(1e-2);
    INFO(variant.name << " basis " << static_cast<int>(variant.options.basis) << " steps "
                      << shorter.second << " / " << longer.second);
    CHECK(longer.second > shorter.second);
    CHECK(shorter.first == longer.first);
  }
}

}  // namespace mbb
