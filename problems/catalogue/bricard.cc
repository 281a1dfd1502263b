// Bricard mechanism (IFToMM / MBSBenchmark A04; paper 001 s7) through the model layer,
// spatial Euler-parameter formulation (paper 000 eq 61). docs/problems.md: five bars 1 m, 1 kg,
// square section 0.1 x 0.1 m (axial inertia m (b^2 + c^2)/12, transverse m (L^2 + b^2)/12);
// the ground is the sixth link. Revolute joints J1 (0,0,0) axis y; J2 (1,0,0) axis z;
// J3 (1,-1,0) axis x; J4 (1,-1,1) axis y; J5 (0,-1,1) axis z; J6 (0,0,1) axis x (to
// ground). Bars J1->J2, ..., J5->J6. g = 9.81 along -y, at rest, 10 s.
// Grubler counts 0 DOF, the geometry gives 1: 6 x 5 joint rows + 5 normalisations = 35
// constraints on 35 coordinates with Phi_q of rank 34 (recorded as problem.constraint_rank).
// Initial potential energy -29.43 J (datum y = 0 through J1). Output: J4.
#include "problems/catalogue/catalogue_entries.h"
#include "problems/catalogue/model_helpers.h"
#include "problems/model/model_problem.h"

namespace mbb {
namespace {

Problem Build(const ParameterSet& p) {
  const Eigen::Vector3d joint[6] = {P(0, 0, 0),  P(1, 0, 0),  P(1, -1, 0),
                                    P(1, -1, 1), P(0, -1, 1), P(0, 0, 1)};
  const Eigen::Vector3d axis[6] = {P(0, 1, 0), P(0, 0, 1), P(1, 0, 0),
                                   P(0, 1, 0), P(0, 0, 1), P(1, 0, 0)};
  const double mass = 1.0, length = 1.0, side = 0.1;
  ModelDescription m;
  m.title = "Bricard mechanism";
  m.source = "001 s7, IFToMM A04";
  m.dimension = 3;
  for (int i = 0; i < 5; ++i) {
    BodyDescription bar;
    bar.name = "bar" + std::to_string(i + 1);
    bar.mass = mass;
    const Eigen::Vector3d along = (joint[i + 1] - joint[i]).cwiseAbs();  // bar direction
    // Body axes = global axes at the start; axial inertia about the bar's own direction.
    const double axial = mass * (side * side + side * side) / 12.0;
    const double transverse = mass * (length * length + side * side) / 12.0;
    bar.inertia = Eigen::Matrix3d(
        (transverse * (Eigen::Vector3d::Ones() - along) + axial * along).asDiagonal());
    bar.position = 0.5 * (joint[i] + joint[i + 1]);
    m.bodies.push_back(bar);
  }
  for (int k = 0; k < 6; ++k) {
    const std::string a = k == 0 ? "ground" : "bar" + std::to_string(k);
    const std::string b = k == 5 ? "ground" : "bar" + std::to_string(k + 1);
    const Eigen::Vector3d pa =
        k == 0 ? joint[k] : Eigen::Vector3d(joint[k] - m.bodies[k - 1].position);
    const Eigen::Vector3d pb = k == 5 ? joint[k] : Eigen::Vector3d(joint[k] - m.bodies[k].position);
    JointDescription j = Joint("J" + std::to_string(k + 1), JointKind::kRevolute, a, pa, b, pb);
    j.axis_a = axis[k];
    j.axis_b = axis[k];
    m.joints.push_back(j);
  }
  m.forces.push_back(Gravity(P(0, -p.GetDouble("g"), 0)));
  const Eigen::Vector3d j4 = joint[3] - m.bodies[2].position;
  m.outputs = {Output("J4_x", OutputKind::kPointX, "bar3", j4),
               Output("J4_y", OutputKind::kPointY, "bar3", j4),
               Output("J4_z", OutputKind::kPointZ, "bar3", j4)};
  m.t_end = 10.0;
  m.h_default = 1e-3;
  // ida and fixed-step methods fail or drift here: docs/known-failures.md.
  m.default_methods = {"odeint-dopri5"};
  return BuildModelProblem(m, "bricard", p);
}

}  // namespace

ProblemEntry BricardEntry() {
  return {"bricard",
          "Bricard 5-bar overconstrained loop (rank-deficient Phi_q), Euler parameters",
          "001 s7, IFToMM A04",
          {{"g", "9.81", "gravity along -y, m/s^2", {}}, FormulationParameter(3)},
          Build};
}

}  // namespace mbb
