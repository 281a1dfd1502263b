// A planar model written as the equivalent spatial one (dimension 3), so that a spatial
// formulation can integrate it (e.g. `--param formulation=euler-parameters` on a planar
// catalogue entry). lift_planar.cc states the mapping and why it preserves the motion.
#pragma once

#include "problems/model/model_description.h"

namespace mbb {

/// The spatial model (dimension 3) of a validated planar model.
ModelDescription LiftPlanarModel(const ModelDescription& planar);

}  // namespace mbb
