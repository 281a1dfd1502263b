// The store of tabulated references: where they are looked up (the reference directories),
// how a run finds its reference (built-in, stored, or translated from another formulation
// through the body motions), and the reference files themselves (reading, listing, writing
// entries of reference/<problem>/reference.json, schema mbbench.reference/1). Making a new
// reference (two methods at tight tolerance) is reference_maker.h, above the runner.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "problems/core/problem.h"
#include "reference/reference.h"

namespace mbb {

/// The catalogue's reference directory in use: $MBBENCH_REFERENCE_DIR (set by
/// `--reference-dir`), else the installed copy next to the executable
/// (<prefix>/bin/../share/mbbench/reference), else the source tree's reference/ (unless
/// MBBENCH_NO_SOURCE_REFERENCE is set); "" when none exists.
std::string ReferenceDirectory();

/// Every directory searched for a stored reference, in order: $MBBENCH_REFERENCE_DIR, the
/// user reference directory, the installed copy, the source tree's (docs/reports.md).
std::vector<std::string> ReferenceSearchPath();

/// Where `reference --model` writes and runs on model files look: $MBBENCH_REFERENCE_DIR,
/// else $XDG_DATA_HOME/mbbench/reference, else $HOME/.local/share/mbbench/reference.
std::string UserReferenceDirectory();

/// The content hash of a model file (FNV-1a 64, 16 hex digits): its references are keyed by
/// it, under <dir>/models/<hash>/reference.json. Throws InputError if it cannot be read.
std::string ModelFileHash(const std::string& path);

/// A hash of every reference.json under ReferenceDirectory() (relative names and contents,
/// FNV-1a 64; the same for the source tree and an installed copy), or
/// "none" without one: `mbbench --version` prints it and every result records it.
const std::string& ReferenceDataHash();

/// Non-empty when the problem has a stored catalogue reference in the source tree this
/// binary was built from, but no reference directory searched holds its file: the run then
/// has no error metrics, and the result and stderr say why.
std::string MissingReferenceWarning(const Problem& problem);

/// Built-in (analytic, published) reference, else a stored one matching the parameters.
std::optional<Reference> FindAnyReference(const Problem& problem);

/// One entry of a reference file: a problem's parameters and its tabulated solution.
struct TabulatedReference {
  std::string problem;
  std::map<std::string, std::string> parameters;
  Reference reference;
  double max_difference = 0.0;  // between the two methods, |.|_inf over samples
};

/// The stored reference in `path` whose parameters equal the problem's, if any (none for a
/// missing file). Throws InputError naming the file when it is malformed.
std::optional<Reference> ReadReferenceFile(const std::string& path, const Problem& problem);
/// Whether `path` holds an entry for these (complete) problem parameters, without building
/// the problem (a large model's assembly costs more than reading the file). False for a
/// missing file; InputError naming the file when it is malformed.
bool ReferenceFileLists(const std::string& path, const std::string& problem_id,
                        const std::map<std::string, std::string>& parameters);
/// Adds (or replaces, for equal parameters) one entry of a reference file.
void WriteReferenceEntry(const std::string& path, const TabulatedReference& entry);

}  // namespace mbb
