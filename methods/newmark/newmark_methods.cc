// Registry entries of the Newmark family (paper 001).
#include "methods/newmark/newmark_methods.h"

#include "methods/newmark/newmark_common.h"

namespace mbb {

std::vector<MethodEntry> NewmarkMethodEntries() {
  return {
      {"central-difference-minimal",
       "central differences on a minimal-coordinate form (m = 0), explicit, h <= 2/omega_max",
       "paper 001 eqs 18, 21-22",
       true,
       false,
       {},
       MakeCentralDifferenceMinimal,
       nullptr,
       // Second order: central differences = Stoermer-Verlet (paper 001 eqs 21-22), symplectic,
       // hence a bounded energy error [Hairer, Lubich, Wanner 2006, s I.1.4, IX.8].
       MethodPromises::FixedStep(2).Position().Velocity().Acceleration().BoundedEnergyError(),
       {{"form", "minimal"}}},
      {"newmark-index3",
       "classical index-3 Newmark on q with Lagrange multipliers, Newton on [q, lambda]",
       "paper 001 s2 Fig 1, eqs 7, 10, 28-30", true, false, NewmarkParameters::Index3Specs(),
       MakeNewmarkIndex3, nullptr,
       // Default scheme trapezoidal (gamma = 1/2): second order (paper 001 s6, "the trapezoidal
       // rule is considered as 2nd order"); Phi = 0 is solved in the Newton iteration, the
       // velocity and acceleration levels are not imposed (index 3).
       MethodPromises::FixedStep(2).Position()},
      {"newmark-minimal",
       "Newmark family on a minimal-coordinate form (m = 0), Newton on the accelerations",
       "paper 001 s3 eqs 11, 13-15, 26",
       true,
       false,
       NewmarkParameters::Specs(),
       MakeNewmarkMinimal,
       nullptr,
       // Default trapezoidal: second order (paper 001 s6; Fox-Goodwin's fourth order holds
       // only for linear undamped motion, docs/methods/newmark.md); Newmark with gamma = 1/2
       // is a variational, symplectic integrator [Kane, Marsden, Ortiz, West 2000]: bounded
       // energy error. No constraints (m = 0).
       MethodPromises::FixedStep(2).Position().Velocity().Acceleration().BoundedEnergyError(),
       {{"form", "minimal"}}},
      {"tangent-newmark",
       "Newmark integrated in the tangent space of the linearised constraint manifold",
       "paper 001 s5 eqs 32-58, Fig 11", true, false, NewmarkParameters::TangentSpecs(),
       MakeTangentNewmark, nullptr,
       // Default trapezoidal: second order; the constraints and "all the relevant
       // derivatives" are verified at every step (paper 001 abstract, s5 eqs 34, 38, 42).
       MethodPromises::FixedStep(2).Position().Velocity().Acceleration()},
  };
}

}  // namespace mbb
