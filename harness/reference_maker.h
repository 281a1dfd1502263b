// The suite's own high-accuracy references (for problems without an analytic or published
// one): the problem is integrated by two different methods and formulations at tight
// tolerance (IDA on the GGL index-2 DAE, ARKODE explicit RK on the projected index-1 ODE),
// both landing exactly on the sample times; the stored solution is IDA's and the digits it
// claims are those on which the two agree. Stored under reference/<problem>/reference.json
// (json_io.cc), one entry per parameter set, refused for other parameters or times.
#pragma once

#include <optional>
#include <string>

#include "harness/runner.h"
#include "reference/reference.h"

namespace mbb {

/// Directory of the reference files: $MBBENCH_REFERENCE_DIR or the source tree's reference/.
std::string ReferenceDirectory();

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

}  // namespace mbb
