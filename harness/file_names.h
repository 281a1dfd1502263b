// Names that become file or directory names (problem and model ids, method ids, experiment
// names, run labels) are restricted to a safe alphabet, so that nothing is written outside
// the output directory: no '/', no leading '.', no empty name. And the checks every command
// makes of the directories and files it is given, before it reads or runs anything: each
// refusal is an InputError (exit 2) naming the option, the path and the reason.
#pragma once

#include <string>

namespace mbb {

/// 1 to 120 characters of A-Z a-z 0-9 _ - ., not starting with '.'.
bool IsSafeFileName(const std::string& name);

/// Throws InputError "WHAT 'NAME': not usable as a file name (...)" unless IsSafeFileName.
void RequireSafeName(const std::string& name, const std::string& what);

/// Throws InputError "WHAT DIR: not a directory" (missing, a file) or "WHAT DIR: cannot be
/// read (REASON)" (a symbolic link loop, no permission) unless `dir` is a readable directory.
void RequireDirectory(const std::string& dir, const std::string& what);

/// Creates the output directory `dir` and proves it writable (a probe file, removed), so a
/// bad --out is bad input found at once, not a write error after an hour of runs. Throws
/// InputError "WHAT DIR: ..." with the reason.
void PrepareOutputDirectory(const std::string& dir, const std::string& what = "--out");

/// Proves that `path` can be written as a file before any work: not a directory, its
/// directory exists and is writable (a probe file beside it, removed). InputError
/// "WHAT PATH: ..." otherwise.
void RequireWritableFile(const std::string& path, const std::string& what);

}  // namespace mbb
