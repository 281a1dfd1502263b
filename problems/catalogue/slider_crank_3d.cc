// Spatial slider-crank (IFToMM statement, Masoudi 2013, after Haug 1989; paper 000 s3.2)
// through the model layer, Euler-parameter formulation (paper 000 eq 61): 3 bodies,
// 21 coordinates, 20 constraints (revolute 5, spherical 3, universal 4, prismatic 5,
// 3 normalisations), 1 DOF. docs/problems.md: crank AB 0.08 m, rod BC 0.3 m; revolute A at
// (0, 0.1, 0.12) about X; spherical at B; universal at C; slider prismatic along X;
// theta = 0 with the crank vertical (B = A + (0, 0, 0.08)), theta' = 6 rad/s about +X, so
// C0 = (0.2, 0, 0) and the slider starts at 0.24 m/s. m_crank = 0.12, m_rod = 0.5,
// m_slider = 2.0 kg; I_crank = diag(1e-4, 1e-5, 1e-4), I_rod = diag(4e-3, 4e-4, 4e-3),
// I_slider = 1e-4 I (the small entry is about the link's long axis, body y here);
// g = 9.81 along -Z; 5 s. `crank_com = pivot | mid` places the crank's centre of mass at A
// or at the middle of AB (the statement leaves it open).
// The statement leaves the universal joint's cross axes open; they decide how fast the rod
// spins about its own axis, and with it the energy. As the published peers have them: the
// slider-fixed axis along X (the sliding direction), the rod-fixed axis perpendicular to the
// rod and to X. The rod then starts at angular velocity (1.92, -0.96, 0.48) rad/s (Exudyn's
// benchmark model; 1.28 rad/s of it about the rod's axis) and E0 = 0.76643568 J with `mid`
// (pydykit), 0.71589168 J with `pivot` (datum z = 0). The rod's body y axis is its long
// axis. Crank-revolution periods: 0.601907 s (pivot, Masoudi's published curve) and
// 0.578897 s (mid) by quadrature of the 1-DOF energy equation (tests/test_slider_crank.cc).
#include "problems/catalogue/catalogue_entries.h"
#include "problems/catalogue/model_helpers.h"
#include "problems/model/model_problem.h"

namespace mbb {
namespace {

Eigen::Vector4d Quaternion(const Eigen::Matrix3d& rotation) {
  const Eigen::Quaterniond e(rotation);
  return Eigen::Vector4d(e.w(), e.x(), e.y(), e.z());
}

Problem Build(const ParameterSet& p) {
  const bool mid = p.GetString("crank_com") == "mid";
  const double omega = p.GetDouble("omega0");
  const Eigen::Vector3d a = P(0, 0.1, 0.12), b = a + P(0, 0, 0.08), c = P(0.2, 0, 0);
  ModelDescription m;
  m.title = "spatial slider-crank";
  m.source = "000 s3.2, IFToMM (Masoudi 2013)";
  m.dimension = 3;

  BodyDescription crank;
  crank.name = "crank";
  crank.mass = 0.12;
  crank.inertia = Eigen::Vector3d(1e-4, 1e-5, 1e-4).asDiagonal();
  // Body y (long axis) along global Z at theta = 0: a quarter turn about X.
  crank.orientation = Quaternion(Eigen::AngleAxisd(M_PI / 2, Eigen::Vector3d::UnitX()).matrix());
  const Eigen::Vector3d crank_com = mid ? Eigen::Vector3d(0.5 * (a + b)) : a;
  crank.position = crank_com;
  crank.angular_velocity = P(omega, 0, 0);
  crank.velocity = P(omega, 0, 0).cross(crank_com - a);
  crank.hold = {"orientation", "wx"};
  m.bodies.push_back(crank);

  const Eigen::Vector3d along = (c - b).normalized();
  // The rod's cross axis of the universal joint: perpendicular to the rod and to the
  // slider's cross axis X (as the published peers have it).
  const Eigen::Vector3d cross_axis = along.cross(Eigen::Vector3d::UnitX()).normalized();
  Eigen::Matrix3d rod_axes;
  rod_axes.col(0) = cross_axis;
  rod_axes.col(1) = along;
  rod_axes.col(2) = cross_axis.cross(along);
  BodyDescription rod;
  rod.name = "rod";
  rod.mass = 0.5;
  rod.inertia = Eigen::Vector3d(4e-3, 4e-4, 4e-3).asDiagonal();
  rod.orientation = Quaternion(rod_axes);
  rod.position = 0.5 * (b + c);
  rod.twist_is_estimate = true;
  m.bodies.push_back(rod);

  BodyDescription slider;
  slider.name = "slider";
  slider.mass = 2.0;
  slider.inertia = 1e-4 * Eigen::Matrix3d::Identity();
  slider.position = c;
  slider.twist_is_estimate = true;
  m.bodies.push_back(slider);

  const double rod_half = 0.5 * (c - b).norm();
  JointDescription revolute =
      Joint("A", JointKind::kRevolute, "ground", a, "crank", mid ? P(0, -0.04, 0) : P(0, 0, 0));
  revolute.axis_a = P(1, 0, 0);
  revolute.axis_b = P(1, 0, 0);  // body x = global X (the quarter turn is about X)
  JointDescription spherical =
      Joint("B", JointKind::kSpherical, "crank", mid ? P(0, 0.04, 0) : P(0, 0.08, 0), "rod",
            P(0, -rod_half, 0));
  JointDescription universal =
      Joint("C", JointKind::kUniversal, "rod", P(0, rod_half, 0), "slider", P(0, 0, 0));
  universal.axis_a = P(1, 0, 0);  // the rod's cross axis (body x)
  universal.axis_b = P(1, 0, 0);  // the slider's X, the sliding direction
  JointDescription prismatic =
      Joint("slide", JointKind::kPrismatic, "ground", c, "slider", P(0, 0, 0));
  prismatic.axis_a = P(1, 0, 0);
  prismatic.axis_b = P(1, 0, 0);
  m.joints = {revolute, spherical, universal, prismatic};
  m.forces.push_back(Gravity(P(0, 0, -p.GetDouble("g"))));
  OutputDescription angle = Output("crank_angle", OutputKind::kAngle, "crank");
  angle.axis = P(1, 0, 0);
  angle.offset = -M_PI / 2;  // theta = 0 with the crank vertical
  m.outputs = {Output("slider_x", OutputKind::kPointX, "slider"), angle};
  m.t_end = 5.0;
  m.h_default = 1e-4;
  m.default_methods = {"ida", "odeint-dopri5"};
  Problem problem = BuildModelProblem(m, "slider_crank_3d", p);
  problem.revolution_output = "crank_angle";  // metrics.revolution_period_s
  return problem;
}

}  // namespace

ProblemEntry SliderCrank3dEntry() {
  return {
      "slider_crank_3d",
      "spatial slider-crank (revolute, spherical, universal, prismatic), Euler parameters",
      "000 s3.2, IFToMM",
      {{"crank_com", "pivot", "crank centre of mass at the pivot A or mid-crank", {"pivot", "mid"}},
       {"omega0", "6", "initial crank rate about +X, rad/s", {}},
       {"g", "9.81", "gravity along -Z, m/s^2", {}},
       FormulationParameter(3)},
      Build};
}

}  // namespace mbb
