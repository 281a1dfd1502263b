// Spherical point-mass pendulum in Cartesian coordinates (x, y, z): paper 000, section 3.3,
// eq. (49). M = 1 kg, l = 0.08 m, r0 = [0.08, 0, 0] m, v0 = [0, 0.7895, 0] m/s, g = 9.81
// along -z (paper text; docs/reproduction.md, 000). Horizon 10 s, h = 1e-3 as in the paper.
#include "problems/catalogue/catalogue_entries.h"
#include "problems/catalogue/hand_written_structure.h"
#include "problems/catalogue/model_helpers.h"
#include "problems/core/equations_dae.h"

namespace mbb {
namespace {

struct SpatialPendulumEquations : EquationDefaults {
  double mass, length, gravity;
  static constexpr bool kConstantMass = true;
  int num_coordinates() const { return 3; }
  int num_constraints() const { return 1; }

  template <class T>
  void Constraints(const T& /*t*/, const T* q, T* phi) const {
    phi[0] = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] - length * length;  // eq. (49b)
  }
  template <class T>
  void MassMatrix(const T* /*q*/, T* m) const {
    m[0] = m[4] = m[8] = T(mass);
  }
  template <class T>
  T Potential(const T& /*t*/, const T* q) const {
    return mass * gravity * q[2];
  }
};

// The mechanism: a point mass on a massless rod to the origin.
std::shared_ptr<ModelStructure> Structure(const SpatialPendulumEquations& eq, const Vector& v0) {
  ModelDescription m;
  m.title = "spatial pendulum";
  m.dimension = 3;
  BodyDescription bob;
  bob.name = "bob";
  bob.kind = BodyKind::kPointMass;
  bob.mass = eq.mass;
  bob.position = P(eq.length, 0, 0);
  bob.velocity = v0;
  m.bodies.push_back(bob);
  JointDescription rod =
      Joint("rod", JointKind::kDistance, "ground", P(0, 0, 0), "bob", P(0, 0, 0));
  rod.length = eq.length;
  m.joints.push_back(rod);
  m.forces.push_back(Gravity(P(0, 0, -eq.gravity)));
  return HandWrittenStructure(m, true, {OwnedRows(ConstraintRows::Owner::kJoint, 0, "rod", 0, 1)},
                              ChainTree({-1}, {0}));
}

Problem Build(const ParameterSet& p) {
  SpatialPendulumEquations eq;
  eq.mass = p.GetDouble("mass");
  eq.length = p.GetDouble("length");
  eq.gravity = p.GetDouble("g");
  RequirePositive(eq.mass, "mass");
  RequirePositive(eq.length, "length");
  Problem problem;
  problem.dae = MakeDae(eq);
  problem.t_end = 10.0;
  problem.h_default = 1e-3;
  problem.q0 = Vector::Zero(3);
  problem.q0[0] = eq.length;
  problem.v0 = Vector::Zero(3);
  problem.v0[1] = p.GetDouble("v0");
  problem.structure = Structure(eq, problem.v0);
  problem.output_names = {"x", "y", "z"};
  problem.calc_outputs = [](double, const Vector& q, const Vector&, Vector& out) { out = q; };
  problem.default_methods = {"ida", "odeint-dopri5", "arkode-erk"};
  return problem;
}

}  // namespace

ProblemEntry SpatialPendulumEntry() {
  return {"spatial_pendulum",
          "spherical point-mass pendulum in (x, y, z)",
          "000 s3.3 eq 49",
          {{"mass", "1", "M, kg", {}},
           {"length", "0.08", "l, m", {}},
           {"v0", "0.7895", "initial speed along +y, m/s", {}},
           {"g", "9.81", "gravity along -z, m/s^2", {}}},
          Build};
}

}  // namespace mbb
