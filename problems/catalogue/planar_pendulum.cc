// Planar point-mass pendulum in Cartesian coordinates (x, z): paper 000, section 3.1,
// eq. (30). Gravity along -z. The paper leaves M and l free; docs/problems.md fixes M = 1 kg,
// l = 1 m, g = 9.81, start horizontal at rest (x = l, z = 0), 10 s.
#include "problems/catalogue/catalogue_entries.h"
#include "problems/catalogue/hand_written_structure.h"
#include "problems/catalogue/model_helpers.h"
#include "problems/core/equations_dae.h"

namespace mbb {
namespace {

// The mechanism: a point mass on a massless rod to the origin; the model's (x, y) are the
// paper's (x, z).
std::shared_ptr<ModelStructure> Structure(double mass, double length, double gravity) {
  ModelDescription m;
  m.title = "planar pendulum";
  m.dimension = 2;
  BodyDescription bob;
  bob.name = "bob";
  bob.kind = BodyKind::kPointMass;
  bob.mass = mass;
  bob.position = P(length, 0.0);
  m.bodies.push_back(bob);
  JointDescription rod = Joint("rod", JointKind::kDistance, "ground", P(0, 0), "bob", P(0, 0));
  rod.length = length;
  m.joints.push_back(rod);
  m.forces.push_back(Gravity(P(0, -gravity)));
  return HandWrittenStructure(m, true, {OwnedRows(ConstraintRows::Owner::kJoint, 0, "rod", 0, 1)},
                              ChainTree({-1}, {0}));
}

struct PlanarPendulumEquations : EquationDefaults {
  double mass, length, gravity;
  static constexpr bool kConstantMass = true;
  int num_coordinates() const { return 2; }
  int num_constraints() const { return 1; }

  template <class T>
  void Constraints(const T& /*t*/, const T* q, T* phi) const {
    phi[0] = q[0] * q[0] + q[1] * q[1] - length * length;  // eq. (30c)
  }
  template <class T>
  void MassMatrix(const T* /*q*/, T* m) const {
    m[0] = T(mass);
    m[3] = T(mass);
  }
  template <class T>
  T Potential(const T& /*t*/, const T* q) const {
    return mass * gravity * q[1];  // gives the -M g of eq. (30b)
  }
};

Problem Build(const ParameterSet& p) {
  PlanarPendulumEquations eq;
  eq.mass = p.GetDouble("mass");
  eq.length = p.GetDouble("length");
  eq.gravity = p.GetDouble("g");
  RequirePositive(eq.mass, "mass");
  RequirePositive(eq.length, "length");
  Problem problem;
  problem.dae = MakeDae(eq);
  problem.t_end = 10.0;
  problem.h_default = 1e-3;
  problem.q0 = Vector::Zero(2);
  problem.q0[0] = eq.length;
  problem.v0 = Vector::Zero(2);
  problem.structure = Structure(eq.mass, eq.length, eq.gravity);
  problem.output_names = {"x", "z"};
  problem.calc_outputs = [](double, const Vector& q, const Vector&, Vector& out) {
    out[0] = q[0];
    out[1] = q[1];
  };
  problem.default_methods = {"ida", "odeint-dopri5", "arkode-erk", "simbody"};
  return problem;
}

}  // namespace

ProblemEntry PlanarPendulumEntry() {
  return {"planar_pendulum",
          "point mass on a rod in (x, z), horizontal start",
          "000 s3.1 eq 30",
          {{"mass", "1", "M, kg", {}},
           {"length", "1", "l, m", {}},
           {"g", "9.81", "gravity along -z, m/s^2", {}}},
          Build};
}

}  // namespace mbb
