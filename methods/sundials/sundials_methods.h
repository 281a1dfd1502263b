#pragma once
#include <vector>

#include "methods/method.h"

namespace mbb {
std::vector<MethodEntry> IdaMethodEntries();
std::vector<MethodEntry> ArkodeMethodEntries();
}  // namespace mbb
