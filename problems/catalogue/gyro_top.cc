// Gyro top in steady precession (paper 002 s5.1) through the model layer, spatial
// Euler-parameter formulation (paper 000 eq 61) instead of the paper's directors: one rigid
// body, 7 coordinates, 4 constraints (spherical joint 3, normalisation 1), 3 DOF.
// Data (002 s5.1): a cone of height H = 0.1, radius R = 0.05, density rho = 2700,
// M = rho pi R^2 H / 3; centre of mass at L = 3H/4 from the tip, the tip (the fixed point,
// the ground origin) at body point (0, 0, -L) (eq 156); principal inertias about the centre
// of mass J1 = J2 = 3M (4R^2 + H^2)/80, J3 = 3M R^2/10 (eq 157); g = 9.81 along -e3 (eq 159).
// Initial state (eqs 164-171): nutation theta = pi/3, precession rate omega_p = 10, body
// axes d_I = exp(theta e1^) e_I, centre of mass L d3, angular velocity
// omega = omega_p e3 + omega_s d3 with the steady-precession spin rate of eq (165) and
// the reduced inertias M1 = J1 + M L^2, M3 = J3 of eq (168).
// Choices the paper leaves open (documented in docs/problems.md): the end time (its figures
// are not in our text) is 2 s, about 3.2 precession periods 2 pi / omega_p; the outputs are
// the centre of mass cm_x, cm_y, cm_z (the paper plots x and z). Parameters theta,
// omega_p and omega_s (default: the steady value of eq 165) allow other motions; the
// analytic reference (reference/analytic_gyro_top.cc) refuses any omega_s but eq (165)'s.
#include "problems/catalogue/gyro_top.h"

#include "problems/catalogue/catalogue_entries.h"
#include "problems/catalogue/model_helpers.h"
#include "problems/model/model_problem.h"

namespace mbb {

GyroTopData GyroTopDataFor(double theta, double omega_p) {
  GyroTopData d;
  const double rho = 2700.0, radius = 0.05, height = 0.1;
  d.mass = rho * M_PI * radius * radius * height / 3.0;                    // 002 s5.1
  d.length = 0.75 * height;                                                // L = 3H/4
  d.j1 = 3.0 * d.mass * (4.0 * radius * radius + height * height) / 80.0;  // eq (157)
  d.j3 = 3.0 * d.mass * radius * radius / 10.0;                            // eq (157)
  d.g = 9.81;                                                              // eq (159)
  d.theta = theta;
  d.omega_p = omega_p;
  const double m1 = d.j1 + d.mass * d.length * d.length, m3 = d.j3;  // eq (168)
  d.omega_s = d.mass * d.g * d.length / (m3 * omega_p) +
              (m1 - m3) / m3 * omega_p * std::cos(theta);  // eq (165)
  return d;
}

namespace {

Problem Build(const ParameterSet& p) {
  const double theta = p.GetDouble("theta");
  const double omega_p = p.GetDouble("omega_p");
  RequirePositive(std::abs(omega_p), "omega_p");
  const GyroTopData d = GyroTopDataFor(theta, omega_p);
  const double omega_s = p.Has("omega_s") ? p.GetDouble("omega_s") : d.omega_s;  // unset: eq (165)

  ModelDescription m;
  m.title = "gyro top (steady precession)";
  m.source = "002 s5.1";
  m.dimension = 3;
  BodyDescription top;
  top.name = "top";
  top.mass = d.mass;
  top.inertia = Eigen::Vector3d(d.j1, d.j1, d.j3).asDiagonal();
  const Eigen::AngleAxisd tilt(theta, Eigen::Vector3d::UnitX());  // eq (169)
  const Eigen::Quaterniond e(tilt);
  top.orientation = Eigen::Vector4d(e.w(), e.x(), e.y(), e.z());
  const Eigen::Vector3d d3 = tilt * Eigen::Vector3d::UnitZ();
  top.position = d.length * d3;                                              // eq (169)
  top.angular_velocity = omega_p * Eigen::Vector3d::UnitZ() + omega_s * d3;  // eq (171)
  top.velocity = top.angular_velocity.cross(top.position);                   // eq (170)
  top.hold = {"orientation", "wx", "wy", "wz"};
  m.bodies.push_back(top);

  m.joints.push_back(
      Joint("tip", JointKind::kSpherical, "ground", P(0, 0, 0), "top", P(0, 0, -d.length)));
  m.forces.push_back(Gravity(P(0, 0, -d.g)));
  // The fixed point is the origin, so the joint reaction has no moment about it, and
  // gravity along -e3 has none about e3: the angular momentum about the origin keeps its
  // z component (002 s5.1: the top precesses about e3).
  m.conserved_momentum = {"angular_z"};
  m.outputs = {Output("cm_x", OutputKind::kPointX, "top"),
               Output("cm_y", OutputKind::kPointY, "top"),
               Output("cm_z", OutputKind::kPointZ, "top")};
  m.t_end = 2.0;
  m.h_default = 1e-3;
  m.default_methods = {"ida", "odeint-dopri5"};
  return BuildModelProblem(m, "gyro_top", p);
}

}  // namespace

ProblemEntry GyroTopEntry() {
  return {"gyro_top",
          "symmetric top (cone) in steady precession, spherical joint, Euler parameters",
          "002 s5.1",
          {{"theta", "1.0471975511965976", "nutation angle, rad (eq 164: pi/3)", {}},
           {"omega_p", "10", "precession rate, rad/s (eq 164)", {}},
           {"omega_s", "", "spin rate, rad/s (unset: the steady value of eq 165)", {}},
           FormulationParameter(3)},
          Build};
}

}  // namespace mbb
