// N four-bar chain (IFToMM A02; docs/problems.md "Catalogue", for scale): N + 1 vertical
// cranks of 1 m joined by N couplers, the double four-bar's data (double_four_bar.cc) with
// N windows. A02 uses N = 40 (243 coordinates); the default is N = 4 (27 coordinates) so
// that the default catalogue stays quick with the implicit methods' dense linear algebra
// (the ODE baselines solve their constraints sparsely from 60 coordinates on,
// problems/core/sparse_constraint_system.h): pass `--param N=40` for the benchmark size.
// Outputs: B0, the top of the left crank.
#include "problems/catalogue/catalogue_entries.h"
#include "problems/catalogue/model_helpers.h"
#include "problems/model/model_problem.h"

namespace mbb {
namespace {

Problem Build(const ParameterSet& p) {
  const double windows = p.GetDouble("N");
  if (windows < 1 || windows != static_cast<int>(windows))
    throw InputError("parameter 'N' = " + std::to_string(windows) + ": must be an integer >= 1");
  return BuildModelProblem(FourBarChainModel(static_cast<int>(windows), p), "n_four_bar", p);
}

}  // namespace

ProblemEntry NFourBarEntry() {
  return {"n_four_bar",
          "chain of N four-bars (N + 1 cranks, N couplers) through singular positions",
          "IFToMM A02",
          // At most 200 windows (1203 coordinates): the dense matrices of the suite's
          // implicit methods grow with the square of that, and a mistyped N must not
          // exhaust memory.
          {{"N", "4", "number of four-bar windows (A02: 40), 1 to 200", {}, 1, 200, true},
           {"omega0", "-1", "initial angular velocity of every crank, rad/s", {}},
           {"g", "9.81", "gravity along -y, m/s^2", {}},
           FormulationParameter(2)},
          Build};
}

}  // namespace mbb
