// MuJoCo 2.2.2 (Debian libmujoco-dev) as a peer engine for side-by-side comparisons: the
// same mechanism built as a MuJoCo model in joint coordinates (mujoco_model.cc) and stepped
// by MuJoCo's own fixed-step integrators (mj_step), with every step mapped back to the
// problem's coordinates so the harness measures error, drift and timing exactly as for the
// suite's methods.
//
// Integrators (mjOption.integrator): rk4 (mjINT_RK4, the classical fourth-order
// Runge-Kutta on MuJoCo's joint-coordinate ODE, the default), euler (mjINT_EULER,
// semi-implicit Euler: velocity first, then position with the new velocity; first order),
// implicit (mjINT_IMPLICIT, implicit in the velocity-dependent forces; first order). The
// step is RunSettings::h; the last step is shortened to land on t_end.
//
// Errors: MuJoCo's mju_error prints and exits the process; InstallMujocoHandlers replaces
// it with a handler that throws MujocoError (the run ends `failed` with MuJoCo's message).
// MuJoCo meets a non-finite or huge qpos, qvel or qacc (mj_checkPos/Vel/Acc) with a
// warning and a silent reset of the state to qpos0: the run ends `unstable` at the first
// such warning, never continues from the reset.
#include "methods/mujoco/mujoco_peer.h"

#include <cmath>

#include "methods/common/run_loop.h"
#include "methods/mujoco/mujoco_model.h"
#include "problems/core/format.h"

namespace mbb {
namespace {

// Calls of MuJoCo's forward dynamics per step (mj_step: mj_forward, then mj_RungeKutta's
// three further stages for RK4).
int EvaluationsPerStep(const std::string& integrator) { return integrator == "rk4" ? 4 : 1; }

int WarningCount(const mjData* d, int which) { return d->warning[which].number; }

// MuJoCo's warnings that it reset a non-finite or huge position, velocity or acceleration.
int BadStateWarnings(const mjData* d) {
  return WarningCount(d, mjWARN_BADQPOS) + WarningCount(d, mjWARN_BADQVEL) +
         WarningCount(d, mjWARN_BADQACC);
}

class MujocoMethod final : public Method {
 public:
  explicit MujocoMethod(const ParameterSet& p) {
    options_.integrator = p.GetString("integrator", "rk4");
    options_.loops = p.GetString("loops", "none");
    options_.loop_timeconst_h = p.GetDouble("loop_timeconst_h", 2.0);
    options_.loop_solimp = p.GetDouble("loop_solimp", 0.9999);
  }

  std::string CheckApplicable(const Problem& problem) const override {
    std::string why_not;
    MujocoOptions options = options_;
    options.h = problem.h_default;
    if (!BuildMujocoModel(problem, options, why_not)) return "no MuJoCo model: " + why_not;
    return {};
  }

  RunOutcome Run(const Problem& problem, const RunSettings& settings,
                 StepObserver& observer) const override {
    RunOutcome outcome;
    const double h = settings.h > 0.0 ? settings.h : problem.h_default;
    std::string why_not;
    MujocoOptions options = options_;
    options.h = h;
    auto model = BuildMujocoModel(problem, options, why_not);
    if (!model) {
      outcome.status = RunStatus::kNotApplicable;
      outcome.message = "no MuJoCo model: " + why_not;
      return outcome;
    }
    RunLoop loop(settings, observer);
    mjModel* m = model->model;
    mjData* d = model->data;
    // The passive-force callback applies this model's loads on this thread (mujoco_model.h).
    struct Current {
      explicit Current(const MujocoModel* m) { MujocoModel::MakeCurrent(m); }
      ~Current() { MujocoModel::MakeCurrent(nullptr); }
    } current(model.get());
    try {
      model->SetInitial();
      d->time = settings.t0;
      Vector q = problem.q0, v(problem.n());  // q: the continuity hint, q0 at the start
      model->ToProblem(q, v);
      loop.ReportStart({settings.t0, q, v});
      // RunLoop's fixed steps: every one exactly h but the last (mjData::time set to t0 + k h,
      // no accumulated rounding). A step after which MuJoCo reset a non-finite or huge state
      // ends the run `unstable` and is not counted.
      auto advance = [&](double /*t*/, double size, double t_next) {
        m->opt.timestep = size;
        const int bad_before = BadStateWarnings(d);
        mj_step(m, d);
        if (BadStateWarnings(d) > bad_before) {
          loop.End(RunStatus::kUnstable, "step " + std::to_string(loop.accepted_steps() + 1) +
                                             " (t = " + FormatNumber(t_next) +
                                             "): MuJoCo found a non-finite or huge state and "
                                             "reset it (" +
                                             LastMujocoWarning() + ")");
          return StepStatus::Ok();
        }
        ++outcome.counters.steps;
        d->time = t_next;
        return StepStatus::Ok();
      };
      auto sample = [&](double t_next) -> StepSample {
        model->ToProblem(q, v);
        return {t_next, q, v};
      };
      loop.RunFixed(h, advance, sample);
    } catch (const MujocoError& e) {
      loop.FailStep(d->time, std::string("MuJoCo: ") + e.what());
    }
    loop.Finish(outcome);
    outcome.counters.rhs_evals = EvaluationsPerStep(options_.integrator) * outcome.counters.steps;
    return outcome;
  }

 private:
  MujocoOptions options_;
};

}  // namespace

std::vector<MethodEntry> MujocoMethodEntries() {
  return {{.name = "mujoco",
           .summary =
               "MuJoCo 2.2.2 peer engine in joint coordinates, built from the problem's model "
               "structure (fixed step)",
           .source = "MuJoCo 2.2.2 (Debian)",
           .parameters = {{"integrator",
                           "rk4",
                           "MuJoCo integrator: rk4 (mjINT_RK4), euler (semi-implicit), implicit",
                           {"rk4", "euler", "implicit"}},
                          {"loops",
                           "none",
                           "kinematic loops (cut joints): none (not_applicable) or connect "
                           "(MuJoCo's soft connect equality constraints: the closure drifts, "
                           "docs/methods/mujoco.md)",
                           {"none", "connect"}},
                          {"loop_timeconst_h",
                           "2",
                           "loops=connect: solref time constant in steps h",
                           {},
                           2.0,
                           1e6},
                          {"loop_solimp",
                           "0.9999",
                           "loops=connect: solimp impedance d0 = d_width",
                           {},
                           1e-4,
                           0.9999}},
           .create = [](const ParameterSet& p) { return std::make_unique<MujocoMethod>(p); },
           .step = StepMode::kFixed,
           // Default integrator rk4: MuJoCo's mjINT_RK4, the classical 4-stage Runge-Kutta
           // (engine_forward.c mj_RungeKutta, Butcher tableau of RK4) on the joint-coordinate
           // ODE, order 4. Joint coordinates without loops: the problem's coordinates are
           // reconstructed from the bodies' motions, so its constraints hold to rounding.
           .promises = MethodPromises::Order(4).Position().Velocity()}};
}

}  // namespace mbb
