// Double pendulum with torsional spring-dampers in both revolute joints: paper 001,
// section 6 (Negrut's example, Figs 14-22). Negrut's data are not given in paper 001 or any
// source we could reach; docs/problems.md fixes the substitute used here: two uniform bars,
// L = 1 m, m = 1 kg, J = m L^2/12 about the centre; torsional springs k = 10 N m/rad and
// dampers c = 0.1 N m s/rad in both joints, at rest when the links hang straight down;
// g = 9.81 along -y; both links start horizontal, at rest; 10 s.
//
// Planar body coordinates q = [x1, y1, th1, x2, y2, th2] (centre of mass and absolute angle
// from the downward vertical, link direction u(th) = (sin th, -cos th)); revolute joints
// ground-link 1 at the origin and link 1-link 2 at the tip of link 1 (4 constraints):
//   r1 - (L/2) u(th1) = 0,   r2 - (L/2) u(th2) - r1 - (L/2) u(th1) = 0.
// The spring-damper torques are applied forces (their power enters the energy balance);
// the joint-2 torque acts with opposite signs on the two links. Parameter `k` selects the
// stiffness (docs/problems.md: also a stiff variant, k of order 1e5 N m/rad).
#include "problems/catalogue/catalogue_entries.h"
#include "problems/catalogue/hand_written_structure.h"
#include "problems/catalogue/model_helpers.h"
#include "problems/core/equations_dae.h"

namespace mbb {
namespace {

struct DoublePendulumEquations : EquationDefaults {
  double mass, length, inertia, gravity, stiffness, damping;
  static constexpr bool kConstantMass = true;
  int num_coordinates() const { return 6; }
  int num_constraints() const { return 4; }

  template <class T>
  void Constraints(const T& /*t*/, const T* q, T* phi) const {
    using std::cos;
    using std::sin;
    const double half = 0.5 * length;
    phi[0] = q[0] - half * sin(q[2]);  // ground joint at the origin
    phi[1] = q[1] + half * cos(q[2]);
    phi[2] = q[3] - half * sin(q[5]) - q[0] - half * sin(q[2]);  // joint 1-2
    phi[3] = q[4] + half * cos(q[5]) - q[1] + half * cos(q[2]);
  }
  template <class T>
  void MassMatrix(const T* /*q*/, T* m) const {
    const int n = 6;
    m[0 * n + 0] = m[1 * n + 1] = m[3 * n + 3] = m[4 * n + 4] = T(mass);
    m[2 * n + 2] = m[5 * n + 5] = T(inertia);
  }
  template <class T>
  T Potential(const T& /*t*/, const T* q) const {
    return mass * gravity * (q[1] + q[4]);
  }
  template <class T>
  void AppliedForces(const T& /*t*/, const T* q, const T* v, T* f) const {
    const T torque1 = -stiffness * q[2] - damping * v[2];                    // ground - link 1
    const T torque2 = -stiffness * (q[5] - q[2]) - damping * (v[5] - v[2]);  // link 1 - 2
    f[2] += torque1 - torque2;
    f[5] += torque2;
  }
};

// The mechanism: two bars, each L/2 below its upper joint along its body -y axis (theta is
// the body angle), torsional spring-dampers at rest with the links hanging straight.
std::shared_ptr<ModelStructure> Structure(const DoublePendulumEquations& eq, const Vector& q0) {
  ModelDescription m;
  m.title = "double pendulum";
  m.dimension = 2;
  for (int i = 0; i < 2; ++i) {
    BodyDescription link;
    link.name = "link" + std::to_string(i + 1);
    link.mass = eq.mass;
    link.inertia(0, 0) = eq.inertia;
    link.position = P(q0[3 * i], q0[3 * i + 1]);
    link.angle = q0[3 * i + 2];
    m.bodies.push_back(link);
  }
  const double half = 0.5 * eq.length;
  m.joints = {Joint("O", JointKind::kRevolute, "ground", P(0, 0), "link1", P(0, half)),
              Joint("A", JointKind::kRevolute, "link1", P(0, -half), "link2", P(0, half))};
  m.forces.push_back(Gravity(P(0, -eq.gravity)));
  for (int i = 0; i < 2; ++i)
    m.forces.push_back(TorsionalSpring("spring" + std::to_string(i + 1),
                                       i == 0 ? "ground" : "link1", "link" + std::to_string(i + 1),
                                       eq.stiffness, eq.damping));
  return HandWrittenStructure(m, true,
                              {OwnedRows(ConstraintRows::Owner::kJoint, 0, "O", 0, 2),
                               OwnedRows(ConstraintRows::Owner::kJoint, 1, "A", 2, 2)},
                              ChainTree({-1, 0}, {0, 1}));
}

Problem Build(const ParameterSet& p) {
  DoublePendulumEquations eq;
  eq.mass = p.GetDouble("mass");
  eq.length = p.GetDouble("length");
  eq.inertia = eq.mass * eq.length * eq.length / 12.0;
  eq.gravity = p.GetDouble("g");
  eq.stiffness = p.GetDouble("k");
  eq.damping = p.GetDouble("c");
  const double theta0 = p.GetDouble("theta0");
  RequirePositive(eq.mass, "mass");
  RequirePositive(eq.length, "length");
  Problem problem;
  problem.dae = MakeDae(eq);
  problem.t_end = 10.0;
  problem.h_default = 1e-3;
  const double half = 0.5 * eq.length, s = std::sin(theta0), c = std::cos(theta0);
  problem.q0 = Vector(6);
  problem.q0 << half * s, -half * c, theta0, 3.0 * half * s, -3.0 * half * c, theta0;
  problem.coordinate_periods = {0.0, 0.0, 2.0 * M_PI, 0.0, 0.0, 2.0 * M_PI};  // th1, th2
  problem.v0 = Vector::Zero(6);
  problem.structure = Structure(eq, problem.q0);
  problem.output_names = {"theta1", "theta2"};
  problem.calc_outputs = [](double, const Vector& q, const Vector&, Vector& out) {
    out[0] = q[2];
    out[1] = q[5];
  };
  problem.default_methods = {"ida", "tangent-newmark", "simbody"};
  return problem;
}

}  // namespace

ProblemEntry DoublePendulumEntry() {
  return {"double_pendulum",
          "two bars with torsional spring-dampers in both revolute joints, planar bodies",
          "001 s6 (Negrut; data: docs/problems.md substitute)",
          {{"mass", "1", "mass of each bar, kg", {}},
           {"length", "1", "length of each bar, m", {}},
           {"g", "9.81", "gravity along -y, m/s^2", {}},
           {"k", "10", "torsional spring stiffness in both joints, N m/rad", {}},
           {"c", "0.1", "torsional damping in both joints, N m s/rad", {}},
           {"theta0",
            "1.5707963267948966",
            "initial angle of both links from the downward vertical (pi/2: horizontal), rad",
            {}}},
          Build};
}

}  // namespace mbb
