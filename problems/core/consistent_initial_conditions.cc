#include "problems/core/consistent_initial_conditions.h"

#include "problems/core/constraint_projection.h"
#include "problems/core/format.h"

namespace mbb {

namespace {
std::string Format(double x) { return FormatNumber(x, 3); }
}  // namespace

void CheckInitialConditions(Problem& problem) {
  const MechanicalDae& dae = *problem.dae;
  if (problem.q0.size() != dae.num_coordinates() || problem.v0.size() != dae.num_coordinates())
    throw InputError("problem " + problem.id + ": initial state has the wrong size");
  if (!problem.q0.allFinite() || !problem.v0.allFinite())
    throw InputError("problem " + problem.id + ": initial state is not finite");
  InitialResiduals& record = problem.initial_residuals;
  if (dae.num_constraints() == 0) {
    record.recorded = true;
    return;
  }

  auto ws = dae.MakeWorkspace();
  const double scale = problem.q0.lpNorm<Eigen::Infinity>() + 1.0;
  const double tol = kInitialConditionTolerance * scale;

  Vector phi(dae.num_constraints());
  dae.CalcPhi(*ws, problem.t0, problem.q0, phi);
  const double position_residual = phi.lpNorm<Eigen::Infinity>();
  // A model assembled the stated state already and recorded what was stated.
  if (!record.recorded) record.position_stated = position_residual;
  ConstraintProjector projector(dae, *ws);
  if (position_residual > tol) {
    if (!projector.ProjectPositions(problem.t0, problem.q0, tol, 50))
      throw InputError("problem " + problem.id +
                       ": inconsistent initial positions cannot be assembled (|Phi|_inf = " +
                       Format(projector.last_position_residual()) + " after 50 Newton steps)");
    problem.warnings.push_back("initial positions projected onto Phi = 0 (|Phi|_inf was " +
                               Format(position_residual) + ")");
  }
  Vector velocity_residual(dae.num_constraints());
  dae.CalcVelocityResidual(*ws, problem.t0, problem.q0, problem.v0, velocity_residual);
  const double vres = velocity_residual.lpNorm<Eigen::Infinity>();
  if (!record.recorded) record.velocity_stated = vres;
  const double vscale = problem.v0.lpNorm<Eigen::Infinity>() + 1.0;
  if (vres > kInitialConditionTolerance * vscale) {
    projector.ProjectVelocities(problem.t0, problem.q0, problem.v0);
    problem.warnings.push_back(
        "initial velocities projected onto Phi_q v + Phi_t = 0 (residual was " + Format(vres) +
        ")");
  }
  dae.CalcPhi(*ws, problem.t0, problem.q0, phi);
  record.position = phi.lpNorm<Eigen::Infinity>();
  dae.CalcVelocityResidual(*ws, problem.t0, problem.q0, problem.v0, velocity_residual);
  record.velocity = velocity_residual.lpNorm<Eigen::Infinity>();
  record.recorded = true;
}

}  // namespace mbb
