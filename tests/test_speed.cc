// The structural shortcuts that make derivatives and steps cost what they should
// (docs/performance.md): they must find the structure, and the runs they speed up must
// still behave. No test here asserts a time.
#include <catch2/catch.hpp>

#include "harness/runner.h"
#include "problems/core/equations_dae.h"
#include "tests/run_spec.h"

namespace mbb {
namespace {

// V = 3 q0 + q1^2 + q1 q2 in three coordinates, no constraints: q0 enters linearly (like
// uniform gravity), q1 and q2 have non-zero Hessian rows.
struct MixedPotential : EquationDefaults {
  static constexpr bool kConstantMass = true;
  int num_coordinates() const { return 3; }
  int num_constraints() const { return 0; }
  template <class T>
  void Constraints(const T&, const T*, T*) const {}
  template <class T>
  void MassMatrix(const T*, T* mass) const {
    for (int i = 0; i < 3; ++i) mass[i + 3 * i] = T(1.0);
  }
  template <class T>
  T Potential(const T&, const T* q) const {
    return 3.0 * q[0] + q[1] * q[1] + q[1] * q[2];
  }
};

TEST_CASE("the Hessian of V is evaluated only on its structurally non-zero rows", "[speed]") {
  const EquationsDae<MixedPotential> dae{MixedPotential{}};
  CHECK(dae.potential_hessian_coordinates() == std::vector<int>{1, 2});
  auto ws = dae.MakeWorkspace();
  const Vector q = Vector::Constant(3, 0.5), v = Vector::Zero(3);
  Matrix dq(3, 3), dv(3, 3);
  dae.CalcForceJacobians(*ws, 0.0, q, v, dq, dv);
  // -Hessian of V, exact: row and column 0 are zero, [[2, 1], [1, 0]] on q1, q2.
  Matrix expected = Matrix::Zero(3, 3);
  expected(1, 1) = -2.0;
  expected(1, 2) = expected(2, 1) = -1.0;
  CHECK((dq - expected).cwiseAbs().maxCoeff() == 0.0);
  Vector forces(3);
  dae.CalcForces(*ws, 0.0, q, v, forces);
  CHECK(forces[0] == -3.0);  // the linear coordinate keeps its gradient
  CHECK(forces[1] == -(2.0 * 0.5 + 0.5));
  CHECK(forces[2] == -0.5);
}

// V = t q0 + 2 q1: both linear in q, but dV/dq0 changes with t, so only q1's gradient may be
// stored (DetectPotentialStructure); a stored q0 gradient would give the force at the
// detection's time at every t.
struct TimeVaryingLinearPotential : EquationDefaults {
  static constexpr bool kConstantMass = true;
  int num_coordinates() const { return 2; }
  int num_constraints() const { return 0; }
  template <class T>
  void Constraints(const T&, const T*, T*) const {}
  template <class T>
  void MassMatrix(const T*, T* mass) const {
    mass[0] = mass[3] = T(1.0);
  }
  template <class T>
  T Potential(const T& t, const T* q) const {
    return t * q[0] + 2.0 * q[1];
  }
};

TEST_CASE("a stored potential gradient is one that depends on neither q nor t", "[speed]") {
  const EquationsDae<TimeVaryingLinearPotential> dae{TimeVaryingLinearPotential{}};
  auto ws = dae.MakeWorkspace();
  const Vector q = Vector::Constant(2, 0.5), v = Vector::Zero(2);
  Vector forces(2);
  for (const double t : {0.0, 1.5, -3.0}) {
    dae.CalcForces(*ws, t, q, v, forces);
    CHECK(forces[0] == -t);
    CHECK(forces[1] == -2.0);
  }
}

// Phi_0 = q0 + 2 q1 (linear), Phi_1 = q2^2 + t q0 (curved in q2 only; q0 enters linearly
// but its column of Phi_q changes with t). Phi_q's column groups: {q0}, {q1, q2}.
struct MixedConstraints : EquationDefaults {
  static constexpr bool kConstantMass = true;
  int num_coordinates() const { return 3; }
  int num_constraints() const { return 2; }
  template <class T>
  void Constraints(const T& t, const T* q, T* phi) const {
    phi[0] = q[0] + 2.0 * q[1];
    phi[1] = q[2] * q[2] + t * q[0];
  }
  template <class T>
  void MassMatrix(const T*, T* mass) const {
    for (int i = 0; i < 3; ++i) mass[i + 3 * i] = T(1.0);
  }
  template <class T>
  T Potential(const T&, const T*) const {
    return T(0.0);
  }
};

TEST_CASE("second-order constraint passes only where a second derivative can be non-zero",
          "[speed]") {
  const EquationsDae<MixedConstraints> dae{MixedConstraints{}};
  REQUIRE(dae.constraint_jacobian_passes() == 2);
  // Of the three group pairs only ({q1, q2}, {q1, q2}) curves (d^2 Phi_1 / dq2^2 = 2); both
  // groups of d/dt Phi_q move (Phi_1,q0t = 1 and Phi_1,q2q2 v2), at v = 0 only {q0}.
  CHECK(dae.constraint_hessian_passes() == 1);
  CHECK(dae.constraint_rate_passes() == 2);
  CHECK(dae.constraint_rate_passes(/*at_rest=*/true) == 1);
  auto ws = dae.MakeWorkspace();
  const Vector q = Vector::Constant(3, 0.5), v = Vector::LinSpaced(3, 1.0, 3.0);
  const Vector lambda = Vector::LinSpaced(2, -1.0, 4.0);
  Matrix reaction(3, 3), rate(2, 3);
  dae.CalcReactionStiffness(*ws, 0.7, q, lambda, reaction);
  Matrix expected = Matrix::Zero(3, 3);
  expected(2, 2) = 2.0 * lambda[1];
  CHECK((reaction - expected).cwiseAbs().maxCoeff() == 0.0);
  dae.CalcPhiQDot(*ws, 0.7, q, v, rate);
  expected = Matrix::Zero(2, 3);
  expected(1, 0) = 1.0;
  expected(1, 2) = 2.0 * v[2];
  CHECK((rate - expected).cwiseAbs().maxCoeff() == 0.0);
  dae.CalcPhiQDot(*ws, 0.7, q, Vector::Zero(3), rate);  // Phi_qt
  expected(1, 2) = 0.0;
  CHECK((rate - expected).cwiseAbs().maxCoeff() == 0.0);
}

TEST_CASE("a gravity-only model has no Hessian pass", "[speed]") {
  const Problem p = BuildSpecProblem(Spec("n_four_bar", "odeint-rk4", {{"N", "3"}}, {}, 0.0));
  // Uniform gravity is linear in q: the model layer's EquationsDae detects no coordinate
  // with a Hessian row, so CalcForceJacobians makes no second-order pass (its values are
  // what the derivative test checks against finite differences for every problem).
  const auto* detected = dynamic_cast<const DetectedEquationsStructure*>(p.dae.get());
  REQUIRE(detected != nullptr);
  CHECK(detected->detected_structure().hessian_columns.empty());
  // Every coordinate's gradient (m g on the heights) is stored as a constant: no pass at all.
  CHECK(detected->detected_structure().varying_gradient_columns.empty());
  CHECK_FALSE(detected->detected_structure().constant_gradient_columns.empty());
}

// Redundant constraints: Bricard's Phi_q has rank 29 of 30 rows on the manifold. Before the
// rank cap (first_order_ode.h) a Runge-Kutta stage off the manifold made the redundant row
// independent and Dormand-Prince rejected 0.97 steps per accepted step (43551 / 45094 over
// 10 s at rtol 1e-10). With a smooth right-hand side the controller (safety factor 0.9)
// rejects a few per cent; 0.1 separates the two regimes by a wide margin either way.
TEST_CASE("Dormand-Prince rejects few steps on the overconstrained Bricard linkage", "[speed]") {
  const RunRecord r = Execute(Spec("bricard", "odeint-dopri5", {}, {}, 2.0));
  REQUIRE(r.status == RunStatus::kOk);
  CHECK(r.counters.rejected_steps < 0.1 * r.counters.steps);
  // The tolerance is still met: rtol 1e-10 over 2 s; 1e-7 m leaves three orders of
  // magnitude for error growth over the horizon (the reference has 10 digits).
  REQUIRE(r.metrics.error.has_value());
  CHECK(r.metrics.error->position_max_abs < 1e-7);
}

}  // namespace
}  // namespace mbb
