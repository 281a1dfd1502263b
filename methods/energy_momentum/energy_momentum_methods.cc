// Registry entries of the energy-momentum family (paper 002).
#include "methods/energy_momentum/energy_momentum_methods.h"

#include "methods/energy_momentum/null_space_sparse_system.h"

namespace mbb {
namespace {

std::vector<ParameterSpec> NewtonParameters() {
  return {{"tol",
           "1e-12",
           "Newton: largest change of q1 relative to 1 + |q1| at convergence",
           {},
           1e-16,
           1e-2},
          {"max_iterations",
           "30",
           "Newton iterations per step before the step fails",
           {},
           1,
           1000,
           true},
          {"condition",
           "every-step",
           "when the 2-norm condition number of the Newton matrix is measured (an SVD): at the "
           "first iteration of every step, or of the first step only (faster timings)",
           {"every-step", "first-step"}},
          {"predictor",
           "extrapolation",
           "first iterate of a step: q1 = q0 + h (v0 + v1) / 2 with v1 (and constrained-em's "
           "lambda) extrapolated from the last accepted steps, of the order that predicted the "
           "last one best (extrapolation), or q1 = q0 + h v0 (constant)",
           {"extrapolation", "constant"}}};
}

std::vector<ParameterSpec> NullSpaceParameters() {
  auto specs = NewtonParameters();
  specs.push_back({"null_space",
                   "explicit",
                   "explicit: the paper's P and reparametrisation where the model allows it "
                   "(a tree of S, R, C, P, E pairs), else local coordinates of the manifold (both "
                   "Newton on the degrees of freedom); local: local coordinates everywhere; "
                   "generic: the numerical null space with the n coordinates as unknowns",
                   {"explicit", "local", "generic"}});
  specs.push_back({"constraint_solves",
                   "auto",
                   "the local-coordinate step's bases and solves: dense QRs of G^T, sparse "
                   "Cholesky of G G^T and LU of G1 G0^T "
                   "(methods/energy_momentum/null_space_sparse_system.h), or auto (sparse from " +
                       std::to_string(NullSpaceSparseSystem::kAutoMinCoordinates) +
                       " coordinates on)",
                   {"auto", "dense", "sparse"}});
  return specs;
}

}  // namespace

MidpointNewton MidpointNewton::FromParameters(const ParameterSet& params) {
  MidpointNewton out;
  out.tol = params.GetDouble("tol", out.tol);
  out.max_iterations = static_cast<int>(params.GetDouble("max_iterations", out.max_iterations));
  out.condition_every_step = params.GetString("condition", "every-step") == "every-step";
  out.extrapolate_start = params.GetString("predictor", "extrapolation") == "extrapolation";
  return out;
}

std::vector<MethodEntry> EnergyMomentumMethodEntries() {
  // Both: the mid-point rule is second order; scheme (10) conserves energy (with the
  // discrete gradient) and the momentum maps of symmetries (paper 002 s2.2.1, Part I s3),
  // and imposes Phi(q_{n+1}) = 0 at every step. The node velocities need not satisfy the
  // hidden constraint (discrete_gradient.h), so no velocity-level promise.
  return {
      {.name = "constrained-em",
       .summary = "energy-momentum mid-point scheme with discrete gradient, Newton on (q, "
                  "lambda), n + m unknowns; constant mass matrix, constraints at most quadratic "
                  "(directors)",
       .source = "paper 002 eq 10 (Part I s3.1)",
       .parameters = NewtonParameters(),
       .create = MakeConstrainedEm,
       .step = StepMode::kFixed,
       .promises = MethodPromises::Order(2).Position().BoundedEnergyError(),
       .preferred_problem_parameters = {{"formulation", "directors"}}},
      {.name = "null-space-em",
       .summary =
           "discrete null space method: scheme (10) with P^T eliminating lambda; the paper's P "
           "and reparametrisation for trees of S, R, C, P, E pairs, else local coordinates of "
           "the manifold (Newton on the DOF either way; null_space=generic: on q, n unknowns)",
       .source = "paper 002 s2.2.2, s4.5, eqs 10-14, 44, 84-154, 178-184 (Part I s3.2)",
       .parameters = NullSpaceParameters(),
       .create = MakeNullSpaceEm,
       .step = StepMode::kFixed,
       .promises = MethodPromises::Order(2).Position().BoundedEnergyError(),
       .preferred_problem_parameters = {{"formulation", "directors"}}},
  };
}

}  // namespace mbb
