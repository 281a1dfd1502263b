#pragma once
#include <vector>

#include "methods/method.h"

namespace mbb {
std::vector<MethodEntry> OdeintMethodEntries();
}  // namespace mbb
