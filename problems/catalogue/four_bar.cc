// Planar four-bar of paper 003 s6 through the model layer, planar (x, y, theta)
// formulation. The paper gives no link data; PROBLEMS.md fixes: O1 = (0,0), O4 = (l0,0),
// y up; l0 = 2.0, l1 = 0.5, l2 = 1.75, l3 = 1.25 m (Grashof crank-rocker); uniform bars of
// 1 kg/m (m = 0.5, 1.75, 1.25 kg, J = m l^2/12); assembly branch alpha3 = +arccos in (40);
// g = 9.81 along -y; start at alpha1 = 0 with alpha1' = 5 rad/s; 3 s.
// Outputs are the paper's relative coordinates (cut at O4), angles from +y, positive
// clockwise: alpha1 the crank, alpha2 coupler relative to crank, alpha3 rocker relative to
// coupler. With body angles theta from +x counter-clockwise: alpha1 = pi/2 - theta1,
// alpha2 = theta1 - theta2, alpha3 = theta2 - theta3. The initial pose is eqs (40)-(41).
#include "problems/catalogue/catalogue_entries.h"
#include "problems/catalogue/model_helpers.h"
#include "problems/model/model_problem.h"

namespace mbb {
namespace {

Problem Build(const ParameterSet& p) {
  const double l0 = 2.0, l1 = 0.5, l2 = 1.75, l3 = 1.25;
  const double a1 = p.GetDouble("alpha1_0", 0.0);
  const double rate = p.GetDouble("alpha1_rate", 5.0);
  const double den = l0 * l0 + l1 * l1 - 2.0 * l0 * l1 * std::sin(a1);
  const double a3 = std::acos((den - l2 * l2 - l3 * l3) / (2.0 * l2 * l3));  // eq (40), +branch
  const double s2 =
      (l0 * l2 * std::cos(a1) + l0 * l3 * std::cos(a1 + a3) + l1 * l3 * std::sin(a3)) / den;
  const double c2 =
      (l0 * l2 * std::sin(a1) + l0 * l3 * std::sin(a1 + a3) - l1 * l3 * std::cos(a3) - l1 * l2) /
      den;
  const double a2 = std::atan2(s2, c2);  // eq (41)
  const double th1 = M_PI / 2 - a1, th2 = M_PI / 2 - (a1 + a2), th3 = M_PI / 2 - (a1 + a2 + a3);
  const Eigen::Vector3d o2 = P(l1 * std::cos(th1), l1 * std::sin(th1));
  const Eigen::Vector3d o3 = o2 + P(l2 * std::cos(th2), l2 * std::sin(th2));

  ModelDescription m;
  m.title = "four-bar linkage";
  m.source = "003 s6";
  m.dimension = 2;
  m.bodies.push_back(PlanarBar("crank", l1, l1, 0.5 * o2.x(), 0.5 * o2.y(), th1));
  m.bodies.push_back(PlanarBar("coupler", l2, l2, 0.5 * (o2 + o3).x(), 0.5 * (o2 + o3).y(), th2));
  const Eigen::Vector3d o4 = o3 + P(l3 * std::cos(th3), l3 * std::sin(th3));
  m.bodies.push_back(PlanarBar("rocker", l3, l3, 0.5 * (o3 + o4).x(), 0.5 * (o3 + o4).y(), th3));
  m.bodies[0].angular_velocity.z() = -rate;  // alpha1' = -theta1'
  m.bodies[0].velocity = -rate * P(-0.5 * o2.y(), 0.5 * o2.x());
  m.bodies[0].hold = {"angle", "omega"};
  m.bodies[1].twist_is_estimate = true;
  m.bodies[2].twist_is_estimate = true;
  m.joints = {
      Joint("O1", JointKind::kRevolute, "ground", P(0, 0), "crank", P(-0.5 * l1, 0)),
      Joint("O2", JointKind::kRevolute, "crank", P(0.5 * l1, 0), "coupler", P(-0.5 * l2, 0)),
      Joint("O3", JointKind::kRevolute, "coupler", P(0.5 * l2, 0), "rocker", P(-0.5 * l3, 0)),
      Joint("O4", JointKind::kRevolute, "rocker", P(0.5 * l3, 0), "ground", P(l0, 0))};
  m.forces.push_back(Gravity(P(0, -p.GetDouble("g", 9.81))));
  OutputDescription alpha1 = Output("alpha1", OutputKind::kAngle, "crank");
  alpha1.offset = M_PI / 2;
  alpha1.scale = -1.0;
  m.outputs = {alpha1, RelativeOutput("alpha2", OutputKind::kAngle, "crank", "coupler"),
               RelativeOutput("alpha3", OutputKind::kAngle, "coupler", "rocker")};
  m.t_end = 3.0;
  m.h_default = 1e-3;
  m.default_methods = {"ida", "odeint-dopri5"};
  return BuildModelProblem(m, "four_bar", p);
}

}  // namespace

ProblemEntry FourBarEntry() {
  return {"four_bar",
          "planar crank-rocker four-bar, model layer (x, y, theta)",
          "003 s6",
          {{"alpha1_0", "0", "initial crank angle from +y, clockwise, rad", {}},
           {"alpha1_rate", "5", "initial crank rate alpha1', rad/s", {}},
           {"g", "9.81", "gravity along -y, m/s^2", {}},
           FormulationParameter(2)},
          Build};
}

}  // namespace mbb
