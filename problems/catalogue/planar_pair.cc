// Free flight of a planar pair (paper 002 s5.3) through the model layer, spatial
// Euler-parameter formulation (paper 000 eq 61) instead of the paper's directors: two
// rigid bodies, 14 coordinates, 5 constraints (planar joint 3, normalisations 2), 9 DOF.
// Data (002 s5.3): body 1 a plate, M = 5, J = diag(5125/48, 5125/48, 640/3); body 2 a
// pyramid, M = 2, J = diag(43/40, 43/40, 4/5); joint points (0, 0, 0.25) on body 1 and
// (0, 0, -1) on body 2, normal n = d3 of body 1 (and of body 2), in-plane m1 = d1, m2 = d2;
// phi1 = (5, 5, 5), phi2 = (-2, -2, 6.25), d_i = e_i for both; no forces. Initial
// velocities (eq 177): v1 = 0, omega1 = (-20, -20, 10), u1' = 150, u2' = -120, theta' = 60,
// i.e. v2 = v1 + omega1 x (phi2 - phi1) + u1' m1 + u2' m2, omega2 = omega1 + theta' n.
// Outputs u1, u2 (phi2 - phi1 in body 1's axes m1, m2) and theta2 (rotation of body 2
// relative to body 1 about n). Choice the paper leaves open: the end time, 0.1 s (its
// snapshots reach t = 0.08).
#include "problems/catalogue/catalogue_entries.h"
#include "problems/catalogue/model_helpers.h"
#include "problems/model/model_problem.h"

namespace mbb {
namespace {

Problem Build(const ParameterSet& p) {
  ModelDescription m;
  m.title = "planar pair in free flight";
  m.source = "002 s5.3";
  m.dimension = 3;
  const Eigen::Vector3d n = P(0, 0, 1), m1 = P(1, 0, 0), m2 = P(0, 1, 0);
  BodyDescription b1, b2;
  b1.name = "body1";
  b1.mass = 5.0;
  b1.inertia = Eigen::Vector3d(5125.0 / 48, 5125.0 / 48, 640.0 / 3).asDiagonal();
  b1.position = P(5, 5, 5);
  b1.angular_velocity = P(-20, -20, 10);  // eq (177)
  b2.name = "body2";
  b2.mass = 2.0;
  b2.inertia = Eigen::Vector3d(43.0 / 40, 43.0 / 40, 4.0 / 5).asDiagonal();
  b2.position = P(-2, -2, 6.25);
  const double u1_dot = 150.0, u2_dot = -120.0, theta_dot = 60.0;  // eq (177)
  b2.velocity = b1.velocity + b1.angular_velocity.cross(b2.position - b1.position) + u1_dot * m1 +
                u2_dot * m2;
  b2.angular_velocity = b1.angular_velocity + theta_dot * n;
  m.bodies = {b1, b2};
  JointDescription j = Joint("E", JointKind::kPlanar, "body1", P(0, 0, 0.25), "body2", P(0, 0, -1));
  j.axis_a = n;
  j.axis_b = n;
  m.joints.push_back(j);
  m.outputs = {RelativeOutput("u1", OutputKind::kPointX, "body2", "body1"),
               RelativeOutput("u2", OutputKind::kPointY, "body2", "body1"),
               AngleAbout("theta2", "body2", n, "body1")};
  // Free flight, no forces: linear and angular momentum (about any point) are conserved.
  m.conserved_momentum = {"linear_x",  "linear_y",  "linear_z",
                          "angular_x", "angular_y", "angular_z"};
  m.t_end = 0.1;
  m.h_default = 1e-5;
  m.default_methods = {"ida", "odeint-dopri5"};
  return BuildModelProblem(m, "planar_pair", p);
}

}  // namespace

ProblemEntry PlanarPairEntry() {
  return {"planar_pair",
          "planar pair in free flight, Euler parameters",
          "002 s5.3",
          {FormulationParameter(3)},
          Build};
}

}  // namespace mbb
