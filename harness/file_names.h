// Names that become file or directory names (problem and model ids, method ids, experiment
// names, run labels) are restricted to a safe alphabet, so that nothing is written outside
// the output directory: no '/', no leading '.', no empty name.
#pragma once

#include <string>

namespace mbb {

/// 1 to 120 characters of A-Z a-z 0-9 _ - ., not starting with '.'.
bool IsSafeFileName(const std::string& name);

/// Throws InputError "WHAT 'NAME': not usable as a file name (...)" unless IsSafeFileName.
void RequireSafeName(const std::string& name, const std::string& what);

}  // namespace mbb
