// A model turned into a runnable Problem: formulation (formulation_registry.h: the model's
// `formulation`, or the default for its dimension), consistent initial state
// (model_assembly.h), structure (model_structure.h), outputs and metadata.
#pragma once

#include "problems/core/problem.h"
#include "problems/model/model_description.h"

namespace mbb {

/// Builds the problem (id and title from the model); throws InputError naming
/// model.Where() for any invalid model or unassemblable initial state.
Problem BuildModelProblem(const ModelDescription& model, const std::string& id);

/// The same, in the formulation the catalogue parameter `formulation` names (absent: the
/// model's own choice).
Problem BuildModelProblem(ModelDescription model, const std::string& id,
                          const ParameterSet& params);

}  // namespace mbb
