// Physical pendulum of paper 003, section 3: body G with q = [x, y, gamma],
// M = diag(m, m, J), constraints Phi1 = x - rho cos(gamma), Phi2 = y - rho sin(gamma)
// (the pivot at the origin, rho the distance pivot-centre of mass). The paper states no
// data; the suite uses a uniform 1 m rod pivoted at one end: m = 1 kg, rho = 0.5 m,
// J = m (2 rho)^2 / 12 about the centre of mass, gravity 9.81 along -y, released at rest
// from gamma0 = 0 (horizontal), 10 s. The projective criterion of eq. (26) is exact here.
#include "problems/catalogue/catalogue_entries.h"
#include "problems/catalogue/hand_written_structure.h"
#include "problems/catalogue/model_helpers.h"
#include "problems/core/equations_dae.h"

namespace mbb {
namespace {

struct PhysicalPendulumEquations : EquationDefaults {
  double mass, rho, inertia, gravity;
  static constexpr bool kConstantMass = true;
  int num_coordinates() const { return 3; }
  int num_constraints() const { return 2; }
  template <class T>
  void Constraints(const T&, const T* q, T* phi) const {
    using std::cos;
    using std::sin;
    phi[0] = q[0] - rho * cos(q[2]);
    phi[1] = q[1] - rho * sin(q[2]);
  }
  template <class T>
  void MassMatrix(const T*, T* m) const {
    m[0] = T(mass);
    m[4] = T(mass);
    m[8] = T(inertia);
  }
  template <class T>
  T Potential(const T&, const T* q) const {
    return mass * gravity * q[1];
  }
};

// The mechanism: a rigid body on a revolute joint at the origin, rho behind its centre of
// mass along its body x axis (gamma is the body angle).
std::shared_ptr<ModelStructure> Structure(const PhysicalPendulumEquations& eq, double gamma0) {
  ModelDescription m;
  m.title = "physical pendulum";
  m.dimension = 2;
  BodyDescription rod;
  rod.name = "rod";
  rod.mass = eq.mass;
  rod.inertia(0, 0) = eq.inertia;
  rod.position = P(eq.rho * std::cos(gamma0), eq.rho * std::sin(gamma0));
  rod.angle = gamma0;
  m.bodies.push_back(rod);
  m.joints.push_back(Joint("pivot", JointKind::kRevolute, "ground", P(0, 0), "rod", P(-eq.rho, 0)));
  m.forces.push_back(Gravity(P(0, -eq.gravity)));
  return HandWrittenStructure(m, true, {OwnedRows(ConstraintRows::Owner::kJoint, 0, "pivot", 0, 2)},
                              ChainTree({-1}, {0}));
}

Problem Build(const ParameterSet& p) {
  PhysicalPendulumEquations eq;
  eq.mass = p.GetDouble("mass");
  eq.rho = p.GetDouble("rho");
  eq.inertia = p.Has("J") ? p.GetDouble("J") : eq.mass * 4.0 * eq.rho * eq.rho / 12.0;
  eq.gravity = p.GetDouble("g");
  RequirePositive(eq.mass, "mass");
  RequirePositive(eq.rho, "rho");
  RequirePositive(eq.inertia, "J");
  const double gamma0 = p.GetDouble("gamma0");
  Problem problem;
  problem.dae = MakeDae(eq);
  problem.t_end = 10.0;
  problem.h_default = 1e-3;
  problem.q0 = Vector(3);
  problem.q0 << eq.rho * std::cos(gamma0), eq.rho * std::sin(gamma0), gamma0;
  problem.coordinate_periods = {0.0, 0.0, 2.0 * M_PI};  // gamma
  problem.v0 = Vector::Zero(3);
  problem.structure = Structure(eq, gamma0);
  problem.output_names = {"x", "y", "gamma"};
  problem.coordinate_names = problem.output_names;
  problem.calc_outputs = [](double, const Vector& q, const Vector&, Vector& out) { out = q; };
  problem.default_methods = {"ida", "odeint-dopri5", "arkode-erk", "simbody"};
  return problem;
}

}  // namespace

ProblemEntry PhysicalPendulumEntry() {
  return {"physical_pendulum",
          "rigid rod pivoted at one end in (x, y, gamma)",
          "003 s3 eq 26",
          {{"mass", "1", "m, kg", {}},
           {"rho", "0.5", "pivot to centre of mass, m", {}},
           {"J", "", "inertia about the centre of mass, kg m^2 (default m (2 rho)^2 / 12)", {}},
           {"g", "9.81", "gravity along -y, m/s^2", {}},
           {"gamma0", "0", "initial angle from +x, rad", {}}},
          Build};
}

}  // namespace mbb
