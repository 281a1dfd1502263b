// The energy-momentum family (paper 002, Betsch & Leyendecker 2006): the constrained
// mid-point scheme (10) and its discrete null space reduction, on problems with a constant
// mass matrix and constraints at most quadratic (the `directors` formulation of a model).
#pragma once

#include <memory>
#include <vector>

#include "methods/method.h"

namespace mbb {

std::vector<MethodEntry> EnergyMomentumMethodEntries();

/// The Newton settings both schemes take (`tol`, `max_iterations`, `condition`, `predictor`).
struct MidpointNewton {
  double tol = 1e-12;  // largest change of q1 relative to 1 + |q1|
  int max_iterations = 30;
  bool condition_every_step = true;  // `condition=every-step` (else the first step only)
  // `predictor=extrapolation`: the first iterate from v_{n+1} (constrained-em also lambda)
  // extrapolated from the last steps (methods/common/extrapolator.h); else from v_n.
  bool extrapolate_start = true;
  static MidpointNewton FromParameters(const ParameterSet& params);
};

std::unique_ptr<Method> MakeConstrainedEm(const ParameterSet& params);
std::unique_ptr<Method> MakeNullSpaceEm(const ParameterSet& params);

}  // namespace mbb
