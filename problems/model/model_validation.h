// Validation of a model description (model_validation.cc).
#pragma once

#include "problems/model/model_description.h"

namespace mbb {

/// Checks names and references (every joint/force/driver/output names existing bodies,
/// masses positive, finite numbers), then the rules of the model's formulation
/// (formulation_registry.h: an unknown `formulation` lists the choices; joint kinds,
/// inertia, held values, ...); throws InputError naming the model and the offending element.
void ValidateModel(const ModelDescription& model);

}  // namespace mbb
