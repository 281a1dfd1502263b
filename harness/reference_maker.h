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
