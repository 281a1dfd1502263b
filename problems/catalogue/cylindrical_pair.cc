// Free flight of a cylindrical pair (paper 002 s5.2) through the model layer, spatial
// Euler-parameter formulation (paper 000 eq 61) instead of the paper's directors: two
// rigid bodies, 14 coordinates, 6 constraints (cylindrical joint 4, normalisations 2),
// 8 DOF. Data (002 s5.2): body 1 a cylinder, M = 4, J = diag(304, 304, 8); body 2 a hollow
// cylinder, M = 3, J = diag(18.75, 18.75, 19.5); joint at both centres of mass, axis
// n = d3 of body 1 (and of body 2); phi1 = 0, phi2 = (0, 0, -11), d_i = e_i for both; no
// forces. Initial velocities (eq 175): v1 = (0, 50, 0), omega1 = (1, 1.5, 0), u' = 35.5,
// theta' = -100, i.e. v2 = v1 + omega1 x (phi2 - phi1) + u' n, omega2 = omega1 + theta' n.
// Outputs u2 = n . (phi2 - phi1) and theta2 (rotation of body 2 relative to body 1 about
// n). Choice the paper leaves open: the end time, 1 s (its snapshots reach t = 0.7).
#include "problems/catalogue/catalogue_entries.h"
#include "problems/catalogue/model_helpers.h"
#include "problems/model/model_problem.h"

namespace mbb {
namespace {

Problem Build(const ParameterSet& p) {
  ModelDescription m;
  m.title = "cylindrical pair in free flight";
  m.source = "002 s5.2";
  m.dimension = 3;
  const Eigen::Vector3d n = P(0, 0, 1);
  BodyDescription b1, b2;
  b1.name = "body1";
  b1.mass = 4.0;
  b1.inertia = Eigen::Vector3d(304, 304, 8).asDiagonal();
  b1.velocity = P(0, 50, 0);           // eq (175)
  b1.angular_velocity = P(1, 1.5, 0);  // eq (175)
  b2.name = "body2";
  b2.mass = 3.0;
  b2.inertia = Eigen::Vector3d(18.75, 18.75, 19.5).asDiagonal();
  b2.position = P(0, 0, -11);
  const double u_dot = 35.5, theta_dot = -100.0;  // eq (175)
  b2.velocity = b1.velocity + b1.angular_velocity.cross(b2.position - b1.position) + u_dot * n;
  b2.angular_velocity = b1.angular_velocity + theta_dot * n;
  m.bodies = {b1, b2};
  JointDescription j =
      Joint("C", JointKind::kCylindrical, "body1", P(0, 0, 0), "body2", P(0, 0, 0));
  j.axis_a = n;
  j.axis_b = n;
  m.joints.push_back(j);
  m.outputs = {RelativeOutput("u2", OutputKind::kPointZ, "body2", "body1"),
               AngleAbout("theta2", "body2", n, "body1")};
  // Free flight, no forces: linear and angular momentum (about any point) are conserved.
  m.conserved_momentum = {"linear_x",  "linear_y",  "linear_z",
                          "angular_x", "angular_y", "angular_z"};
  m.t_end = 1.0;
  m.h_default = 1e-4;
  m.default_methods = {"ida", "odeint-dopri5"};
  return BuildModelProblem(m, "cylindrical_pair", p);
}

}  // namespace

ProblemEntry CylindricalPairEntry() {
  return {"cylindrical_pair",
          "cylindrical pair in free flight, Euler parameters",
          "002 s5.2",
          {FormulationParameter(3)},
          Build};
}

}  // namespace mbb
