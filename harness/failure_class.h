// Why a run that did not end `ok` ended so, as a class the grid, the export and the report
// count apart (docs/result-schema.md, `failure_class`): a run stopped by its time limit says
// nothing about the method's numerics (it says the machine or the limit was too slow), nor
// does a run that used up max_steps; a Newton divergence, a singular matrix, a step
// underflow or an unbounded solution does. The status values stay what they were (a time
// limit is `failed`); the class is written beside them and derived here for results written
// before the key existed.
#pragma once

#include <string>

namespace mbb {

/// Stopped by --time-limit (runner.cc: "time limit of S s reached at t = ...").
inline constexpr const char* kFailureTimeLimit = "time_limit";
/// Used up the step budget (methods/common/run_loop.h: "max_steps (N) reached at t = ...",
/// "h = ... needs N steps, more than max_steps (M)").
inline constexpr const char* kFailureStepLimit = "step_limit";
/// Any other `failed` or `unstable` run: the method's numerics gave up.
inline constexpr const char* kFailureNumerical = "numerical";

/// The class of a run with this status and message: "" for `ok` and `not_applicable` (and
/// any other word), else kFailureTimeLimit, kFailureStepLimit or kFailureNumerical, read
/// from the message's fixed openings that the runner and the run loop write.
std::string FailureClassOf(const std::string& status, const std::string& message);

/// The status as the run table and the report's grid print it: "failed (time limit)",
/// "failed (step limit)", else the status itself.
std::string StatusWithFailureClass(const std::string& status, const std::string& failure_class);

}  // namespace mbb
