// The energy-momentum family (paper 002, Betsch & Leyendecker 2006): the constrained
// mid-point scheme (10) and its discrete null space reduction, on problems with a constant
// mass matrix and constraints at most quadratic (the `directors` formulation of a model).
#pragma once

#include <memory>
#include <vector>

#include "methods/method.h"

namespace mbb {

std::vector<MethodEntry> EnergyMomentumMethodEntries();

std::unique_ptr<Method> MakeConstrainedEm(const ParameterSet& params);
std::unique_ptr<Method> MakeNullSpaceEm(const ParameterSet& params);

}  // namespace mbb
