// The yardstick of the implicit-step goal (docs/performance.md, "Implicit step cost"): the
// time of SOLVES dense LU factorisations with partial pivoting and solves of a SIZE x SIZE
// system, what "a dense (n + m) solve per Newton iteration" costs on this machine, measured
// beside the methods it is compared with (scripts/bench/step_cost.sh). A benchmark, not a test.
//
//   dense_solve_bench SIZE [SOLVES=3] [REPEATS=7] [MIN_SECONDS=0.2]
//
// Each repeat runs as many SOLVES-solve rounds as last MIN_SECONDS (at least one); prints
// "size,solves,rounds_per_repeat,min_s,median_s,gflops_at_min" per round, flops counted as
// SOLVES (2/3 SIZE^3 + 2 SIZE^2).
#include <Eigen/Dense>
#include <cstdio>
#include <cstdlib>

#include "bench/repeat_timer.h"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s SIZE [SOLVES] [REPEATS] [MIN_SECONDS]\n", argv[0]);
    return 2;
  }
  const int size = std::atoi(argv[1]);
  const int solves = argc > 2 ? std::atoi(argv[2]) : 3;
  const int repeats = argc > 3 ? std::atoi(argv[3]) : 7;
  const double min_seconds = argc > 4 ? std::atof(argv[4]) : 0.2;
  if (size < 1 || solves < 1 || repeats < 1 || !(min_seconds > 0.0)) {
    std::fprintf(stderr, "dense_solve_bench: SIZE, SOLVES, REPEATS and MIN_SECONDS must be > 0\n");
    return 2;
  }
  // A well-conditioned matrix (diagonally dominant), fixed from run to run; the LU does
  // the same work whatever the values, pivoting aside.
  Eigen::MatrixXd a = Eigen::MatrixXd::Random(size, size);
  a.diagonal().array() += size;
  const Eigen::VectorXd b = Eigen::VectorXd::Random(size);
  Eigen::PartialPivLU<Eigen::MatrixXd> lu(size);
  Eigen::VectorXd x(size);
  volatile double sink = 0.0;  // keeps the solves from being optimised away
  auto round = [&] {
    for (int s = 0; s < solves; ++s) {
      lu.compute(a);
      x.noalias() = lu.solve(b);
      sink = x[0];
    }
  };
  const mbb::bench::RepeatTimes times = mbb::bench::TimeRepeats(round, repeats, min_seconds);
  const double flops = solves * (2.0 / 3.0 * size * size * size + 2.0 * size * size);
  std::printf("%d,%d,%ld,%.6g,%.6g,%.3g\n", size, solves, times.calls_per_repeat, times.min(),
              times.median(), flops / times.min() * 1e-9);
  return 0;
}
