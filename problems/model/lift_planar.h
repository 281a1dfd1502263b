// A planar model written as the equivalent spatial one (dimension 3), so that a spatial
// formulation can integrate it (e.g. `--param formulation=euler-parameters` on a planar
// catalogue entry). lift_planar.cc states the mapping and why it preserves the motion.
#pragma once

#include "problems/model/model_description.h"

namespace mbb {

/// The spatial model of a validated planar model (dimension 2); throws InputError naming
/// the element for what has no spatial counterpart in the Euler-parameter equations
/// (torsional spring-dampers, relative-angle and angle drivers).
ModelDescription LiftPlanarModel(const ModelDescription& planar);

}  // namespace mbb
