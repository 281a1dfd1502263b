// Consistent initial conditions (docs/design.md): checks Phi(t0, q0) = 0 and
// Phi_q v0 + Phi_t = 0; projects an inconsistent state with a warning recorded in the
// problem (and so in every result), and refuses a state it cannot make consistent.
#pragma once

#include "problems/core/problem.h"

namespace mbb {

/// Tolerance below which an initial residual is accepted as is (relative to the problem
/// scale |q0|_inf + 1): a few hundred ulps, what a closed-form initial state computed with
/// sines and cosines leaves.
inline constexpr double kInitialConditionTolerance = 1e-12;

/// Projects q0, v0 if needed; throws InputError naming the problem and the largest
/// residual if Newton on Phi does not converge.
void CheckInitialConditions(Problem& problem);

}  // namespace mbb
