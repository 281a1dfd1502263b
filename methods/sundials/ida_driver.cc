#include "methods/sundials/ida_driver.h"

#include <ida/ida_ls.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>

#include "methods/common/run_loop.h"

namespace mbb {
namespace {

// IDA's memory, dense matrix and linear solver, freed together.
struct IdaMemory {
  IdaMemory(long size, N_Vector y, SUNContext ctx)
      : mem(IDACreate(ctx)),
        jac(SUNDenseMatrix(size, size, ctx)),
        ls(SUNLinSol_Dense(y, jac, ctx)) {}
  ~IdaMemory() {
    IDAFree(&mem);
    SUNLinSolFree(ls);
    SUNMatDestroy(jac);
  }
  IdaMemory(const IdaMemory&) = delete;
  IdaMemory& operator=(const IdaMemory&) = delete;
  void* mem;
  SUNMatrix jac;
  SUNLinearSolver ls;
};

void ReadCounters(void* mem, WorkCounters& counters) {
  long steps = 0, res = 0, jac_evals = 0, newton = 0, setups = 0, err_fails = 0, res_jac = 0;
  IDAGetNumSteps(mem, &steps);
  IDAGetNumResEvals(mem, &res);
  IDAGetNumJacEvals(mem, &jac_evals);
  IDAGetNumNonlinSolvIters(mem, &newton);
  IDAGetNumLinSolvSetups(mem, &setups);
  IDAGetNumErrTestFails(mem, &err_fails);
  IDAGetNumLinResEvals(mem, &res_jac);  // residuals of the difference-quotient Jacobian
  counters.steps = steps;
  counters.rhs_evals = res + res_jac;
  counters.jacobian_evals = jac_evals;
  counters.newton_iterations = newton;
  counters.factorizations = setups;
  counters.rejected_steps = err_fails;
}

}  // namespace

RunOutcome RunIda(const IdaSetup& setup, SUNContext ctx, SerialVector& y, SerialVector& yp,
                  const RunSettings& settings, StepObserver& observer) {
  RunOutcome outcome;
  const long size = N_VGetLength(y);
  if (const std::string too_large = DenseJacobianTooLarge(size, "IDA"); !too_large.empty()) {
    outcome.status = RunStatus::kFailed;
    outcome.message = too_large + setup.too_large_hint;
    return outcome;
  }
  SundialsErrorSink sink;
  IdaMemory ida(size, y, ctx);
  void* mem = ida.mem;
  std::string error;  // the last failed call and SUNDIALS' message
  auto check = [&](int flag, const char* call) {
    return sink.Check(flag, call, IDAGetReturnFlagName, error);
  };
  const bool ok =
      check(IDASetErrHandlerFn(mem, SundialsErrorSink::Handler, &sink), "IDASetErrHandlerFn") &&
      check(IDAInit(mem, setup.residual, settings.t0, y, yp), "IDAInit") &&
      check(IDASetUserData(mem, setup.user_data), "IDASetUserData") &&
      (setup.atol ? check(IDASVtolerances(mem, settings.rtol, setup.atol), "IDASVtolerances")
                  : check(IDASStolerances(mem, settings.rtol, settings.atol), "IDASStolerances")) &&
      check(IDASetLinearSolver(mem, ida.ls, ida.jac), "IDASetLinearSolver") &&
      (!setup.id || (check(IDASetId(mem, setup.id), "IDASetId") &&
                     check(IDASetSuppressAlg(mem, SUNTRUE), "IDASetSuppressAlg"))) &&
      (setup.max_order == 0 || check(IDASetMaxOrd(mem, setup.max_order), "IDASetMaxOrd")) &&
      check(IDASetMaxNumSteps(mem, settings.max_steps), "IDASetMaxNumSteps") &&
      // A step below 1e-12 of the horizon is a stall (the index-3 form does this,
      // docs/toolchain.md trap 4): fail it rather than crawl.
      check(IDASetMinStep(mem, 1e-12 * (settings.t_end - settings.t0)), "IDASetMinStep");
  if (!ok) {
    outcome.status = RunStatus::kFailed;
    outcome.message = error;
    return outcome;
  }
  RunLoop loop(settings, observer);
  loop.ReportStart(setup.sample(settings.t0));
  double t = settings.t0;
  while (loop.Continues(t)) {
    const double target = loop.NextTarget(t);
    if (!check(IDASetStopTime(mem, target), "IDASetStopTime") ||
        !check(IDASolve(mem, target, &t, y, yp, IDA_ONE_STEP), "IDASolve")) {
      const std::string note = setup.failure_note ? setup.failure_note() : std::string();
      loop.FailStep(t, note.empty() ? error : error + " (" + note + ")");
      break;
    }
    if (!loop.AcceptStep(setup.sample(t))) break;
  }
  loop.Finish(outcome);
  ReadCounters(mem, outcome.counters);
  return outcome;
}

}  // namespace mbb
