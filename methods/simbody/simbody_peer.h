#pragma once
#include <vector>

#include "methods/method.h"

namespace mbb {
/// The Simbody peer engine (registered as `simbody`): problems it has a model for only.
std::vector<MethodEntry> SimbodyMethodEntries();
}  // namespace mbb
