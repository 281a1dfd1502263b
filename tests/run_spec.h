// A RunSpec for a catalogue problem with parameters, settings and horizon, no timing
// repeats: how the tests describe a run in one line; and the catalogue problems in the
// directors formulation the energy-momentum schemes take.
#pragma once

#include <map>
#include <string>
#include <utility>

#include "harness/runner.h"
#include "problems/problem.h"

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

/// Catalogue problem `id` in the directors formulation (constant mass matrix, constraints at
/// most quadratic: what the energy-momentum schemes need).
inline Problem DirectorsProblem(const std::string& id) {
  return BuildProblem(
      id, ParameterSet(std::map<std::string, std::string>{{"formulation", "directors"}}));
}

}  // namespace mbb
