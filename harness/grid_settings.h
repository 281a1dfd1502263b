// Settings the method x problem grid (`mbbench run --all-methods`) gives some cells instead of
// the defaults, each with the measurement that called for it (docs/reports.md, "The full
// matrix"). Three kinds:
//   - a method parameter that only changes a diagnostic (the energy-momentum methods'
//     condition number: an SVD per step that costs more than the step), so the cell's
//     trajectory is the default's to the bit;
//   - a step budget (`max_steps`, accepted steps) for a cell whose numerics need more work than
//     the grid can give: an explicit method below its stability limit, an adaptive method whose
//     step collapses. Steps are counted, not timed, so the cell ends the same way on a quiet and
//     on a loaded machine ("max_steps (N) reached at t = ..."), and the table says what the
//     cell needs to finish (measured);
//   - a shorter horizon (`t_end`) for a problem whose default step makes every method take
//     tens of thousands of steps (the stiff flyball governor at h = 2e-4).
// A setting the user gives (`--set key=value`) wins over the grid's. Each applied setting is
// recorded in the result: a method parameter in method.parameters, a horizon in settings.t_end,
// a step budget as a warning naming it and why.
#pragma once

#include <string>
#include <vector>

#include "harness/runner.h"

namespace mbb {

struct GridSetting {
  std::string method;   // "" = every method
  std::string problem;  // "" = every problem
  std::string key;      // a method parameter, "max_steps", or "t_end" (the horizon, s)
  std::string value;
  std::string why;  // the measurement behind it (written into the result's warning)
};

/// The grid's settings, by method then problem.
const std::vector<GridSetting>& GridSettings();

/// Applies the settings of `spec`'s problem and method (unless the spec already sets the key).
void ApplyGridSettings(RunSpec& spec);

}  // namespace mbb
