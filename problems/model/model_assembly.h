// Consistent initial conditions for a model (docs/design.md): the model states what its source
// states (held values, ModelDescription bodies' `hold`); the layer
//   positions:  Newton (Gauss-Newton with minimum-norm steps, rank-revealing) on
//               [Phi(t0, q); H_q (q - q_stated)] = 0,
//   velocities: [Phi_q; H_v] v = [-Phi_t; H_v v_stated] in the minimum-norm correction of
//               the stated velocities,
// reports the residuals before and after, records a warning when the stated state was not
// consistent (it has been projected), and throws InputError naming the model file and the
// constraint (or held value) when no consistent state exists near the stated one.
#pragma once

#include <string>
#include <vector>

#include "problems/model/formulation.h"

namespace mbb {

struct AssemblyReport {
  double position_residual_before = 0.0, position_residual_after = 0.0;
  double velocity_residual_before = 0.0, velocity_residual_after = 0.0;
  int newton_iterations = 0;
  int rank = 0;  // numerical rank of Phi_q at the assembled configuration
};

/// Assembles q, v from the stated guess of `formulated`; appends warnings; throws
/// InputError (naming model.Where() and the constraint) if it cannot.
AssemblyReport AssembleInitialState(const ModelDescription& model,
                                    const FormulatedModel& formulated, double t0, Vector& q,
                                    Vector& v, std::vector<std::string>& warnings);

}  // namespace mbb
