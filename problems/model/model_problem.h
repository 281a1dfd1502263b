// A model turned into a runnable Problem: formulation (planar or Euler-parameter by the
// model's dimension), consistent initial state (model_assembly.h), outputs and metadata.
#pragma once

#include "problems/model/model_description.h"
#include "problems/problem.h"

namespace mbb {

/// Builds the problem (id and title from the model); throws InputError naming
/// model.Where() for any invalid model or unassemblable initial state.
Problem BuildModelProblem(const ModelDescription& model, const std::string& id);

}  // namespace mbb
