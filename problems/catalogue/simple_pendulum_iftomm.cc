// IFToMM simple pendulum (docs/problems.md): point mass 1 kg on a massless 1 m link, revolute
// to ground at the origin, g = 9.81 along -y, starts horizontal at rest at x = -1, 10 s.
// Model layer: a planar point mass with a distance joint to the ground pivot (a tree: also
// in formulation=joint-tree, the link angle as joint coordinate).
#include "problems/catalogue/catalogue_entries.h"
#include "problems/catalogue/model_helpers.h"
#include "problems/model/model_problem.h"

namespace mbb {
namespace {

Problem Build(const ParameterSet& p) {
  const double length = p.GetDouble("length");
  RequirePositive(length, "length");
  ModelDescription m;
  m.title = "IFToMM simple pendulum";
  m.source = "IFToMM simple pendulum";
  m.dimension = 2;
  BodyDescription bob;
  bob.name = "bob";
  bob.kind = BodyKind::kPointMass;
  bob.mass = p.GetDouble("mass");
  RequirePositive(bob.mass, "mass");
  bob.position = P(-length, 0.0);
  m.bodies.push_back(bob);
  JointDescription link = Joint("link", JointKind::kDistance, "ground", P(0, 0), "bob", P(0, 0));
  link.length = length;
  m.joints.push_back(link);
  m.forces.push_back(Gravity(P(0, -p.GetDouble("g"))));
  m.outputs = {Output("x", OutputKind::kPointX, "bob"), Output("y", OutputKind::kPointY, "bob")};
  m.t_end = 10.0;
  m.h_default = 1e-3;
  m.default_methods = {"ida", "odeint-dopri5", "arkode-erk"};
  return BuildModelProblem(m, "simple_pendulum_iftomm", p);
}

}  // namespace

ProblemEntry SimplePendulumIftommEntry() {
  return {"simple_pendulum_iftomm",
          "point mass on a massless link (x, y), model layer",
          "IFToMM simple pendulum",
          {{"mass", "1", "kg", {}},
           {"length", "1", "m", {}},
           {"g", "9.81", "gravity along -y", {}},
           FormulationParameter(2)},
          Build};
}

}  // namespace mbb
