// Stability-limit search (docs/design.md): the largest fixed step h for which a run over the
// horizon stays bounded, found by a geometric scan (factor 2 from h_min) for the first
// unstable step and then bisection to a relative precision.
//
// Criteria (--criterion):
//   growth (default)  unstable once |q - q0|_inf, |v|_inf, |lambda|_inf or the velocity
//                     constraint residual leaves a band of `factor` (default 10) times the
//                     amplitude of a reference: the problem's stated amplitude for q (the
//                     stiff pendulum's static deflection) or, otherwise, and always for v
//                     and lambda, an `ida` run at rtol 1e-9 over the same horizon. A
//                     linearly unstable step in a nonlinear problem can saturate at a
//                     bounded but wrong amplitude; a band relative to the reference catches
//                     the growth before it saturates.
//   finite            unstable only on a non-finite state or a failed step.
//   bound             unstable once |q - q0|_inf > `bound` (default 1).
// Any failed step (Newton divergence, singular matrix) also counts as unstable.
// The search assumes one stable interval [h_min, h_max_stable]; see docs/stability.md.
#pragma once

#include "harness/run_record.h"
#include "harness/runner.h"

namespace mbb {

struct StabilityOptions {
  double h_min = 0.0;  // 0: the problem's h_default
  double h_max = 0.0;  // 0: 1000 h_min
  double relative_precision = 1e-3;
  std::string criterion = "growth";
  double factor = 10.0;  // growth band factor
  double bound = 1.0;    // bound criterion
  /// Called after each trial (progress line).
  std::function<void(const StabilityTrial&)> on_trial;
};

/// Throws InputError on bad input (names, parameters, options).
StabilityRecord SearchStabilityLimit(const RunSpec& spec, const StabilityOptions& options);

}  // namespace mbb
