// The suite's own high-accuracy references (for problems without an analytic or published
// one): the problem is integrated by two different methods from two libraries at tight
// tolerance (Boost.Odeint Dormand-Prince 5(4) and ARKODE's 4th-order ERK, rtol 1e-13, on
// the projected index-1 ODE), both landing exactly on the sample times; the stored
// solution is Dormand-Prince's and the digits it claims are those on which the two agree,
// less one. (IDA's GGL form at rtol 1e-12 agrees with them only to about 1e-8 relative on
// the spatial pendulum, so it is not used for references.) Stored under
// reference/<problem>/reference.json (reference_store.h), one entry per parameter set,
// refused for other parameters or times.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "harness/reference_store.h"
#include "harness/runner.h"

namespace mbb {

/// Computes a reference at `samples` equally spaced times over (t0, t_end]. Throws
/// InputError if a run fails.
TabulatedReference MakeReference(const std::string& problem, const ParameterSet& params,
                                 int samples, double t_end);
/// The same for a catalogue problem or a model file (`base.model_file`), with the problem
/// parameters and t_end of `base`.
TabulatedReference MakeReference(const RunSpec& base, int samples);

}  // namespace mbb
