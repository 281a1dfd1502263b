// Every derivative of every registered problem (and every form a choice parameter
// selects) against central finite differences; and the checker itself catches a wrong
// Jacobian.
#include <catch2/catch.hpp>

#include <algorithm>

#include "methods/common/acceleration_solver.h"
#include "problems/catalogue/model_helpers.h"
#include "problems/core/derivative_check.h"
#include "problems/core/problem.h"
#include "problems/model/formulation.h"
#include "tests/forwarding_dae.h"
#include "tests/problem_variants.h"

namespace mbb {
namespace {

// A deterministic state off the constraint manifold (derivatives hold everywhere).
void PerturbedState(const Problem& p, Vector& q, Vector& v, Vector& lambda) {
  const int n = p.n();
  q = p.q0 + 0.1 * Vector::LinSpaced(n, 0.3, -0.7);
  v = p.v0 + Vector::LinSpaced(n, 0.5, -1.1);
  lambda = Vector::LinSpaced(p.m(), 1.3, -0.4);
}

// A consistent state on the manifold: q0 with v0 plus a tangent velocity.
bool ConsistentSolution(const Problem& p, Vector& v, Vector& a, Vector& lambda) {
  auto ws = p.dae->MakeWorkspace();
  v = p.v0;
  if (p.m() > 0) {
    Matrix phi_q(p.m(), p.n());
    p.dae->CalcPhiQ(*ws, p.t0, p.q0, phi_q);
    Eigen::FullPivLU<Matrix> lu(phi_q);
    const Matrix z = lu.kernel();
    v += z * Vector::LinSpaced(z.cols(), 0.4, 0.9);
  } else {
    v += Vector::Constant(p.n(), 0.3);
  }
  a.resize(p.n());
  lambda.resize(p.m());
  AccelerationSolver solver(*p.dae, *ws);
  return solver.Solve(p.t0, p.q0, v, a, lambda);
}

}  // namespace

TEST_CASE("every problem's derivatives match central finite differences", "[derivatives]") {
  for (const auto& [id, params] : AllProblemVariants()) {
    std::string label = id;
    for (const auto& [k, v] : params.values()) label += " " + k + "=" + v;
    SECTION(label) {
      const Problem p = BuildProblem(id, params);
      Vector q, v, lambda;
      PerturbedState(p, q, v, lambda);
      const DerivativeReport off_manifold = CheckDerivatives(*p.dae, 0.3, q, v, lambda);
      INFO(label << " off the manifold\n" << off_manifold.Summary());
      CHECK(off_manifold.ok());

      // A model with zero-mass bodies (joint-tree, paper 004) has a singular M(q): no
      // acceleration solves it, so only the off-manifold check applies.
      bool zero_mass = false;
      if (p.structure)
        for (const auto& b : p.structure->model.bodies) zero_mass = zero_mass || b.mass == 0.0;
      if (zero_mass) return;
      Vector vc, a, lam;
      REQUIRE(ConsistentSolution(p, vc, a, lam));
      const DerivativeReport on_manifold = CheckDerivatives(*p.dae, p.t0, p.q0, vc, lam, &a, &lam);
      INFO(label << " on a solution\n" << on_manifold.Summary());
      CHECK(on_manifold.ok());
    }
  }
}

TEST_CASE("the compressed constraint Jacobians equal their column-by-column values",
          "[derivatives]") {
  // Phi_q comes from column groups (problems/core/jacobian_compression.h); here each column j is
  // recomputed on its own as the directional derivative (Phi_q e_j + Phi_t) - Phi_t, off the
  // manifold. A structural non-zero missed by the pattern would show as an O(1) entry.
  // (d/dt Phi_q uses the same groups; the finite-difference test above covers it.)
  for (const auto& [id, params] : AllProblemVariants()) {
    const Problem p = BuildProblem(id, params);
    if (p.m() == 0) continue;
    Vector q, v, lambda;
    PerturbedState(p, q, v, lambda);
    auto ws = p.dae->MakeWorkspace();
    const double t = 0.3;
    Matrix phi_q(p.m(), p.n()), column_wise(p.m(), p.n());
    Vector phi_t(p.m()), e(p.n()), col(p.m());
    p.dae->CalcPhiQ(*ws, t, q, phi_q);
    p.dae->CalcPhiT(*ws, t, q, phi_t);
    for (int j = 0; j < p.n(); ++j) {
      e.setZero();
      e[j] = 1.0;
      p.dae->CalcVelocityResidual(*ws, t, q, e, col);
      column_wise.col(j) = col - phi_t;
    }
    INFO(id);
    // One rounding of the Phi_t subtraction per entry, relative to the entry scale.
    CHECK((phi_q - column_wise).lpNorm<Eigen::Infinity>() <=
          1e-14 * (1.0 + phi_q.lpNorm<Eigen::Infinity>() + phi_t.lpNorm<Eigen::Infinity>()));
  }
}

TEST_CASE("the Newton matrix's entries equal the dense derivative matrices", "[derivatives]") {
  // tangent_pattern() with CalcMassMatrixEntries / CalcTangentStiffnessEntries against the
  // dense matrices (checked against finite differences above), scattered into n x n: a
  // structural non-zero missing from the pattern shows as an O(1) difference. The same AD
  // passes in a different summation order (the applied forces by column groups instead of
  // column by column): 1e-13 of the matrix scale is a few hundred roundings.
  for (const auto& [id, params] : AllProblemVariants()) {
    const Problem p = BuildProblem(id, params);
    if (!p.dae->capabilities().tangent_entries) continue;
    const TangentPattern* pattern = &p.dae->tangent_pattern();
    INFO(id << " " << params.values().size() << " parameters");
    const int n = p.n(), m = p.m();
    Vector q, v, lambda;
    PerturbedState(p, q, v, lambda);
    const Vector a = Vector::LinSpaced(n, -0.8, 1.7);
    const double t = 0.3;
    auto ws = p.dae->MakeWorkspace();
    Matrix mass(n, n), dma(n, n), reaction(n, n), dq(n, n), dv(n, n);
    p.dae->CalcMassMatrix(*ws, q, mass);
    p.dae->CalcMassTimesAccelerationJacobian(*ws, q, a, dma);
    p.dae->CalcReactionStiffness(*ws, t, q, lambda, reaction);
    p.dae->CalcForceJacobians(*ws, t, q, v, dq, dv);
    const Matrix stiffness = dma + reaction - dq, damping = -dv;

    const int entries = pattern->num_entries();
    std::vector<double> mass_values(entries), stiffness_values(entries), damping_values(entries);
    p.dae->CalcMassMatrixEntries(*ws, q, mass_values.data());
    p.dae->CalcTangentStiffnessEntries(*ws, t, q, v, a, lambda.head(m), stiffness_values.data(),
                                       damping_values.data());
    auto scatter = [&](const std::vector<double>& values) {
      Matrix out = Matrix::Zero(n, n);
      for (int k = 0; k < entries; ++k)
        out(pattern->entries()[k].row, pattern->entries()[k].col) = values[k];
      return out;
    };
    auto close = [](const Matrix& a, const Matrix& b) {
      return (a - b).lpNorm<Eigen::Infinity>() <= 1e-13 * (1.0 + b.lpNorm<Eigen::Infinity>());
    };
    CHECK(close(scatter(mass_values), mass));
    CHECK(close(scatter(stiffness_values), stiffness));
    CHECK(close(scatter(damping_values), damping));
  }
}

namespace {

// Wraps a correct DAE and corrupts one derivative, to test the checker.
class CorruptedDae final : public ForwardingDae {
 public:
  enum class Fault { kPhiQ, kForceJacobian, kGamma };
  CorruptedDae(std::shared_ptr<const MechanicalDae> inner, Fault fault)
      : ForwardingDae(std::move(inner)), fault_(fault) {}
  void CalcPhiQ(DaeWorkspace& w, double t, ConstVectorRef q, MatrixRef o) const override {
    ForwardingDae::CalcPhiQ(w, t, q, o);
    if (fault_ == Fault::kPhiQ) o(0, 0) *= 1.01;  // a 1 % slip in one entry
  }
  void CalcGamma(DaeWorkspace& w, double t, ConstVectorRef q, ConstVectorRef v,
                 VectorRef o) const override {
    ForwardingDae::CalcGamma(w, t, q, v, o);
    if (fault_ == Fault::kGamma) o *= 2.0;  // the classic "forgot the 1/2" slip
  }
  void CalcForceJacobians(DaeWorkspace& w, double t, ConstVectorRef q, ConstVectorRef v,
                          MatrixRef dq, MatrixRef dv) const override {
    ForwardingDae::CalcForceJacobians(w, t, q, v, dq, dv);
    if (fault_ == Fault::kForceJacobian) dq = -dq;  // a sign slip
  }
  // The corrupted matrices have no entry forms: the checker must see the dense ones.
  Capabilities capabilities() const override {
    Capabilities c = ForwardingDae::capabilities();
    c.constraint_pattern = c.phi_q_entries = c.gamma_jacobian_entries = c.tangent_entries = false;
    return c;
  }

 private:
  Fault fault_;
};

// True if exactly the named checks fail.
bool FailsOnly(const DerivativeReport& r, const std::vector<std::string>& quantities) {
  for (const auto& c : r.checks) {
    const bool named =
        std::find(quantities.begin(), quantities.end(), c.quantity) != quantities.end();
    if (c.ok() == named) return false;
  }
  return true;
}

}  // namespace

TEST_CASE("the planar formulation's hand-written Phi_q, d/dt Phi_q and gamma hold for every joint",
          "[derivatives]") {
  // The planar rows' first derivatives, their rates and gamma are written by hand
  // (planar_formulation.cc); the catalogue has revolute, prismatic and distance joints only.
  // Every planar joint kind and both driver kinds, between rotating bodies, ground and a
  // point mass, with joint points off the centres of mass (a term of R'(theta) s in every
  // row). Building the DAE compares them with dual numbers (EquationsDae throws an internal
  // error if they disagree); here they meet central differences. The mechanism need not be
  // assemblable: derivatives hold everywhere.
  ModelDescription m;
  m.dimension = 2;
  m.bodies = {PlanarBar("a", 1.0, 1.0, 0.1, 0.2, 0.3), PlanarBar("b", 2.0, 1.5, 1.1, 0.4, -0.6),
              PlanarBar("c", 1.5, 0.8, 2.0, -0.3, 1.1)};
  BodyDescription point;
  point.name = "p";
  point.kind = BodyKind::kPointMass;
  point.mass = 0.5;
  point.position = P(0.7, -1.2);
  m.bodies.push_back(point);
  auto joint = [&](const char* name, JointKind kind, const char* a, Eigen::Vector3d pa,
                   const char* b, Eigen::Vector3d pb) {
    m.joints.push_back(Joint(name, kind, a, pa, b, pb));
    m.joints.back().axis_a = P(0.6, 0.8);
    m.joints.back().length = 1.3;
  };
  joint("r", JointKind::kRevolute, "ground", P(0.2, -0.1), "a", P(-0.5, 0.1));
  joint("s", JointKind::kPrismatic, "a", P(0.4, 0.2), "b", P(-0.3, 0.2));
  joint("f", JointKind::kFixed, "b", P(0.7, -0.1), "c", P(-0.2, 0.3));
  joint("l", JointKind::kPointOnLine, "c", P(0.3, 0.1), "p", P(0, 0));
  joint("d", JointKind::kDistance, "a", P(-0.2, 0.3), "c", P(0.1, -0.4));
  joint("g", JointKind::kPointOnLine, "ground", P(0.5, 0.5), "b", P(0.2, 0.1));
  TimeLaw law;
  law.offset = 0.1, law.rate = 0.4, law.amplitude = 0.3, law.frequency = 2.0, law.phase = 0.5;
  m.drivers.push_back({"angle", DriverKind::kRelativeAngle, "a", "c", "", law});
  m.drivers.push_back({"x", DriverKind::kCoordinate, "", "", "", law});
  m.drivers.back().body_a = "p", m.drivers.back().coordinate = "x";
  ValidatePlanarModel(m);
  const FormulatedModel model = FormulatePlanar(m);
  const MechanicalDae& dae = *model.dae;
  REQUIRE(dae.num_constraints() == 2 + 2 + 3 + 1 + 1 + 1 + 2);
  const int n = dae.num_coordinates();
  const Vector q = model.q_guess + 0.1 * Vector::LinSpaced(n, 0.3, -0.7);
  const Vector v = Vector::LinSpaced(n, 0.5, -1.1);
  const Vector lambda = Vector::LinSpaced(dae.num_constraints(), 1.3, -0.4);
  const DerivativeReport report = CheckDerivatives(dae, 0.3, q, v, lambda);
  INFO(report.Summary());
  CHECK(report.ok());
}

TEST_CASE("the derivative checker catches a wrong derivative", "[derivatives]") {
  const Problem p = BuildProblem("physical_pendulum", ParameterSet());
  Vector q, v, lambda;
  PerturbedState(p, q, v, lambda);
  REQUIRE(CheckDerivatives(*p.dae, 0.3, q, v, lambda).ok());

  const CorruptedDae wrong_phi_q(p.dae, CorruptedDae::Fault::kPhiQ);
  const auto r1 = CheckDerivatives(wrong_phi_q, 0.3, q, v, lambda);
  INFO(r1.Summary());
  // Phi_q enters the velocity-residual consistency check too.
  CHECK(FailsOnly(r1, {"Phi_q", "Phi_q v + Phi_t"}));

  // The physical pendulum's forces are constant; the minimal stiff pendulum's are not.
  ParameterSet minimal;
  minimal.Set("form", "minimal");
  const Problem pm = BuildProblem("stiff_pendulum", minimal);
  Vector qm, vm, lm;
  PerturbedState(pm, qm, vm, lm);
  const CorruptedDae wrong_dq(pm.dae, CorruptedDae::Fault::kForceJacobian);
  const auto r2 = CheckDerivatives(wrong_dq, 0.3, qm, vm, lm);
  INFO(r2.Summary());
  CHECK(FailsOnly(r2, {"dQ/dq"}));

  const CorruptedDae wrong_gamma(p.dae, CorruptedDae::Fault::kGamma);
  const auto r3 = CheckDerivatives(wrong_gamma, 0.3, q, v, lambda);
  INFO(r3.Summary());
  CHECK(FailsOnly(r3, {"gamma"}));
}

}  // namespace mbb
