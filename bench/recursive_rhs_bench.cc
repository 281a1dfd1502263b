// Time and memory per body of the paper 004 tree methods' right-hand side on pendulum_chain
// (scripts/bench/recursive_scaling.sh): q'' of `recursive` and `joint-dense`, the residual
// (25)/(26) of `recursive-zero-mass`. A benchmark, not a test.
//
//   recursive_rhs_bench METHOD N MASSLESS_EVERY [REPEATS=7] [MIN_SECONDS=0.2]
//
// Each repeat evaluates as often as needed to last MIN_SECONDS (at least once); prints
//   method,N,massless_every,evaluations_per_repeat,min_s,median_s,
//   ns_per_body_min,ns_per_body_median,rss_problem_B_per_body,rss_method_B_per_body,
//   rss_total_B_per_body
// per evaluation. Resident memory (/proc/self/statm, after the first evaluation): what
// building the problem added, what the method's evaluator (its workspace and tree state)
// added, and the whole process's resident set, each divided by N (the process's fixed part
// of a few MB shows at small N only).
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "bench/repeat_timer.h"
#include "methods/recursive/recursive_methods.h"
#include "problems/core/problem.h"

namespace {

// Resident set size of this process in bytes (0 where /proc is not there).
double ResidentBytes() {
  std::ifstream statm("/proc/self/statm");
  long pages = 0, resident = 0;
  if (!(statm >> pages >> resident)) return 0.0;
  return static_cast<double>(resident) * 4096.0;
}

}  // namespace

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
    const double rss_start = ResidentBytes();
    const mbb::Problem p = mbb::BuildProblem("pendulum_chain", params);
    const auto* dae = dynamic_cast<const mbb::JointTreeDae*>(p.dae.get());
    if (!dae) return 2;
    const double rss_problem = ResidentBytes();
    auto probe = mbb::MakeTreeEquationsProbe(method, *dae);
    // A state off the straight start (every joint bent), at speed.
    const mbb::Vector q = p.q0 + 0.1 * mbb::Vector::Ones(p.n());
    const mbb::Vector v = mbb::Vector::Constant(p.n(), 0.3);
    mbb::Vector out(p.n());
    probe->evaluate(0.0, q, v, out);
    const double rss_method = ResidentBytes();
    const mbb::bench::RepeatTimes times =
        mbb::bench::TimeRepeats([&] { probe->evaluate(0.0, q, v, out); }, repeats, min_seconds);
    const double bodies = dae->num_bodies();
    std::printf("%s,%s,%s,%ld,%.6g,%.6g,%.4g,%.4g,%.0f,%.0f,%.0f\n", method.c_str(), argv[2],
                argv[3], times.calls_per_repeat, times.min(), times.median(),
                times.min() / bodies * 1e9, times.median() / bodies * 1e9,
                (rss_problem - rss_start) / bodies, (rss_method - rss_problem) / bodies,
                rss_method / bodies);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 2;
  }
  return 0;
}
