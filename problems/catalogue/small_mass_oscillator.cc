// Small mass oscillator of paper 004 s2.2, eq (5): masses m1 (small) and m2 on the x axis,
// spring-damper (c1, d1) from the reference to m1, (c2, d2) between m1 and m2, force F(t)
// on m1. Data (docs/problems.md): m2 = 1, c1 = c2 = 1, d1 = d2 = 1e-5, F(t) = 1 - cos t,
// 10 s, at rest at t = 0; m1 a parameter (default 1e-3).
// Model layer, planar: two point masses with y held at 0 by drivers; the springs are
// translational spring-dampers of rest length 10 anchored 10 m apart, so p1 = x1 and
// p2 = x2 - 10 are the displacements of eq (5).
// With formulation=joint-tree the drivers become prismatic joints along x, m1 on the ground
// and m2 on m1: the relative coordinates q1 = p1, q2 = p2 - p1 of paper 004 s2.2. Only
// there m1 = 0 is allowed: the limit model, eq (6), is the mixed first/second-order system
// of the rank-deficient formalism (paper 004 s3, methods/recursive/).
#include "problems/catalogue/catalogue_entries.h"
#include "problems/catalogue/model_helpers.h"
#include "problems/model/model_problem.h"

namespace mbb {
namespace {

// Rest length of both springs and spacing of the anchors, m: long compared with the
// displacements (|p| < 3 here), so no spring passes through zero length, where the
// direction of a 2D spring-damper is undefined (a 1 m spacing did at t = 8.03 s).
constexpr double kRest = 10.0;

Problem Build(const ParameterSet& p) {
  const double m1 = p.GetDouble("m1");
  const bool tree = p.GetString("formulation") == "joint-tree";
  if (m1 == 0.0 && !tree)
    throw InputError(
        "parameter 'm1' = 0: the eq (6) limit model needs formulation=joint-tree (the "
        "rank-deficient mass formalism of paper 004)");
  if (m1 != 0.0) RequirePositive(m1, "m1");
  ModelDescription m;
  m.title = "small mass oscillator";
  m.source = "004 s2.2 eq 5";
  m.dimension = 2;
  for (int i = 0; i < 2; ++i) {
    BodyDescription b;
    b.name = i == 0 ? "m1" : "m2";
    b.kind = BodyKind::kPointMass;
    b.mass = i == 0 ? m1 : p.GetDouble("m2");
    b.position = P(kRest * i, 0.0);
    m.bodies.push_back(b);
    if (tree) {  // prismatic along x: q1 = x1, q2 = x2 - x1 - kRest = p2 - p1
      JointDescription j = Joint("slide_" + b.name, JointKind::kPrismatic, i == 0 ? "ground" : "m1",
                                 P(i == 0 ? 0.0 : kRest, 0.0), b.name, P(0, 0));
      j.axis_a = P(1, 0);
      m.joints.push_back(j);
      continue;
    }
    DriverDescription d;
    d.name = "on_axis_" + b.name;
    d.kind = DriverKind::kCoordinate;
    d.body_a = b.name;
    d.coordinate = "y";
    m.drivers.push_back(d);
  }
  RequirePositive(m.bodies[1].mass, "m2");
  m.forces.push_back(SpringDamper("c1_d1", "ground", P(-kRest, 0), "m1", p.GetDouble("c1"),
                                  p.GetDouble("d1"), kRest));
  m.forces.push_back(
      SpringDamper("c2_d2", "m1", P(0, 0), "m2", p.GetDouble("c2"), p.GetDouble("d2"), kRest));
  ForceDescription force;
  force.name = "F";
  force.kind = ForceKind::kForce;
  force.body_a = "m1";
  force.vector = P(1, 0);
  force.law.offset = 1.0;  // F(t) = 1 - cos t = 1 + (-1) sin(t + pi/2)
  force.law.amplitude = -1.0;
  force.law.frequency = 1.0;
  force.law.phase = M_PI / 2;
  m.forces.push_back(force);
  m.outputs = {Output("p1", OutputKind::kPointX, "m1"), Output("p2", OutputKind::kPointX, "m2")};
  m.outputs[1].offset = -kRest;
  m.t_end = 10.0;
  m.h_default = 1e-3;
  m.default_methods = {"ida", "odeint-dopri5"};
  return BuildModelProblem(m, "small_mass_oscillator", p);
}

}  // namespace

ProblemEntry SmallMassOscillatorEntry() {
  return {"small_mass_oscillator",
          "two coupled oscillators with a small mass m1 (point masses on x), model layer",
          "004 s2.2 eq 5",
          {{"m1", "1e-3", "small mass, kg (> 0; 0 with formulation=joint-tree: eq (6))", {}},
           {"m2", "1", "large mass, kg", {}},
           {"c1", "1", "spring to the reference, N/m", {}},
           {"c2", "1", "spring between the masses, N/m", {}},
           {"d1", "1e-5", "damper to the reference, N s/m", {}},
           {"d2", "1e-5", "damper between the masses, N s/m", {}},
           FormulationParameter(2)},
          Build};
}

}  // namespace mbb
