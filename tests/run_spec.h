// A RunSpec for a catalogue problem with parameters, settings and horizon, no timing
// repeats: how the tests describe a run in one line.
#pragma once

#include <map>
#include <string>
#include <utility>

#include "harness/runner.h"

namespace mbb {

inline RunSpec Spec(const std::string& problem, const std::string& method,
                    std::map<std::string, std::string> problem_params,
                    std::map<std::string, std::string> settings, double t_end) {
  RunSpec spec;
  spec.problem = problem;
  spec.problem_parameters = ParameterSet(std::move(problem_params));
  spec.method = method;
  spec.settings = ParameterSet(std::move(settings));
  spec.t_end = t_end;
  spec.repeats = 0;
  return spec;
}

}  // namespace mbb
