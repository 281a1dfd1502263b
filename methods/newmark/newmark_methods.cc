// Registry entries of the Newmark family (paper 001).
#include "methods/newmark/newmark_methods.h"

#include "methods/newmark/newmark_common.h"

namespace mbb {

std::vector<MethodEntry> NewmarkMethodEntries() {
  return {
      {.name = "central-difference-minimal",
       .summary =
           "central differences on a minimal-coordinate form (m = 0), explicit, h <= 2/omega_max",
       .source = "paper 001 eqs 18, 21-22",
       .parameters = {},
       .create = MakeCentralDifferenceMinimal,
       .step = StepMode::kFixed,
       // Second order: central differences = Stoermer-Verlet (paper 001 eqs 21-22), symplectic,
       // hence a bounded energy error [Hairer, Lubich, Wanner 2006, s I.1.4, IX.8].
       .promises =
           MethodPromises::Order(2).Position().Velocity().Acceleration().BoundedEnergyError(),
       .preferred_problem_parameters = {{"form", "minimal"}}},
      {.name = "newmark-index3",
       .summary = "classical index-3 Newmark on q with Lagrange multipliers, Newton on [q, lambda]",
       .source = "paper 001 s2 Fig 1, eqs 7, 10, 28-30",
       .parameters = NewmarkParameters::Index3Specs(),
       .create = MakeNewmarkIndex3,
       .step = StepMode::kFixed,
       // Default scheme trapezoidal (gamma = 1/2): second order (paper 001 s6, "the trapezoidal
       // rule is considered as 2nd order"); Phi = 0 is solved in the Newton iteration, the
       // velocity and acceleration levels are not imposed (index 3).
       .promises = MethodPromises::Order(2).Position()},
      {.name = "newmark-minimal",
       .summary =
           "Newmark family on a minimal-coordinate form (m = 0), Newton on the accelerations",
       .source = "paper 001 s3 eqs 11, 13-15, 26",
       .parameters = NewmarkParameters::Specs(),
       .create = MakeNewmarkMinimal,
       .step = StepMode::kFixed,
       // Default trapezoidal: second order (paper 001 s6; Fox-Goodwin's fourth order holds
       // only for linear undamped motion, docs/methods/newmark.md); Newmark with gamma = 1/2
       // is a variational, symplectic integrator [Kane, Marsden, Ortiz, West 2000]: bounded
       // energy error. No constraints (m = 0).
       .promises =
           MethodPromises::Order(2).Position().Velocity().Acceleration().BoundedEnergyError(),
       .preferred_problem_parameters = {{"form", "minimal"}}},
      {.name = "tangent-newmark",
       .summary = "Newmark integrated in the tangent space of the linearised constraint manifold",
       .source = "paper 001 s5 eqs 32-58, Fig 11",
       .parameters = NewmarkParameters::TangentSpecs(),
       .create = MakeTangentNewmark,
       .step = StepMode::kFixed,
       // Default trapezoidal: second order; the constraints and "all the relevant
       // derivatives" are verified at every step (paper 001 abstract, s5 eqs 34, 38, 42).
       .promises = MethodPromises::Order(2).Position().Velocity().Acceleration()},
  };
}

}  // namespace mbb
