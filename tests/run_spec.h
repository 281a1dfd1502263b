// A RunSpec for a catalogue problem with parameters, settings and horizon, no timing
// repeats: how the tests describe a run in one line; the same run on the dense and the
// sparse route, or from both starting iterates; and the catalogue problems in the directors
// formulation the energy-momentum schemes take.
#pragma once

#include <map>
#include <string>
#include <utility>

#include "harness/runner.h"
#include "problems/core/problem.h"

namespace mbb {

inline RunSpec Spec(const std::string& problem, const std::string& method,
                    std::map<std::string, std::string> problem_params,
                    std::map<std::string, std::string> settings, double t_end) {
  RunSpec spec;
  spec.problem = problem;
  spec.problem_parameters = ParameterSet(std::move(problem_params));
  spec.method = method;
  spec.SetFromText(ParameterSet(std::move(settings)));
  spec.t_end = t_end;
  spec.repeats = 0;
  return spec;
}

/// One run executed twice, with `constraint_solves` = dense and = sparse added to its
/// settings: the comparisons of the sparse routes with the dense ones.
struct DenseAndSparseRuns {
  RunRecord dense, sparse;
};
inline DenseAndSparseRuns ExecuteOnBothRoutes(const std::string& problem, const std::string& method,
                                              std::map<std::string, std::string> problem_params,
                                              std::map<std::string, std::string> settings,
                                              double t_end) {
  DenseAndSparseRuns out;
  settings["constraint_solves"] = "dense";
  out.dense = Execute(Spec(problem, method, problem_params, settings, t_end));
  settings["constraint_solves"] = "sparse";
  out.sparse = Execute(Spec(problem, method, problem_params, settings, t_end));
  return out;
}

/// One run at step h executed twice, with `predictor` = constant and = extrapolation: the
/// comparisons of the extrapolated starting iterate (methods/common/extrapolator.h) with
/// the classical one.
struct PredictorRuns {
  RunRecord constant, extrapolated;
};
inline PredictorRuns ExecuteFromBothStarts(const std::string& problem, const std::string& method,
                                           const std::string& h, double t_end) {
  PredictorRuns out;
  out.constant = Execute(Spec(problem, method, {}, {{"h", h}, {"predictor", "constant"}}, t_end));
  out.extrapolated =
      Execute(Spec(problem, method, {}, {{"h", h}, {"predictor", "extrapolation"}}, t_end));
  return out;
}

/// Catalogue problem `id` in the directors formulation (constant mass matrix, constraints at
/// most quadratic: what the energy-momentum schemes need).
inline Problem DirectorsProblem(const std::string& id) {
  return BuildProblem(
      id, ParameterSet(std::map<std::string, std::string>{{"formulation", "directors"}}));
}

}  // namespace mbb
