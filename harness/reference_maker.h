// The suite's own high-accuracy references (for problems without an analytic or published
// one): the problem is integrated by two different methods from two libraries at tight
// tolerance (Boost.Odeint Dormand-Prince 5(4) and ARKODE's 4th-order ERK, rtol 1e-13, on
// the projected index-1 ODE), both landing exactly on the sample times; the stored
// solution is Dormand-Prince's and the digits it claims are those on which the two agree,
// less one. (IDA's GGL form at rtol 1e-12 agrees with them only to about 1e-8 relative on
// the spatial pendulum, so it is not used for references.) Stored under
// reference/<problem>/reference.json (json_io.cc), one entry per parameter set, refused for other
// parameters or times.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "harness/runner.h"
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

struct TabulatedReference {
  std::string problem;
  std::map<std::string, std::string> parameters;
  Reference reference;
  double max_difference = 0.0;  // between the two methods, |.|_inf over samples
};

/// Computes a reference at `samples` equally spaced times over (t0, t_end]. Throws
/// InputError if a run fails.
TabulatedReference MakeReference(const std::string& problem, const ParameterSet& params,
                                 int samples, double t_end);
/// The same for a catalogue problem or a model file (`base.model_file`), with the problem
/// parameters and t_end of `base`.
TabulatedReference MakeReference(const RunSpec& base, int samples);

}  // namespace mbb
