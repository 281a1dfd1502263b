// The methods on the joint-tree formulation (paper 004): recursive, recursive-zero-mass,
// joint-dense (recursive_methods.cc).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "methods/method.h"
#include "methods/recursive/recursive_formalism.h"

namespace mbb {

std::vector<MethodEntry> RecursiveMethodEntries();

/// One right-hand-side evaluation of a method on a joint-tree problem, for timing
/// (scripts/bench/recursive_scaling.sh): q'' for "recursive" and "joint-dense", the residual
/// (25)/(26) at v' = 0 for "recursive-zero-mass".
struct TreeEquationsProbe {
  const JointTreeDae* dae = nullptr;
  std::function<void(double t, ConstVectorRef q, ConstVectorRef v, VectorRef out)> evaluate;
};
std::unique_ptr<TreeEquationsProbe> MakeTreeEquationsProbe(const std::string& method,
                                                           const JointTreeDae& dae);

}  // namespace mbb
