// The Newmark family of paper 001: tangent-manifold Newmark (section 5) and its classical
// baselines (index-3 Newmark with multipliers, Fig. 1; minimal-coordinate Newmark and central
// differences, eqs. 21-22). Registered through NewmarkMethodEntries() in methods/registry.cc.
#pragma once

#include <memory>
#include <vector>

#include "methods/method.h"

namespace mbb {

std::vector<MethodEntry> NewmarkMethodEntries();

// Factories (one per method file).
std::unique_ptr<Method> MakeNewmarkMinimal(const ParameterSet& p);
std::unique_ptr<Method> MakeCentralDifferenceMinimal(const ParameterSet& p);
std::unique_ptr<Method> MakeNewmarkIndex3(const ParameterSet& p);
std::unique_ptr<Method> MakeTangentNewmark(const ParameterSet& p);

}  // namespace mbb
