// The conformance checks of conformance.h: each promise of methods/method.h MethodPromises
// measured on the problem set of cases.h. The bounds and why they are what they are stand at
// each check; the same code judges the built-in entries (tests/test_conformance.cc) and a
// consumer's own (catch2.h).
#include "conformance/conformance.h"

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <limits>
#include <map>
#include <memory>
#include <utility>

#include "methods/common/observed_order.h"

namespace mbb {
namespace conformance {

bool Report::Passed() const {
  return std::all_of(results.begin(), results.end(), [](const Result& r) { return r.passed; });
}

std::vector<Result> Report::Failures() const {
  std::vector<Result> failures;
  for (const Result& r : results)
    if (!r.passed) failures.push_back(r);
  return failures;
}

namespace {

// Constraint residual bounds for a promised level. Every fixed-step method stops its
// constraint solve far below 1e-8 (m, m/s): the Newmark Newton iterations at a relative
// change of 1e-10, the ODE projection at 10 ulps of the coordinates, the QR position
// correction at rounding; 1e-8 leaves a factor 100 over the loosest. A tolerance-controlled
// method (IDA's GGL form) solves its algebraic equations only to its Newton test, a weighted
// correction norm < 0.33 with weights 1/(rtol |y| + atol), so its residuals scale with rtol:
// the bound is max(1e-8, 10 rtol). Accelerations are a derivative further: |Phi_q| ~ 1 and
// |a| ~ g, so 10 times the bound (m/s^2).
double ConstraintTolerance(const RunSettings& s) {
  return s.h > 0.0 ? 1e-8 : std::max(1e-8, 10.0 * s.rtol);
}
// Tolerance proportionality: two decades of rtol must buy at least one decade of error.
constexpr double kMinErrorReduction = 10.0;
// Energy check horizon (s): ~10 periods of the pendulums (more for the spatial one).
constexpr double kEnergyHorizon = 20.0;

std::string Format(const char* format, ...) __attribute__((format(printf, 1, 2)));
std::string Format(const char* format, ...) {
  char text[512];
  va_list args;
  va_start(args, format);
  std::vsnprintf(text, sizeof text, format, args);
  va_end(args);
  return text;
}

// One entry's checks in progress: where results and table lines go.
struct Session {
  const MethodEntry& entry;
  const Method& method;
  std::FILE* log;
  Report& report;

  void Add(const Case& c, const char* check, bool passed, std::string detail) {
    report.results.push_back({entry.name, c.label, check, passed, std::move(detail)});
  }
  void Log(const std::string& line) const {
    if (log) std::fputs(line.c_str(), log);
  }
};

struct Runs {
  RunOutcome outcome;
  Recorder recorder;
};

Runs RunOnce(const Method& method, const Problem& p, const RunSettings& s,
             double quarter_time = 0.0) {
  Runs r{{}, Recorder(p)};
  r.recorder.quarter_time = quarter_time;
  r.outcome = method.Run(p, s, r.recorder);
  return r;
}

void CheckConstraintPromises(Session& s, const Case& c, const Problem& p,
                             const RunSettings& settings, const Recorder& r) {
  if (p.m() == 0) return;  // every level holds trivially
  const MethodPromises& promises = s.entry.promises;
  const double tol = ConstraintTolerance(settings);
  char acceleration[16] = "-";
  if (r.reported_acceleration)
    std::snprintf(acceleration, sizeof acceleration, "%.1e", r.acceleration);
  s.Log(Format("  %-28s %-34s max residuals: position %.1e, velocity %.1e, acceleration %s (%s)\n",
               s.entry.name.c_str(), c.label.c_str(), r.position, r.velocity, acceleration,
               settings.h > 0.0 ? "finest fixed step" : "rtol 1e-8"));
  const std::string detail =
      Format("max residuals: position %g, velocity %g, acceleration %g; bound %g", r.position,
             r.velocity, r.acceleration, tol);
  if (promises.satisfies_position) s.Add(c, "position", r.position <= tol, detail);
  if (promises.satisfies_velocity) s.Add(c, "velocity", r.velocity <= tol, detail);
  if (promises.satisfies_acceleration) {
    // A promise the method gives no means to check fails.
    s.Add(c, "acceleration reported", r.reported_acceleration,
          "accelerations promised but not reported (StepSample::a)");
    s.Add(c, "acceleration", r.acceleration <= 10.0 * tol, detail + " (times 10 for a)");
  }
}

// q(t0 + kHorizon) of an independent fine run: odeint-dopri5 at a fixed step with
// omega h = 0.005 (global error ~ (0.005)^5 ~ 1e-12 of the motion), for the tolerance
// proportionality check of adaptive methods. Null (and a failed "reference run") if it fails.
const Vector* Reference(Session& s, const Case& c) {
  static std::map<std::string, Vector> cache;
  std::string key = c.id + Format(" omega=%.17g", c.omega);
  for (const auto& [k, v] : c.parameters) key += " " + k + "=" + v;
  auto it = cache.find(key);
  if (it != cache.end()) return &it->second;
  const Problem p = BuildCase(c);
  const auto dopri5 = FindMethod("odeint-dopri5").create(ParameterSet());
  const long steps = static_cast<long>(std::ceil(c.omega * kHorizon / 0.005));
  Runs r = RunOnce(*dopri5, p, FixedSettings(p, kHorizon, steps));
  if (r.outcome.status != RunStatus::kOk) {
    s.Add(c, "reference run", false,
          "odeint-dopri5 reference: " + std::string(ToString(r.outcome.status)) + ": " +
              r.outcome.message);
    return nullptr;
  }
  return &(cache[key] = r.recorder.q);
}

struct ObservedOrder {
  double order = std::nan("");  // NaN if a run fails
  double differences[2] = {0.0, 0.0};
  std::string failure;  // the failed run's message
};

// Observed order by step halving: p = log2(d1 / d2), d1 = max_k |q_h(t_k) - q_{h/2}(t_k)|,
// d2 the same for h/2 and h/4, the maximum over the coarsest run's steps t_k = t0 + k h in
// [t0, t0 + kHorizon] (a single time could sit where the error crosses zero), h =
// kHorizon / N0 (CoarsestSteps). Also checks the constraint promises on the finest run.
ObservedOrder MeasureOrder(Session& s, const Case& c, const Problem& p) {
  ObservedOrder observed;
  const long n0 = CoarsestSteps(s.entry.promises.order, c.omega);
  std::vector<std::vector<std::pair<double, Vector>>> runs;
  bool ends_at_t_end = true;
  for (long refinement : {1, 2, 4}) {
    const RunSettings settings = FixedSettings(p, kHorizon, refinement * n0);
    Runs r{{}, Recorder(p)};
    r.recorder.keep_trajectory = true;
    r.outcome = s.method.Run(p, settings, r.recorder);
    if (r.outcome.status != RunStatus::kOk) {
      observed.failure = Format("fixed step h = %.4g: %s: %s", settings.h,
                                ToString(r.outcome.status), r.outcome.message.c_str());
      s.Log(Format("  %-28s %-34s %s\n", s.entry.name.c_str(), c.label.c_str(),
                   observed.failure.c_str()));
      return observed;  // fails the order check
    }
    ends_at_t_end = ends_at_t_end && std::abs(r.recorder.t - settings.t_end) <= 1e-12;
    runs.push_back(std::move(r.recorder.trajectory));
    if (refinement == 4) CheckConstraintPromises(s, c, p, settings, r.recorder);
  }
  s.Add(c, "end time", ends_at_t_end, "the last sample of a fixed-step run is not at t_end");
  // Differences at the coarsest run's times, found in the finer runs by time (a method
  // may report extra samples, e.g. the start twice).
  const double h0 = kHorizon / static_cast<double>(n0);
  auto at = [&](const std::vector<std::pair<double, Vector>>& run, double t) -> const Vector* {
    auto it = std::lower_bound(run.begin(), run.end(), t - 1e-6 * h0,
                               [](const auto& sample, double x) { return sample.first < x; });
    return it != run.end() && std::abs(it->first - t) < 1e-6 * h0 ? &it->second : nullptr;
  };
  long matched = 0;
  double last_matched = -1e300;
  double* d = observed.differences;
  for (const auto& [t, q0] : runs[0]) {
    const Vector* q1 = at(runs[1], t);
    const Vector* q2 = at(runs[2], t);
    if (!q1 || !q2) continue;
    if (t > last_matched) ++matched;  // simbody reports the start twice
    last_matched = t;
    d[0] = std::max(d[0], (q0 - *q1).lpNorm<Eigen::Infinity>());
    d[1] = std::max(d[1], (*q1 - *q2).lpNorm<Eigen::Infinity>());
  }
  // Every step time t0 + k h0 is reported by all three runs.
  s.Add(c, "order samples", matched == n0 + 1,
        Format("%ld of the %ld step times of the coarsest run found in all three runs", matched,
               n0 + 1));
  s.Add(c, "order differences", d[1] > 0.0, Format("differences %g, %g", d[0], d[1]));
  observed.order = mbb::ObservedOrder(d[0], d[1], h0, h0 / 2.0);  // log2(d1 / d2)
  return observed;
}

void CheckOrder(Session& s, const Case& c, const Problem& p) {
  const int declared = s.entry.promises.order;
  s.Add(c, "declared order", declared > 0,
        "a fixed-step mode must declare its order (MethodPromises::Order(p))");
  if (declared <= 0) return;
  const ObservedOrder o = MeasureOrder(s, c, p);
  s.Log(Format("  %-28s %-34s order %5.2f (declared %d)  differences %.2e, %.2e\n",
               s.entry.name.c_str(), c.label.c_str(), o.order, declared, o.differences[0],
               o.differences[1]));
  std::string detail = Format("observed order %g, declared %d (differences %g, %g)", o.order,
                              declared, o.differences[0], o.differences[1]);
  if (!o.failure.empty()) detail += "; " + o.failure;
  s.Add(c, "order", OrderVerdict(o.order, declared).empty(), detail);
}

// Tolerance proportionality of the default adaptive mode; also checks the constraint
// promises at rtol = 1e-8.
void CheckToleranceProportionality(Session& s, const Case& c, const Problem& p) {
  const Vector* reference = Reference(s, c);
  if (!reference) return;
  double error[2];
  const double rtols[2] = {1e-6, 1e-8};
  for (int k = 0; k < 2; ++k) {
    const RunSettings settings = AdaptiveSettings(p, kHorizon, rtols[k]);
    Runs r = RunOnce(s.method, p, settings);
    const bool ok = r.outcome.status == RunStatus::kOk;
    s.Add(c, "adaptive run", ok,
          Format("rtol = %g: %s: %s", rtols[k], ToString(r.outcome.status),
                 r.outcome.message.c_str()));
    if (!ok) return;
    // Adaptive runs land on t_end.
    s.Add(c, "adaptive end time", std::abs(r.recorder.t - settings.t_end) <= 1e-12,
          Format("rtol = %g: last sample at t = %.17g, t_end = %.17g", rtols[k], r.recorder.t,
                 settings.t_end));
    error[k] = (r.recorder.q - *reference).lpNorm<Eigen::Infinity>();
    if (k == 1) CheckConstraintPromises(s, c, p, settings, r.recorder);
  }
  s.Log(Format("  %-28s %-34s adaptive  error %.2e at rtol 1e-6, %.2e at 1e-8\n",
               s.entry.name.c_str(), c.label.c_str(), error[0], error[1]));
  s.Add(c, "tolerance", error[1] * kMinErrorReduction <= error[0],
        Format("error %g at rtol 1e-6, %g at rtol 1e-8 (at least %g times smaller needed)",
               error[0], error[1], kMinErrorReduction));
}

// Bounded energy error: on the conservative variant of the case (stiff_pendulum without
// its torque, T0 = 0), the largest |E - E0| over kEnergyHorizon is at most twice that
// over the first quarter; a secular (linear) drift gives four times, a bounded oscillation
// about one. Fixed step of the order check's coarsest run.
void CheckBoundedEnergyError(Session& s, const Case& c) {
  std::map<std::string, std::string> conservative;
  if (c.id == "stiff_pendulum") conservative["T0"] = "0";
  const Problem p = BuildCase(c, conservative);
  const long steps = static_cast<long>(kEnergyHorizon / kHorizon) *
                     CoarsestSteps(std::max(s.entry.promises.order, 2), c.omega);
  const RunSettings settings = !HasFixedStepMode(s.entry)
                                   ? AdaptiveSettings(p, kEnergyHorizon, 1e-8)
                                   : FixedSettings(p, kEnergyHorizon, steps);
  Runs r = RunOnce(s.method, p, settings, p.t0 + 0.25 * kEnergyHorizon);
  s.Add(c, "energy run", r.outcome.status == RunStatus::kOk,
        std::string(ToString(r.outcome.status)) + ": " + r.outcome.message);
  s.Log(Format("  %-28s %-34s energy: max |E - E0| %.2e over %g s, %.2e over the first quarter\n",
               s.entry.name.c_str(), c.label.c_str(), r.recorder.energy_drift, kEnergyHorizon,
               r.recorder.energy_drift_first_quarter));
  // Rounding floor: an energy-conserving scheme's error is a random walk of rounding, each
  // step rounding E by about an ulp of the energy scale (|E0|, or the largest kinetic energy
  // when E0 = 0, a pendulum released at pivot height), so after N steps it is about
  // eps scale sqrt(N). Measured with null-space-em on planar_pendulum over ten step sizes
  // near h = 1/90 s (N ~ 1800, eps scale sqrt(N) = 9.2e-14): 3.8e-14 ... 1.5e-13 from the
  // constant start, 5.3e-14 ... 3.0e-13 from the extrapolated one (docs/methods/
  // energy_momentum.md). The floor is 4 eps scale sqrt(N); a secular drift of more than
  // 8 eps scale / sqrt(N) per step (0.2 ulp at N = 1800) still fails.
  const double scale = std::max(std::abs(r.recorder.e0), r.recorder.kinetic_max);
  const double taken = static_cast<double>(std::max<long>(r.outcome.counters.steps, 1));
  const double floor = 4.0 * std::numeric_limits<double>::epsilon() * scale * std::sqrt(taken);
  s.Add(c, "energy", r.recorder.energy_drift <= 2.0 * r.recorder.energy_drift_first_quarter + floor,
        Format("max |E - E0| %g over %g s, %g over the first quarter (rounding floor %g)",
               r.recorder.energy_drift, kEnergyHorizon, r.recorder.energy_drift_first_quarter,
               floor));
}

// The form a method declares it needs must be one it accepts.
void CheckPreferredForm(Session& s, const Case& c, const Problem& p, const std::string& reason) {
  bool offers_preferred = !s.entry.preferred_problem_parameters.empty();
  for (const auto& [key, value] : s.entry.preferred_problem_parameters)
    offers_preferred = offers_preferred && p.parameters.count(key) && p.parameters.at(key) == value;
  if (offers_preferred)
    s.Add(c, "preferred form", reason.empty(), "not applicable to its preferred form: " + reason);
}

}  // namespace

Report Check(const MethodEntry& entry, const Options& options) {
  Report report;
  const std::unique_ptr<Method> method = entry.create(ParameterSet());
  Session s{entry, *method, options.log, report};
  for (const Case& c : options.cases) {
    const Problem p = BuildCase(c);
    const std::string reason = method->CheckApplicable(p);
    CheckPreferredForm(s, c, p, reason);
    if (!reason.empty()) {
      s.Log(Format("  %-28s %-34s not applicable: %s\n", entry.name.c_str(), c.label.c_str(),
                   reason.c_str()));
      continue;
    }
    ++report.cases_checked;
    if (HasFixedStepMode(entry)) CheckOrder(s, c, p);
    if (DefaultIsAdaptive(entry)) CheckToleranceProportionality(s, c, p);
    if (entry.promises.bounded_energy_error) CheckBoundedEnergyError(s, c);
  }
  return report;
}

}  // namespace conformance
}  // namespace mbb
