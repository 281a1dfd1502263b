#pragma once
#include <vector>

#include "methods/method.h"

namespace mbb {
/// The MuJoCo peer engine (registered as `mujoco`): problems it has a model for only.
std::vector<MethodEntry> MujocoMethodEntries();
}  // namespace mbb
