// Boost.Odeint baselines on the index-1 ODE form (first_order_ode.h):
//   odeint-dopri5  Dormand-Prince 5(4) [Dormand, Prince 1980], adaptive with rtol/atol, or
//                  fixed-step when `--set h=...` is given (the paper 000 ode45-style run);
//   odeint-rk4     classical Runge-Kutta 4, fixed step h;
//   odeint-rkf78   Runge-Kutta-Fehlberg 7(8) [Fehlberg 1968, NASA TR R-287], 13 stages,
//                  adaptive with rtol/atol: for tight tolerances on smooth problems (Andrews'
//                  squeezer to 8 digits), where the higher order takes far fewer steps.
// On a problem's minimal form (m = 0) this is the plain minimal-coordinate ODE.
// Kept in one translation unit because odeint templates are slow to compile.
#include <boost/numeric/odeint.hpp>
#include <cmath>

#include "methods/common/first_order_ode.h"
#include "methods/common/run_loop.h"
#include "methods/odeint/odeint_methods.h"

namespace mbb {
namespace {

namespace odeint = boost::numeric::odeint;
using State = std::vector<double>;

enum class Scheme { kDopri5, kRk4, kRkf78 };

class OdeintMethod final : public Method {
 public:
  OdeintMethod(Scheme scheme, const ParameterSet& p)
      : scheme_(scheme), options_(OdeFormOptions::FromParameters(p)) {}

  RunOutcome Run(const Problem& problem, const RunSettings& settings,
                 StepObserver& observer) const override {
    FirstOrderOde ode(problem, options_);
    bool rhs_ok = true;
    auto system = [&](const State& y, State& dydt, double t) {
      rhs_ok = ode.Rhs(t, y.data(), dydt.data()) && rhs_ok;
    };
    State y(ode.size());
    Eigen::Map<Vector>(y.data(), problem.n()) = problem.q0;
    Eigen::Map<Vector>(y.data() + problem.n(), problem.n()) = problem.v0;
    // The shared protocol (run_loop.h): stop times, non-finite state, observer stop,
    // max_steps; odeint only takes the steps.
    RunLoop loop(settings, observer);
    Vector q(problem.n()), v(problem.n());
    auto sample = [&](double t) -> StepSample {
      q = Eigen::Map<const Vector>(y.data(), problem.n());
      v = Eigen::Map<const Vector>(y.data() + problem.n(), problem.n());
      return {t, q, v, nullptr, nullptr};
    };
    loop.ReportStart(sample(settings.t0));
    const bool fixed = scheme_ == Scheme::kRk4 || (scheme_ == Scheme::kDopri5 && settings.h > 0.0);
    RunOutcome outcome;
    if (fixed)
      RunFixed(problem, settings, system, rhs_ok, ode, y, sample, loop, outcome.counters);
    else if (scheme_ == Scheme::kRkf78)
      RunAdaptive(odeint::make_controlled(settings.atol, settings.rtol,
                                          odeint::runge_kutta_fehlberg78<State>()),
                  settings, system, rhs_ok, ode, y, sample, loop, outcome.counters);
    else
      RunAdaptive(odeint::make_controlled(settings.atol, settings.rtol,
                                          odeint::runge_kutta_dopri5<State>()),
                  settings, system, rhs_ok, ode, y, sample, loop, outcome.counters);
    loop.Finish(outcome);
    outcome.counters.rhs_evals = ode.rhs_evals();
    return outcome;
  }

 private:
  // Fixed steps h (the problem's h_default unless --set h), by RunLoop::RunFixed.
  template <class System, class Sample>
  void RunFixed(const Problem& problem, const RunSettings& settings, System& system,
                const bool& rhs_ok, FirstOrderOde& ode, State& y, Sample& sample, RunLoop& loop,
                WorkCounters& counters) const {
    odeint::runge_kutta4<State> rk4;
    // do_step without dydt keeps odeint's own FSAL derivative: after a projection the next
    // step's k_1 is f at the unprojected end of the step before (it differs from f at the
    // projected state by the projection's correction, O(h^6) locally, so the order stays 5),
    // one evaluation fewer per step than recomputing it as the adaptive path does. Measured
    // on bricard in joint coordinates at h = 0.125 (2026-11-28): position error 9.6e-5,
    // energy drift 4.6e-4 J with it; 4.5e-4 and 1.3e-3 J with k_1 recomputed after the
    // projection; at h = 0.05 the two agree to 1 % (1.50e-5 against 1.51e-5).
    odeint::runge_kutta_dopri5<State> dopri5;
    auto advance = [&](double t, double size, double t_next) {
      if (scheme_ == Scheme::kRk4)
        rk4.do_step(system, y, t, size);
      else
        dopri5.do_step(system, y, t, size);
      ++counters.steps;
      if (!rhs_ok) return StepStatus::Failed("singular reduced mass matrix");
      if (!ode.Project(t_next, y.data()))
        return StepStatus::Failed("position projection did not converge");
      return StepStatus::Ok();
    };
    loop.RunFixed(settings.h > 0.0 ? settings.h : problem.h_default, advance, sample);
  }

  // An embedded pair with odeint's error control, landing on every stop time and t_end.
  // dydt is the derivative at (t, y): Dormand-Prince's first-same-as-last stage updates it
  // in a successful step; for Fehlberg it is evaluated after each accepted step.
  template <class Stepper, class System, class Sample>
  void RunAdaptive(Stepper stepper, const RunSettings& settings, System& system, bool& rhs_ok,
                   FirstOrderOde& ode, State& y, Sample& sample, RunLoop& loop,
                   WorkCounters& counters) const {
    State dydt(ode.size()), y_start(ode.size()), dydt_start(ode.size());
    double t = settings.t0;
    system(y, dydt, t);
    if (!rhs_ok) return loop.FailStep(t, "singular reduced mass matrix");
    double dt = 1e-3 * (settings.t_end - settings.t0);
    while (loop.Continues(t)) {
      const RunLoop::Offer offer = loop.OfferStep(t, dt);
      double trial = offer.size;
      const double t_start = t, trial_start = trial;
      y_start = y;  // same sizes: no allocation
      dydt_start = dydt;
      const auto result = stepper.try_step(system, y, dydt, t, trial);
      if (!rhs_ok) {
        // A stage of the trial step met a singular reduced mass matrix (a trial step too long
        // for a stiff problem: the flyball governor's first rkf78 step): rejected and retried
        // a quarter as long, as IDA and ARKODE treat a recoverable right-hand-side failure.
        rhs_ok = true;
        y = y_start;
        dydt = dydt_start;
        t = t_start;
        ++counters.rejected_steps;
        dt = 0.25 * trial_start;
        if (dt < 1e-14 * (std::abs(t) + 1.0))
          return loop.FailStep(
              t, "singular reduced mass matrix (trial steps cut to " + std::to_string(dt) + " s)");
        continue;
      }
      if (result == odeint::fail) {
        ++counters.rejected_steps;
        dt = trial;
        if (dt < 1e-14 * (std::abs(t) + 1.0)) return loop.FailStep(t, "step size underflow");
        continue;
      }
      // Exactly on the stop time; odeint's proposal (trial) is the next dt.
      t = RunLoop::Land(offer, t_start, trial_start, trial, dt);
      ++counters.steps;
      const bool fsal = scheme_ == Scheme::kDopri5;
      if (ode.projection_enabled()) {
        if (!ode.Project(t, y.data()))
          return loop.FailStep(t, "position projection did not converge");
      }
      if (ode.projection_enabled() || !fsal) system(y, dydt, t);  // stale or not computed
      if (!loop.AcceptStep(sample(t))) return;
    }
  }

  Scheme scheme_;
  OdeFormOptions options_;
};

}  // namespace

std::vector<MethodEntry> OdeintMethodEntries() {
  return {
      {.name = "odeint-dopri5",
       .summary = "Boost.Odeint Dormand-Prince 5(4) on the index-1 ODE (adaptive; fixed with h)",
       .source = "Boost.Odeint runge_kutta_dopri5",
       .parameters = OdeFormOptions::Specs(),
       .create =
           [](const ParameterSet& p) { return std::make_unique<OdeintMethod>(Scheme::kDopri5, p); },
       .step = StepMode::kAdaptiveOrFixed,
       // Dormand-Prince 5(4): fifth order at fixed h [Dormand, Prince 1980]; projection on
       // (first_order_ode.h) restores Phi = 0 and Phi_q v + Phi_t = 0 after every step.
       .promises = MethodPromises::Order(5).Position().Velocity()},
      {.name = "odeint-rk4",
       .summary = "Boost.Odeint classical RK4 on the index-1 ODE, fixed step",
       .source = "Boost.Odeint runge_kutta4",
       .parameters = OdeFormOptions::Specs(),
       .create =
           [](const ParameterSet& p) { return std::make_unique<OdeintMethod>(Scheme::kRk4, p); },
       .step = StepMode::kFixed,
       // Classical Runge-Kutta: fourth order [Hairer, Norsett, Wanner 1993, s II.1]; projection.
       .promises = MethodPromises::Order(4).Position().Velocity()},
      {.name = "odeint-rkf78",
       .summary = "Boost.Odeint Runge-Kutta-Fehlberg 7(8) on the index-1 ODE (adaptive)",
       .source = "Boost.Odeint runge_kutta_fehlberg78",
       .parameters = OdeFormOptions::Specs(),
       .create =
           [](const ParameterSet& p) { return std::make_unique<OdeintMethod>(Scheme::kRkf78, p); },
       .step = StepMode::kAdaptive,
       // Fehlberg 7(8), adaptive only: an order-8 check at fixed steps would sit in round-off
       // on the conformance problems; projection on as for dopri5.
       .promises = MethodPromises::NoFixedStepOrder().Position().Velocity()},
  };
}

}  // namespace mbb
