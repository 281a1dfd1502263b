// Double four-bar (IFToMM benchmark, N four-bar with N = 2; paper 001 s7) through the
// model layer, planar (x, y, theta) formulation. docs/problems.md: five uniform bars of 1 m and
// 1 kg (J = 1/12 kg m^2), revolute joints at every bar end; ground pivots (0,0), (1,0),
// (2,0); cranks vertical up to (0,1), (1,1), (2,1); couplers (0,1)-(1,1), (1,1)-(2,1);
// g = 9.81 along -y; every crank omega = -1 rad/s (top of the left crank moves at +1 m/s
// along x); 10 s. Initial energy 35.835 J (datum y = 0). The mechanism passes singular
// positions (cranks horizontal) twice per turn. Outputs: position and velocity of the top
// of the left crank, B0. FourBarChainModel builds the N-window chain (n_four_bar.cc).
#include "problems/catalogue/catalogue_entries.h"
#include "problems/catalogue/model_helpers.h"
#include "problems/model/model_problem.h"

namespace mbb {

ModelDescription FourBarChainModel(int windows, const ParameterSet& p) {
  const double omega = p.GetDouble("omega0");
  const int cranks = windows + 1;
  ModelDescription m;
  m.title = windows == 2 ? "double four-bar" : std::to_string(windows) + " four-bar chain";
  m.source = "001 s7, IFToMM";
  m.dimension = 2;
  for (int i = 0; i < cranks; ++i) {
    BodyDescription crank = PlanarBar("crank" + std::to_string(i + 1), 1.0, 1.0, i, 0.5, M_PI / 2);
    crank.angular_velocity.z() = omega;
    crank.velocity = P(-0.5 * omega, 0.0);  // omega x (0, 0.5)
    m.bodies.push_back(crank);
  }
  for (int i = 0; i < windows; ++i) {
    BodyDescription coupler =
        PlanarBar("coupler" + std::to_string(i + 1), 1.0, 1.0, i + 0.5, 1.0, 0.0);
    coupler.velocity = P(-omega, 0.0);
    m.bodies.push_back(coupler);
  }
  m.bodies[0].hold = {"angle", "omega"};
  const Eigen::Vector3d bottom = P(-0.5, 0), top = P(0.5, 0);
  for (int i = 0; i < cranks; ++i)
    m.joints.push_back(Joint("O" + std::to_string(i + 1), JointKind::kRevolute, "ground", P(i, 0),
                             "crank" + std::to_string(i + 1), bottom));
  for (int i = 0; i < windows; ++i) {
    const std::string c = "coupler" + std::to_string(i + 1);
    m.joints.push_back(Joint("B" + std::to_string(i) + "_left", JointKind::kRevolute,
                             "crank" + std::to_string(i + 1), top, c, bottom));
    m.joints.push_back(Joint("B" + std::to_string(i + 1) + "_right", JointKind::kRevolute,
                             "crank" + std::to_string(i + 2), top, c, top));
  }
  m.forces.push_back(Gravity(P(0, -p.GetDouble("g"))));
  m.outputs = {Output("B0_x", OutputKind::kPointX, "crank1", top),
               Output("B0_y", OutputKind::kPointY, "crank1", top),
               Output("B0_vx", OutputKind::kPointVX, "crank1", top),
               Output("B0_vy", OutputKind::kPointVY, "crank1", top)};
  m.t_end = 10.0;
  m.h_default = 1e-3;
  // Adaptive methods fail at the first singular position: docs/known-failures.md.
  m.default_methods = {"odeint-rk4"};
  return m;
}

namespace {

Problem Build(const ParameterSet& p) {
  return BuildModelProblem(FourBarChainModel(2, p), "double_four_bar", p);
}

}  // namespace

ProblemEntry DoubleFourBarEntry() {
  return {"double_four_bar",
          "double four-bar (5 bars) through singular positions, model layer (x, y, theta)",
          "001 s7, IFToMM",
          {{"omega0", "-1", "initial angular velocity of every crank, rad/s", {}},
           {"g", "9.81", "gravity along -y, m/s^2", {}},
           FormulationParameter(2)},
          Build};
}

}  // namespace mbb
