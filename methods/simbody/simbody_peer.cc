// Simbody 3.7 (Debian) as the peer engine for side-by-side comparisons: the same mechanism
// built as a Simbody multibody system in joint coordinates and integrated by Simbody's own
// integrators, with every accepted step mapped back to the problem's coordinates so the
// harness measures error, drift and timing exactly as for the suite's methods.
//
// The Simbody system is built from the problem's ModelStructure (simbody_model.h): any
// problem whose structure has joints, forces and coordinates the translation knows runs;
// others (no structure, drivers, a cut joint without a Simbody constraint) are
// not_applicable with the reason.
//
// This translation unit is compiled with -UNDEBUG (docs/toolchain.md trap 1: Debian built Simbody
// without NDEBUG, and a header class changes layout with it).
#include "methods/simbody/simbody_peer.h"

#include <cmath>
#include <functional>

#include "methods/common/run_loop.h"
#include "methods/simbody/simbody_model.h"
#include "problems/core/format.h"

namespace mbb {
namespace {

class SimbodyMethod final : public Method {
 public:
  explicit SimbodyMethod(const ParameterSet& p) : integrator_(p.GetString("integrator", "rkm")) {
    // Debian's Simbody 3.7 keeps its assertions, and its CPodes integrator fails one on its
    // first step in every problem of the catalogue (nvector_SimTK.h: `!treatAsConst'),
    // which aborts the process and every run of a batch with it: refused before any run.
    if (integrator_ == "cpodes")
      throw InputError(
          "method simbody: integrator=cpodes aborts inside Simbody 3.7 (an internal assertion, "
          "nvector_SimTK.h) on its first step; use rkm or rk3");
  }

  std::string CheckApplicable(const Problem& problem) const override {
    std::string why_not;
    if (!BuildSimbodyModel(problem, why_not)) return "no Simbody model: " + why_not;
    return {};
  }

  RunOutcome Run(const Problem& problem, const RunSettings& settings,
                 StepObserver& observer) const override {
    RunOutcome outcome;
    std::string why_not;
    auto model = BuildSimbodyModel(problem, why_not);
    if (!model) {
      outcome.status = RunStatus::kNotApplicable;
      outcome.message = "no Simbody model: " + why_not;
      return outcome;
    }
    // The counters of what the integrator did, also when it throws part way (a failed run
    // reports its work, not zeros beside the samples it filled).
    std::unique_ptr<SimTK::Integrator> integ;
    auto record_counters = [&integ, &outcome]() {
      if (!integ) return;
      outcome.counters.steps = integ->getNumStepsTaken();
      outcome.counters.rejected_steps = integ->getNumErrorTestFailures();
      outcome.counters.rhs_evals = integ->getNumRealizations();
    };
    try {
      SimTK::State state = model->system.getDefaultState();
      model->set_initial(state);
      state.setTime(settings.t0);

      if (integrator_ == "rk3")
        integ = std::make_unique<SimTK::RungeKutta3Integrator>(model->system);
      else if (integrator_ == "cpodes")
        integ = std::make_unique<SimTK::CPodesIntegrator>(model->system);
      else
        integ = std::make_unique<SimTK::RungeKuttaMersonIntegrator>(model->system);
      integ->setAccuracy(settings.rtol);
      if (settings.h > 0.0) integ->setFixedStepSize(settings.h);
      integ->setReturnEveryInternalStep(true);
      integ->setAllowInterpolation(false);  // land exactly on report times
      integ->initialize(state);

      // The shared protocol (run_loop.h): stop times, non-finite state, observer stop,
      // max_steps.
      RunLoop loop(settings, observer);
      // q carries the previous sample: the continuity hint of angles mapped back into the
      // problem's coordinates (a joint tree's charts), q0 at the start.
      Vector q = problem.q0, v(problem.n());
      auto sample = [&]() -> StepSample {
        const SimTK::State& s = integ->getState();
        model->to_problem(s, q, v);
        return {s.getTime(), q, v, nullptr, nullptr};
      };
      loop.ReportStart(sample());
      if (settings.h > 0.0) loop.CheckFixedStepCount(settings.h);
      while (loop.Continues(integ->getTime())) {
        integ->stepTo(loop.NextTarget(integ->getTime()));
        if (!loop.AcceptStep(sample())) break;
      }
      loop.Finish(outcome);
      record_counters();
    } catch (const std::exception& e) {
      outcome.status = RunStatus::kFailed;
      outcome.message = "Simbody: " + OneLine(e.what());
      record_counters();
    }
    return outcome;
  }

 private:
  std::string integrator_;
};

}  // namespace

std::vector<MethodEntry> SimbodyMethodEntries() {
  return {
      {.name = "simbody",
       .summary =
           "Simbody 3.7 peer engine in joint coordinates, built from the problem's model structure",
       .source = "Simbody 3.7 (Debian)",
       .parameters = {{"integrator", "rkm", "Simbody integrator", {"rkm", "rk3", "cpodes"}}},
       .create = [](const ParameterSet& p) { return std::make_unique<SimbodyMethod>(p); },
       .step = StepMode::kAdaptiveOrFixed,
       // Default integrator rkm: "error controlled, fourth order explicit integrator"
       // (simmath/RungeKuttaMersonIntegrator.h). Joint coordinates: the problem's
       // coordinates are reconstructed from them, so its constraints hold exactly.
       .promises = MethodPromises::Order(4).Position().Velocity()}};
}

}  // namespace mbb
