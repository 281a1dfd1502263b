// Stiff flyball governor (IFToMM / MBSBenchmark A05, M. Gonzalez 2005; docs/problems.md
// "flyball_governor"; mentioned in paper 001 s7 as "not stiff in the sense of numerical
// integration") through the model layer, spatial Euler-parameter formulation (paper 000
// eq 61).
//
// Data (docs/problems.md): shaft 1 x 0.01 x 0.01 m, density 3000 (0.3 kg), revolute to ground
// about z; slider cube 0.1 m (3 kg), prismatic along the shaft; two rods 1 x 0.01 x 0.01 m
// (0.3 kg) hinged at (+-0.05, 0, 1) with axes normal to the x-z plane (y); 5 kg point masses
// at the rod ends; translational spring-dampers from the slider points (+-0.05, 0, s) to the
// rod midpoints, k = 8e5 N/m, c = 4e4 N s/m, l0 = 0.5 m; g = 9.81 along -z; initial
// s = 0.5 m, rods 30 degrees below horizontal (pointing outward, away from the shaft),
// everything spinning at 2 pi rad/s about z; 10 s; output s(t), the height of the slider's
// centre (where its spring points are) along the shaft.
// Check: at the start the spring runs from (0.05, 0, 0.5) to the rod midpoint
// (0.05 + 0.5 cos 30, 0, 1 - 0.5 sin 30): (0.5 cos 30, 0, 0.25), length exactly 0.5 = l0, so
// the springs start unloaded (tests/test_flyball.cc).
//
// Choices the statement leaves open (documented in docs/problems.md):
// - The shaft runs from z = 0 (the ground revolute, at the origin) to z = 1, centre of mass
//   (0, 0, 0.5); the rod hinges (+-0.05, 0, 1) sit at its top on short massless arms.
// - Bars are uniform with a square b x b section (b = 0.01): about the centre of mass,
//   axial inertia m (b^2 + b^2)/12, transverse m (L^2 + b^2)/12; the slider cube
//   m (a^2 + a^2)/12 = 0.005 kg m^2 about every axis.
// - Each 5 kg point mass is lumped into its rod (they are rigidly attached): mass 5.3 kg,
//   centre of mass at d = (0.3 * 0.5 + 5 * 1) / 5.3 = 0.9717 m from the hinge along the rod,
//   inertia about that point by the parallel-axis theorem (the point mass adds none of its
//   own). This is exactly the same dynamics as a separate point-mass body on a spherical
//   joint, with 28 coordinates instead of 34 and no extra constraint rows.
// - Body axes are the global axes at the start (rod inertia tensors rotated accordingly).
// - Rod 1 (+x side) and rod 2 (-x side) mirror each other; spring 1 joins slider point
//   (+0.05, 0, 0) (slider frame) to rod 1's midpoint, spring 2 the mirror points.
// - "Everything spinning": every body's angular velocity is (0, 0, omega0) and every centre
//   of mass moves with omega0 z x r; the slider starts at rest along the shaft.
// Parameters: k, c, g (>= 0), omega0 (any finite value; the sign is the spin direction).
// Measured (reference/flyball_governor): the stiff springs act almost as rigid links, so
// the dampers dissipate only 3.1e-3 J of 239 J in 10 s and s swings between 0.4999 and
// 0.7436 m with period 1.025 s, never settling; s(10) = 0.61962291706.
#include "problems/catalogue/catalogue_entries.h"
#include "problems/catalogue/model_helpers.h"
#include "problems/model/model_problem.h"

namespace mbb {
namespace {

constexpr double kBarLength = 1.0, kBarSide = 0.01, kDensity = 3000.0;
constexpr double kSliderSide = 0.1, kPointMass = 5.0;
constexpr double kHingeOffset = 0.05;  // hinge and spring points at +-0.05 m from the axis
constexpr double kRestLength = 0.5, kSliderHeight0 = 0.5;
constexpr double kRodAngle0 = M_PI / 6.0;  // 30 degrees below horizontal

// Inertia about the centre of mass of a uniform square-section bar along unit `u`.
Eigen::Matrix3d BarInertia(double mass, const Eigen::Vector3d& u) {
  const double b2 = kBarSide * kBarSide;
  const double axial = mass * (b2 + b2) / 12.0;
  const double transverse = mass * (kBarLength * kBarLength + b2) / 12.0;
  const Eigen::Matrix3d along = u * u.transpose();
  return axial * along + transverse * (Eigen::Matrix3d::Identity() - along);
}

Problem Build(const ParameterSet& p) {
  const double k = p.GetDouble("k"), c = p.GetDouble("c");
  const double omega = p.GetDouble("omega0"), g = p.GetDouble("g");
  RequireNonNegative(k, "k");
  RequireNonNegative(c, "c");
  RequireNonNegative(g, "g");
  const Eigen::Vector3d spin(0.0, 0.0, omega);
  const double bar_mass = kDensity * kBarLength * kBarSide * kBarSide;  // 0.3 kg

  ModelDescription m;
  m.title = "stiff flyball governor";
  m.source = "IFToMM A05 (docs/problems.md)";
  m.dimension = 3;

  BodyDescription shaft;
  shaft.name = "shaft";
  shaft.mass = bar_mass;
  shaft.inertia = BarInertia(bar_mass, Eigen::Vector3d::UnitZ());
  shaft.position = P(0, 0, 0.5 * kBarLength);
  shaft.angular_velocity = spin;
  shaft.hold = {"orientation", "wz"};
  m.bodies.push_back(shaft);

  BodyDescription slider;
  slider.name = "slider";
  slider.mass = kDensity * kSliderSide * kSliderSide * kSliderSide;  // 3 kg
  slider.inertia =
      slider.mass * (2.0 * kSliderSide * kSliderSide) / 12.0 * Eigen::Matrix3d::Identity();
  slider.position = P(0, 0, kSliderHeight0);
  slider.angular_velocity = spin;
  slider.hold = {"z", "vz"};
  m.bodies.push_back(slider);

  // Rod + point mass, lumped: centre of mass at `d` from the hinge along the rod.
  const double rod_mass = bar_mass + kPointMass;
  const double d = (bar_mass * 0.5 * kBarLength + kPointMass * kBarLength) / rod_mass;
  const double rod_shift = d - 0.5 * kBarLength, mass_shift = kBarLength - d;
  for (int side = 0; side < 2; ++side) {
    const double sign = side == 0 ? 1.0 : -1.0;
    const std::string id = std::to_string(side + 1);
    const Eigen::Vector3d hinge(sign * kHingeOffset, 0.0, kBarLength);
    const Eigen::Vector3d u(sign * std::cos(kRodAngle0), 0.0, -std::sin(kRodAngle0));
    BodyDescription rod;
    rod.name = "rod" + id;
    rod.mass = rod_mass;
    // Parallel-axis theorem: bar about its centre, shifted by rod_shift; point mass at
    // mass_shift; both offsets along u.
    rod.inertia = BarInertia(bar_mass, u) +
                  (bar_mass * rod_shift * rod_shift + kPointMass * mass_shift * mass_shift) *
                      (Eigen::Matrix3d::Identity() - u * u.transpose());
    rod.position = hinge + d * u;
    rod.velocity = spin.cross(rod.position);
    rod.angular_velocity = spin;
    rod.hold = {"orientation"};
    m.bodies.push_back(rod);

    JointDescription hinge_joint = Joint("hinge" + id, JointKind::kRevolute, "shaft",
                                         hinge - shaft.position, rod.name, Eigen::Vector3d(-d * u));
    hinge_joint.axis_a = P(0, 1, 0);  // normal to the x-z plane
    hinge_joint.axis_b = P(0, 1, 0);
    m.joints.push_back(hinge_joint);

    ForceDescription spring;
    spring.name = "spring" + id;
    spring.kind = ForceKind::kSpringDamper;
    spring.body_a = "slider";
    spring.point_a = P(sign * kHingeOffset, 0, 0);
    spring.body_b = rod.name;
    spring.point_b = -rod_shift * u;  // the rod's midpoint
    spring.stiffness = k;
    spring.damping = c;
    spring.rest_length = kRestLength;
    m.forces.push_back(spring);
  }

  JointDescription pivot = Joint("pivot", JointKind::kRevolute, "ground", P(0, 0, 0), "shaft",
                                 P(0, 0, -0.5 * kBarLength));
  pivot.axis_a = P(0, 0, 1);
  pivot.axis_b = P(0, 0, 1);
  JointDescription slide =
      Joint("slide", JointKind::kPrismatic, "shaft", P(0, 0, 0), "slider", P(0, 0, 0));
  slide.axis_a = P(0, 0, 1);
  slide.axis_b = P(0, 0, 1);
  m.joints.insert(m.joints.begin(), {pivot, slide});
  m.forces.push_back(Gravity(P(0, 0, -g)));
  m.outputs = {Output("s", OutputKind::kPointZ, "slider")};
  // The ground revolute turns about the z axis through the origin (its reactions have no
  // moment about that axis), gravity along -z has none, and the springs are internal: the
  // angular momentum about the origin keeps its z component. No drive torque.
  m.conserved_momentum = {"angular_z"};
  m.t_end = 10.0;
  // The fast mode (damper over rod mass, about c/m = 7.5e3 1/s) bounds explicit steps:
  // odeint-rk4 runs the 10 s at h = 2e-4 (50000 steps) and fails at h = 4e-4.
  m.h_default = 2e-4;
  // Measured at the default tolerances (rtol 1e-10) over the 10 s: ida 13719 steps, 3.4 s;
  // odeint-dopri5 201780 steps, 57 s; arkode-erk 390206 steps, 112 s; arkode-dirk 12566
  // steps for the first 0.2 s alone; odeint-rk4 at h = 2e-4 about 17 s. Only ida keeps the
  // default catalogue quick; the reference (reference/README.md) gives it an error.
  m.default_methods = {"ida"};
  return BuildModelProblem(m, "flyball_governor", p);
}

}  // namespace

ProblemEntry FlyballGovernorEntry() {
  return {"flyball_governor",
          "stiff flyball governor (spring-dampers k = 8e5, c = 4e4), Euler parameters",
          "IFToMM A05",
          {{"k", "8e5", "spring stiffness, N/m (>= 0)", {}},
           {"c", "4e4", "spring damping, N s/m (>= 0)", {}},
           {"omega0", "6.283185307179586", "initial spin of every body about +z, rad/s", {}},
           {"g", "9.81", "gravity along -z, m/s^2 (>= 0)", {}},
           FormulationParameter(3)},
          Build};
}

}  // namespace mbb
