// Pendulum chain (the O(N) scaling family of paper 004): N uniform planar bars of length
// 1 m and mass 1 kg (J = 1/12 kg m^2) hanging from the ground by revolute joints, bar k on
// bar k-1; every `massless_every`-th bar has zero mass and inertia (0: none). Torsional
// dampers c (default 0.5 N m s/rad) in every joint: a massless leaf bar's only direction is
// its joint rotation, whose equation is then (28b) 0 = -c (omega_N - omega_{N-1}) + ..., index
// 1 (section 3.5); a massless bar between two revolute joints has r_i = n_i = 1 and behaves
// classically (paper 004 s3.3: Mbar_i is singular, so it is skipped in the forward
// recursion (24b), but no algebraic equation appears). Two massless bars in a row violate
// assumption (23) and are refused. g = 9.81 along -y; starts straight along +x at rest; 5 s.
// Output: the free end of the last bar.
#include <algorithm>
#include <string>
#include <utility>

#include "problems/catalogue/catalogue_entries.h"
#include "problems/catalogue/model_helpers.h"
#include "problems/model/model_problem.h"

namespace mbb {
namespace {

Problem Build(const ParameterSet& p) {
  const int n = static_cast<int>(p.GetDouble("N"));
  const int every = static_cast<int>(p.GetDouble("massless_every"));
  const double damping = p.GetDouble("c");
  RequirePositive(damping, "c");
  ModelDescription m;
  m.title = "pendulum chain of " + std::to_string(n) + " bars";
  m.source = "004 (scaling family)";
  m.dimension = 2;
  m.formulation = p.GetString("formulation");
  // At N = 1e5 the description is a large part of building's peak memory: no regrowth.
  const size_t count = static_cast<size_t>(std::max(n, 0));
  m.bodies.reserve(count);
  m.joints.reserve(count);
  m.forces.reserve(count + 1);  // a damper per joint and gravity
  std::string previous = "ground";
  for (int k = 1; k <= n; ++k) {
    const bool massless = every > 0 && k % every == 0;
    const std::string name = "bar" + std::to_string(k);
    m.bodies.push_back(PlanarBar(name, massless ? 0.0 : 1.0, 1.0, k - 0.5, 0.0, 0.0));
    const Eigen::Vector3d pa = previous == "ground" ? P(0, 0) : P(0.5, 0);
    m.joints.push_back(
        Joint("J" + std::to_string(k), JointKind::kRevolute, previous, pa, name, P(-0.5, 0)));
    m.forces.push_back(
        TorsionalSpring("damper" + std::to_string(k), previous, name, /*stiffness=*/0.0, damping));
    previous = name;
  }
  m.forces.push_back(Gravity(P(0, -p.GetDouble("g"))));
  m.outputs = {Output("tip_x", OutputKind::kPointX, previous, P(0.5, 0)),
               Output("tip_y", OutputKind::kPointY, previous, P(0.5, 0))};
  m.t_end = 5.0;
  m.h_default = 1e-3;
  m.default_methods = {"recursive", "recursive-zero-mass"};
  return BuildModelProblem(std::move(m), "pendulum_chain", p);
}

}  // namespace

ProblemEntry PendulumChainEntry() {
  return {"pendulum_chain",
          "N bars on revolute joints with dampers, every k-th bar massless (O(N) scaling)",
          "004 (scaling family)",
          {{"N", "4", "number of bars", {}, 1, 1e5, true},
           {"massless_every",
            "0",
            "every k-th bar has zero mass and inertia (0: none)",
            {},
            0,
            1e5,
            true},
           {"c", "0.5", "torsional damper in every joint, N m s/rad", {}},
           {"g", "9.81", "gravity along -y, m/s^2", {}},
           {"formulation",
            "joint-tree",
            "coordinate set (joint-tree: the tree formalism; planar: the model-layer DAE, massive "
            "bars only)",
            {"joint-tree", "planar"}}},
          Build};
}

}  // namespace mbb
