// Checks every derivative a MechanicalDae provides against central finite differences
// (the Ceres GradientChecker idea): Phi_q, Phi_t, the velocity residual, gamma (and
// d gamma / dq where the DAE gives it), d/dt Phi_q, the reaction stiffness, dQ/dq, dQ/dv
// and d(M a)/dq, plus the energy-rate identity
// dE/dt = P + lambda . Phi_t along a solution (a, lambda from the acceleration solve).
// Reports the worst entry of each quantity.
#pragma once

#include <string>
#include <vector>

#include "problems/core/mechanical_dae.h"

namespace mbb {

struct DerivativeCheck {
  std::string quantity;
  double max_error = 0.0;  // worst |analytic - finite difference|
  double tolerance = 0.0;
  int row = -1, col = -1;  // where it occurred
  double analytic = 0.0, finite_difference = 0.0;
  bool ok() const { return max_error <= tolerance; }
};

struct DerivativeReport {
  std::vector<DerivativeCheck> checks;
  bool ok() const;
  std::string Summary() const;  // one line per failed check
};

/// Evaluates at (t, q, v) with multipliers lambda for the reaction stiffness. If
/// `acceleration` and `lambda_solution` are given (a consistent index-1 solution at (t,q,v)),
/// also checks the energy-rate identity. Step: 1e-6 (1 + |x|); tolerance 1e-6 (1 + scale):
/// central differences are exact to O(step^2 f''') ~ 1e-12 and lose eps/step ~ 1e-10 to
/// rounding, so a correct derivative passes with four orders to spare and a wrong one
/// (an error of order one) fails.
DerivativeReport CheckDerivatives(const MechanicalDae& dae, double t, const Vector& q,
                                  const Vector& v, const Vector& lambda,
                                  const Vector* acceleration = nullptr,
                                  const Vector* lambda_solution = nullptr);

}  // namespace mbb
