// The stiff pendulum of paper 001, section 3 (eqs. 12-22): point mass M = 1 kg on a
// massless rod L = 1 m, g = 9.8, driven by the torque T = T0 sin(wbar t), eq. (12), with
// T0 = 0.1 N m and wbar = 0.1 rad/s; theta(0) = 0 (hanging), theta'(0) = 0.
//
// Two forms, selected by the parameter `form`:
//   minimal      q = [theta],  m L^2 theta'' + m g L sin(theta) = T          eq. (13)
//   constrained  q = [x, y, theta], M = diag(m, m, 0) as the paper has it (the rod carries
//                no inertia), Phi = [x - L sin(theta), y + L cos(theta)] = 0, gravity on y,
//                torque on theta. The mass matrix is singular; the constraints make the
//                system well posed (the paper's remark after eq. 12).
// omega_max = sqrt(g/L) = 3.1304951 rad/s, eq. (17), sets the linear stability limits.
#include "problems/catalogue/catalogue_entries.h"
#include "problems/catalogue/hand_written_structure.h"
#include "problems/catalogue/model_helpers.h"
#include "problems/core/equations_dae.h"

namespace mbb {
namespace {

struct StiffPendulumData {
  double mass, length, gravity, torque_amplitude, torque_frequency;
  template <class T>
  T Torque(const T& t) const {  // eq. (12)
    using std::sin;
    return torque_amplitude * sin(torque_frequency * t);
  }
};

struct MinimalEquations : EquationDefaults, StiffPendulumData {
  static constexpr bool kConstantMass = true;
  int num_coordinates() const { return 1; }
  int num_constraints() const { return 0; }
  template <class T>
  void Constraints(const T&, const T*, T*) const {}
  template <class T>
  void MassMatrix(const T*, T* m) const {
    m[0] = T(mass * length * length);
  }
  template <class T>
  T Potential(const T&, const T* q) const {
    using std::cos;
    return -mass * gravity * length * cos(q[0]);
  }
  template <class T>
  void AppliedForces(const T& t, const T*, const T*, T* f) const {
    f[0] += Torque(t);
  }
};

struct ConstrainedEquations : EquationDefaults, StiffPendulumData {
  static constexpr bool kConstantMass = true;
  int num_coordinates() const { return 3; }
  int num_constraints() const { return 2; }
  template <class T>
  void Constraints(const T&, const T* q, T* phi) const {
    using std::cos;
    using std::sin;
    phi[0] = q[0] - length * sin(q[2]);
    phi[1] = q[1] + length * cos(q[2]);
  }
  template <class T>
  void MassMatrix(const T*, T* m) const {
    m[0] = T(mass);
    m[4] = T(mass);  // m[8] = 0: the paper's singular M = diag(m, m, 0)
  }
  template <class T>
  T Potential(const T&, const T* q) const {
    return mass * gravity * q[1];
  }
  template <class T>
  void AppliedForces(const T& t, const T*, const T*, T* f) const {
    f[2] += Torque(t);
  }
};

// The mechanism of both forms: the mass on a revolute joint at the origin, L above it along
// its body y axis (theta is the body angle from the downward vertical), with the paper's
// zero inertia about the mass, and the torque of eq (12) on it. The minimal form's q is the
// body angle alone.
std::shared_ptr<ModelStructure> Structure(const StiffPendulumData& d, double theta0, bool minimal) {
  ModelDescription m;
  m.title = "stiff pendulum";
  m.dimension = 2;
  BodyDescription bob;
  bob.name = "bob";
  bob.mass = d.mass;  // inertia 0: M = diag(m, m, 0)
  bob.position = P(d.length * std::sin(theta0), -d.length * std::cos(theta0));
  bob.angle = theta0;
  m.bodies.push_back(bob);
  m.joints.push_back(
      Joint("pivot", JointKind::kRevolute, "ground", P(0, 0), "bob", P(0, d.length)));
  m.forces.push_back(Gravity(P(0, -d.gravity)));
  ForceDescription torque;
  torque.name = "T";
  torque.kind = ForceKind::kTorque;
  torque.body_a = "bob";
  torque.vector = P(0, 0, d.torque_amplitude);
  torque.law = TimeLaw{0.0, 0.0, 1.0, d.torque_frequency, 0.0};  // eq (12)
  m.forces.push_back(torque);
  if (!minimal)
    return HandWrittenStructure(m, true,
                                {OwnedRows(ConstraintRows::Owner::kJoint, 0, "pivot", 0, 2)},
                                ChainTree({-1}, {0}));
  auto s = HandWrittenStructure(m, false, {}, ChainTree({-1}, {0}));
  s->coordinates_from_bodies = [](const std::vector<BodyMotion>& bodies, Vector& q, Vector& v) {
    q[0] = bodies[0].angle;
    v[0] = bodies[0].angular_velocity.z();
  };
  return s;
}

Problem Build(const ParameterSet& p) {
  StiffPendulumData data;
  data.mass = p.GetDouble("mass");
  data.length = p.GetDouble("length");
  data.gravity = p.GetDouble("g");
  data.torque_amplitude = p.GetDouble("T0");
  data.torque_frequency = p.GetDouble("wbar");
  RequirePositive(data.mass, "mass");
  RequirePositive(data.length, "length");
  RequirePositive(data.torque_frequency, "wbar");

  Problem problem;
  const double theta0 = p.GetDouble("theta0");
  const bool minimal = p.GetString("form") == "minimal";
  problem.structure = Structure(data, theta0, minimal);
  if (minimal) {
    MinimalEquations eq;
    static_cast<StiffPendulumData&>(eq) = data;
    problem.dae = MakeDae(eq);
    problem.q0 = Vector::Constant(1, theta0);
    problem.v0 = Vector::Zero(1);
  } else {
    ConstrainedEquations eq;
    static_cast<StiffPendulumData&>(eq) = data;
    problem.dae = MakeDae(eq);
    problem.q0 = Vector(3);
    problem.q0 << data.length * std::sin(theta0), -data.length * std::cos(theta0), theta0;
    problem.v0 = Vector::Zero(3);
  }
  // One period of the torque: the horizon of the stability study (docs/reproduction.md, 001).
  problem.t_end = 2.0 * M_PI / data.torque_frequency;
  problem.h_default = 0.01;
  // Static deflection T0 / (m g L): the amplitude the forced response follows.
  problem.stability_amplitude =
      std::abs(data.torque_amplitude) / (data.mass * data.gravity * data.length);
  problem.output_names = {"theta"};
  const int theta_index = problem.dae->num_coordinates() - 1;
  problem.calc_outputs = [theta_index](double, const Vector& q, const Vector&, Vector& out) {
    out[0] = q[theta_index];
  };
  problem.default_methods = {"ida", "odeint-dopri5", "arkode-erk", "simbody"};
  return problem;
}

}  // namespace

ProblemEntry StiffPendulumEntry() {
  return {"stiff_pendulum",
          "torque-driven pendulum, minimal (theta) or constrained (x, y, theta) form",
          "001 s3 eqs 12-22",
          {{"form", "constrained", "coordinate form", {"constrained", "minimal"}},
           {"mass", "1", "M, kg", {}},
           {"length", "1", "L, m", {}},
           {"g", "9.8", "gravity, m/s^2", {}},
           {"T0", "0.1", "torque amplitude, N m", {}},
           {"wbar", "0.1", "torque frequency, rad/s", {}},
           {"theta0", "0", "initial angle, rad", {}}},
          Build};
}

}  // namespace mbb
