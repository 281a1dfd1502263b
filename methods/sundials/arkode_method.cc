// SUNDIALS ARKODE (ARKStep) on the index-1 ODE form y = [q; v], y' = [v; a]
// (first_order_ode.h):
//   arkode-erk   explicit Runge-Kutta, ARKODE's default 4th-order ERK table with embedded
//                error estimate (adaptive), or fixed step with --set h
//   arkode-dirk  diagonally implicit RK (ARKODE's default 4th-order DIRK table), Newton with
//                a dense direct solver and difference-quotient Jacobian
// The `order` parameter picks ARKODE's default table of another order (ARKStepSetOrder:
// ERK 2, 3, 4, 5, 6, 8; DIRK 2, 3, 4, 5; the tables are listed in docs/methods.md).
// Drift control defaults: coordinate projection on (applied to every accepted step as
// ARKODE's step post-processing, ProjectAfterStep below) and Baumgarte off. Projection keeps the
// order of the method and needs no tuning; Baumgarte gains are problem dependent and, for the
// explicit method, add stiffness, so they are available but off (docs/methods.md).
// All ARKODE calls sit in this file (7.x renames them to ARKode*: docs/toolchain.md trap 5).
#include <arkode/arkode_arkstep.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>

#include <cmath>
#include <string>

#include "methods/common/first_order_ode.h"
#include "methods/common/run_loop.h"
#include "methods/sundials/sundials_methods.h"
#include "methods/sundials/sundials_support.h"

namespace mbb {
namespace {

// ARKODE's user data: the ODE, and whether the last failure was the projection's (ARKODE
// reports only ARK_POSTPROCESS_STEP_FAIL; the result names the reason).
struct ArkodeUserData {
  FirstOrderOde& ode;
  bool projection_failed = false;
};

int OdeRhs(sunrealtype t, N_Vector y, N_Vector ydot, void* data) {
  FirstOrderOde* ode = &static_cast<ArkodeUserData*>(data)->ode;
  if (!ode->Rhs(t, N_VGetArrayPointer(y), N_VGetArrayPointer(ydot))) return -1;
  const double* d = N_VGetArrayPointer(ydot);
  for (int i = 0; i < ode->size(); ++i)
    if (!std::isfinite(d[i])) return 1;  // recoverable: ARKODE retries with a smaller step
  return 0;
}

// Projection as ARKODE's step post-processing: applied to the accepted solution before ARKODE
// stores it, so the integrator continues from the projected state with its step-size history,
// nonlinear-solver state and (DIRK) its Jacobian intact. A reset after each projection
// (ARKStepReset, the earlier design) forced a difference-quotient Jacobian every DIRK step:
// Bricard at the grid's rtol 1e-10 took 5660 Jacobians and 507,796 right-hand sides in 14.0 s,
// now 381 and 147,245 in 4.6 s with the same error (6.8e-13 m against 5.7e-13 m); the
// explicit method keeps its steps and errors bit for bit and saves the reset's one extra
// right-hand side per step. A failed projection returns nonzero: ARK_POSTPROCESS_STEP_FAIL.
int ProjectAfterStep(sunrealtype t, N_Vector y, void* data) {
  auto* user = static_cast<ArkodeUserData*>(data);
  user->projection_failed = !user->ode.Project(t, N_VGetArrayPointer(y));
  return user->projection_failed ? -1 : 0;
}

class ArkodeMethod final : public Method {
 public:
  ArkodeMethod(bool implicit, const ParameterSet& p)
      : implicit_(implicit),
        order_(std::stoi(p.GetString("order", "4"))),
        options_(OdeFormOptions::FromParameters(p)) {}

  RunOutcome Run(const Problem& problem, const RunSettings& settings,
                 StepObserver& observer) const override {
    RunOutcome outcome;
    SundialsContext ctx;
    FirstOrderOde ode(problem, options_);
    ArkodeUserData user{ode};
    const int n = problem.n();
    SerialVector y(ode.size(), ctx);
    Eigen::Map<Vector> yv(y.data(), ode.size());
    yv.head(n) = problem.q0;
    yv.tail(n) = problem.v0;
    if (implicit_) {
      const std::string too_large = DenseJacobianTooLarge(ode.size(), "ARKODE");
      if (!too_large.empty()) {
        outcome.status = RunStatus::kFailed;
        outcome.message = too_large;
        return outcome;
      }
    }

    SundialsErrorSink sink;
    void* mem = implicit_ ? ARKStepCreate(nullptr, OdeRhs, settings.t0, y, ctx)
                          : ARKStepCreate(OdeRhs, nullptr, settings.t0, y, ctx);
    SUNMatrix jac = nullptr;
    SUNLinearSolver ls = nullptr;
    auto cleanup = [&] {
      ARKStepFree(&mem);
      if (ls) SUNLinSolFree(ls);
      if (jac) SUNMatDestroy(jac);
    };
    std::string error;  // the last failed call and SUNDIALS' message
    auto check = [&](int flag, const char* call) {
      return sink.Check(flag, call, ARKStepGetReturnFlagName, error);
    };
    bool ok =
        check(ARKStepSetErrHandlerFn(mem, SundialsErrorSink::Handler, &sink),
              "ARKStepSetErrHandlerFn") &&
        check(ARKStepSetUserData(mem, &user), "ARKStepSetUserData") &&
        check(ARKStepSetOrder(mem, order_), "ARKStepSetOrder") &&
        check(ARKStepSStolerances(mem, settings.rtol, settings.atol), "ARKStepSStolerances") &&
        check(ARKStepSetMaxNumSteps(mem, settings.max_steps), "ARKStepSetMaxNumSteps");
    if (ok && settings.h > 0.0)
      ok = check(ARKStepSetFixedStep(mem, settings.h), "ARKStepSetFixedStep");
    if (ok && implicit_) {
      jac = SUNDenseMatrix(ode.size(), ode.size(), ctx);
      ls = SUNLinSol_Dense(y, jac, ctx);
      ok = check(ARKStepSetLinearSolver(mem, ls, jac), "ARKStepSetLinearSolver");
      // With a fixed step a Newton failure cannot be retried with a smaller step, so the
      // Jacobian is rebuilt every step: reused, stiff_pendulum (constrained form) at
      // h = 0.03125 fails its Newton iteration at step 3.
      if (ok && settings.h > 0.0)
        ok = check(ARKStepSetLSetupFrequency(mem, 1), "ARKStepSetLSetupFrequency") &&
             check(ARKStepSetJacEvalFrequency(mem, 1), "ARKStepSetJacEvalFrequency");
    }
    if (ok && ode.projection_enabled())
      ok = check(ARKStepSetPostprocessStepFn(mem, ProjectAfterStep), "ARKStepSetPostprocessStepFn");
    if (!ok) {
      cleanup();
      outcome.status = RunStatus::kFailed;
      outcome.message = error;
      return outcome;
    }

    // The shared protocol (run_loop.h): stop times, non-finite state, observer stop,
    // max_steps. With a fixed step ARKODE takes the steps as given and ignores stop times,
    // as the suite's fixed-step methods do.
    RunLoop loop(settings, observer);
    Vector q(n), v(n);
    auto sample = [&](double t) -> StepSample {
      q = yv.head(n);
      v = yv.tail(n);
      return {t, q, v, nullptr, nullptr};
    };
    loop.ReportStart(sample(settings.t0));
    if (settings.h > 0.0) loop.CheckFixedStepCount(settings.h);
    double t = settings.t0;
    while (loop.Continues(t)) {
      const double target = loop.NextTarget(t);
      // A stop time in fixed-step mode too: ARKODE then shortens the last step to land on
      // t_end instead of stepping past it.
      const double stop = settings.h > 0.0 ? settings.t_end : target;
      if (!check(ARKStepSetStopTime(mem, stop), "ARKStepSetStopTime") ||
          !check(ARKStepEvolve(mem, settings.h > 0.0 ? stop : target, y, &t, ARK_ONE_STEP),
                 "ARKStepEvolve")) {
        loop.FailStep(t, user.projection_failed ? "position projection did not converge" : error);
        break;
      }
      if (!loop.AcceptStep(sample(t))) break;
    }
    loop.Finish(outcome);
    long steps = 0, nfe = 0, nfi = 0, err_fails = 0;
    ARKStepGetNumSteps(mem, &steps);
    ARKStepGetNumRhsEvals(mem, &nfe, &nfi);
    ARKStepGetNumErrTestFails(mem, &err_fails);
    outcome.counters.steps = steps;
    outcome.counters.rhs_evals = ode.rhs_evals();
    outcome.counters.rejected_steps = err_fails;
    if (implicit_) {
      long jevals = 0, newton = 0, setups = 0;
      ARKStepGetNumJacEvals(mem, &jevals);
      ARKStepGetNumNonlinSolvIters(mem, &newton);
      ARKStepGetNumLinSolvSetups(mem, &setups);
      outcome.counters.jacobian_evals = jevals;
      outcome.counters.newton_iterations = newton;
      outcome.counters.factorizations = setups;
    }
    cleanup();
    return outcome;
  }

 private:
  bool implicit_;
  int order_;  // of ARKODE's default table (ARKStepSetOrder)
  OdeFormOptions options_;
};

// The ODE form's parameters and `order`, the order of ARKODE's default table.
std::vector<ParameterSpec> ArkodeParameters(std::vector<std::string> orders) {
  std::vector<ParameterSpec> specs = OdeFormOptions::Specs();
  specs.push_back({"order", "4", "order of ARKODE's default table (ARKStepSetOrder)", orders});
  return specs;
}

}  // namespace

std::vector<MethodEntry> ArkodeMethodEntries() {
  return {
      {.name = "arkode-dirk",
       .summary = "SUNDIALS ARKODE diagonally implicit RK on the index-1 ODE, projected onto the "
                  "constraints",
       .source = "SUNDIALS 6.4 ARKStep",
       .parameters = ArkodeParameters({"2", "3", "4", "5"}),
       .create = [](const ParameterSet& p) { return std::make_unique<ArkodeMethod>(true, p); },
       .step = StepMode::kAdaptiveOrFixed,
       // ARKStep's default DIRK is order 4 (ARKSTEP_DEFAULT_DIRK_4 = ARKODE_SDIRK_5_3_4,
       // arkode_arkstep.h); projection on. The promise is of the default order.
       .promises = MethodPromises::Order(4).Position().Velocity()},
      {.name = "arkode-erk",
       .summary = "SUNDIALS ARKODE explicit RK on the index-1 ODE, projected onto the constraints",
       .source = "SUNDIALS 6.4 ARKStep",
       .parameters = ArkodeParameters({"2", "3", "4", "5", "6", "8"}),
       .create = [](const ParameterSet& p) { return std::make_unique<ArkodeMethod>(false, p); },
       .step = StepMode::kAdaptiveOrFixed,
       // ARKStep's default ERK is order 4 (ARKSTEP_DEFAULT_ERK_4 = ARKODE_ZONNEVELD_5_3_4,
       // arkode_arkstep.h); projection on. The promise is of the default order.
       .promises = MethodPromises::Order(4).Position().Velocity()},
  };
}

}  // namespace mbb
