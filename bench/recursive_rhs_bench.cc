// Time per right-hand-side evaluation of the paper 004 tree methods on pendulum_chain
// (scripts/bench/recursive_scaling.sh): q'' of `recursive` and `joint-dense`, the residual
// (25)/(26) of `recursive-zero-mass`. A benchmark, not a test.
//
//   recursive_rhs_bench METHOD N MASSLESS_EVERY [REPEATS=7] [MIN_SECONDS=0.2]
//
// Each repeat evaluates as often as needed to last MIN_SECONDS (at least once); prints
// "method,N,massless_every,evaluations_per_repeat,min_s,median_s" per evaluation.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "bench/repeat_timer.h"
#include "methods/recursive/recursive_methods.h"
#include "problems/problem.h"

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: %s METHOD N MASSLESS_EVERY [REPEATS] [MIN_SECONDS]\n", argv[0]);
    return 2;
  }
  const std::string method = argv[1];
  const int repeats = argc > 4 ? std::atoi(argv[4]) : 7;
  const double min_seconds = argc > 5 ? std::atof(argv[5]) : 0.2;
  try {
    mbb::ParameterSet params;
    params.Set("N", argv[2]);
    params.Set("massless_every", argv[3]);
    const mbb::Problem p = mbb::BuildProblem("pendulum_chain", params);
    const auto* dae = dynamic_cast<const mbb::JointTreeDae*>(p.dae.get());
    if (!dae) return 2;
    auto probe = mbb::MakeTreeEquationsProbe(method, *dae);
    // A state off the straight start (every joint bent), at speed.
    const mbb::Vector q = p.q0 + 0.1 * mbb::Vector::Ones(p.n());
    const mbb::Vector v = mbb::Vector::Constant(p.n(), 0.3);
    mbb::Vector out(p.n());
    const mbb::bench::RepeatTimes times =
        mbb::bench::TimeRepeats([&] { probe->evaluate(0.0, q, v, out); }, repeats, min_seconds);
    std::printf("%s,%s,%s,%ld,%.6g,%.6g\n", method.c_str(), argv[2], argv[3],
                times.calls_per_repeat, times.min(), times.median());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 2;
  }
  return 0;
}
