#include "harness/stability.h"

#include <cmath>

#include "harness/metrics_observer.h"
#include "problems/core/format.h"

namespace mbb {

namespace {

struct Amplitudes {
  double q = 0.0, v = 0.0, lambda = 0.0;
  std::string source;
};

// Amplitudes of the reference solution over the horizon (`ida` at rtol 1e-9).
Amplitudes ReferenceAmplitudes(const ResolvedRun& run) {
  Amplitudes a;
  RunSpec ref_spec;
  ref_spec.problem = run.problem.id;
  const auto model_file = run.problem.parameters.find("model_file");
  if (model_file != run.problem.parameters.end())
    ref_spec.model_file = model_file->second;  // a --model problem takes no parameters
  else
    ref_spec.problem_parameters = ParameterSet(run.problem.parameters);
  ref_spec.method = "ida";
  ref_spec.settings.rtol = 1e-9;
  ref_spec.settings.atol = 1e-11;
  ResolvedRun ref = ResolveRun(ref_spec);
  ref.settings.t_end = run.settings.t_end;
  MetricsObserver observer(ref.problem, nullptr, false);
  const RunOutcome outcome =
      ref.entry->create(ref.method_parameters)->Run(ref.problem, ref.settings, observer);
  if (outcome.status != RunStatus::kOk)
    throw InputError("stability search: the reference run (ida) failed: " + outcome.message);
  a.q = observer.max_q_deviation();
  a.v = observer.max_velocity();
  a.lambda = observer.max_multiplier();
  a.source = "ida dae_form=index2 rtol=1e-9 over the same horizon";
  return a;
}

}  // namespace

namespace {
// The steps a fixed-step run over the horizon can take: at most max_steps of them (a smaller
// h is refused as bad input), and every h at or above the horizon is the same single step
// shortened to land on t_end (a search reported h_max_stable = 5e8 s on a 0.5 s horizon).
// The bracket is clipped to [horizon / max_steps, horizon] and the record says so; a
// bracket that lies wholly outside is bad input.
void ClipBracket(const RunSettings& settings, double& h_min, double& h_max,
                 std::vector<std::string>& notes) {
  const double horizon = settings.t_end - settings.t0;
  const double smallest = horizon / static_cast<double>(settings.max_steps);
  if (h_min >= horizon || h_max <= smallest)
    throw InputError("stability: the bracket [" + FormatNumber(h_min) + ", " + FormatNumber(h_max) +
                     "] s lies outside the steps the horizon " + FormatNumber(horizon) +
                     " s allows, [" + FormatNumber(smallest) + ", " + FormatNumber(horizon) +
                     "] (at most " + std::to_string(settings.max_steps) + " steps, at least one)");
  if (h_max > horizon) {
    notes.push_back("h_max " + FormatNumber(h_max) + " s clipped to the horizon " +
                    FormatNumber(horizon) + " s: a larger step is the same single step");
    h_max = horizon;
  }
  if (h_min < smallest) {
    notes.push_back("h_min " + FormatNumber(h_min) +
                    " s raised to horizon / max_steps = " + FormatNumber(smallest) + " s");
    h_min = smallest;
  }
}
}  // namespace

StabilityRecord SearchStabilityLimit(const RunSpec& spec, const StabilityOptions& options) {
  ResolvedRun run = ResolveRun(spec);
  const SettingsRead read = ReadSettings(*run.entry, run.method_parameters, /*h_given=*/true);
  if (!read.h) throw InputError("stability: method " + run.entry->name + " has no fixed step size");
  if (read.tolerances)
    throw InputError("stability: method " + run.entry->name +
                     " runs with an adaptive step with these parameters (e.g. step=adaptive)");
  StabilityRecord record;
  record.base = DescribeRun(run);
  record.relative_precision = options.relative_precision;
  record.criterion = options.criterion;
  double h_min = options.h_min > 0.0 ? options.h_min : run.problem.h_default;
  double h_max = options.h_max > 0.0 ? options.h_max : 1000.0 * h_min;
  if (!(h_max > h_min)) throw InputError("stability: --h-max must be greater than --h-min");
  ClipBracket(run.settings, h_min, h_max, record.notes);
  record.h_min = h_min;
  record.h_max = h_max;
  if (!(options.relative_precision > 0.0)) throw InputError("stability: precision must be > 0");

  StabilityBand band;
  if (options.criterion == "growth") {
    if (!(options.factor > 1.0)) throw InputError("stability: --factor must be > 1");
    const Amplitudes ref = ReferenceAmplitudes(run);
    const double floor = 1e-8 * (1.0 + run.problem.q0.lpNorm<Eigen::Infinity>());
    const double aq = run.problem.stability_amplitude > 0.0 ? run.problem.stability_amplitude
                                                            : std::max(ref.q, floor);
    const double av = std::max(ref.v, floor);
    band.q_deviation = options.factor * aq;
    band.velocity = options.factor * av;
    band.velocity_residual = options.factor * av;
    if (run.problem.m() > 0) band.multiplier = options.factor * std::max(ref.lambda, floor);
    record.criterion_parameters = {{"factor", options.factor},
                                   {"amplitude_q", aq},
                                   {"amplitude_v", av},
                                   {"amplitude_lambda", ref.lambda},
                                   {"band_q", band.q_deviation},
                                   {"band_v", band.velocity},
                                   {"band_velocity_residual", band.velocity_residual}};
    if (run.problem.m() > 0) record.criterion_parameters["band_lambda"] = band.multiplier;
    record.criterion_description =
        "unstable once |q-q0|_inf, |v|_inf, |lambda|_inf or |Phi_q v + Phi_t|_inf exceeds factor "
        "x reference amplitude; q amplitude: " +
        std::string(run.problem.stability_amplitude > 0.0 ? "stated by the problem"
                                                          : "reference run") +
        "; v and lambda amplitudes: " + ref.source + "; non-finite or failed steps unstable";
  } else if (options.criterion == "bound") {
    band.q_deviation = options.bound;
    record.criterion_parameters = {{"bound", options.bound}};
    record.criterion_description = "unstable once |q - q0|_inf > bound, or non-finite/failed";
  } else if (options.criterion == "finite") {
    record.criterion_description = "unstable only on a non-finite state or a failed step";
  } else {
    throw InputError("stability: unknown --criterion '" + options.criterion +
                     "' (growth, finite, bound)");
  }

  auto stable_at = [&](double h) {
    ResolvedRun trial = run;
    trial.settings.h = h;
    MetricsObserver observer(trial.problem, nullptr, false, &band);
    const RunOutcome outcome =
        trial.entry->create(trial.method_parameters)->Run(trial.problem, trial.settings, observer);
    StabilityTrial t{h, outcome.status, outcome.message, observer.max_band_ratio()};
    record.trials.push_back(t);
    if (options.on_trial) options.on_trial(t);
    return outcome.status == RunStatus::kOk;
  };

  double lo = h_min, hi = 0.0;
  if (!stable_at(h_min)) {
    record.h_min_unstable = h_min;
    record.message = "unstable already at h_min = " + FormatNumber(h_min);
    return record;
  }
  for (double h = 2.0 * h_min;; h *= 2.0) {
    const double trial_h = std::min(h, h_max);
    if (!stable_at(trial_h)) {
      hi = trial_h;
      break;
    }
    lo = trial_h;
    if (trial_h >= h_max) {
      record.h_max_stable = h_max;
      record.message = "stable up to h_max = " + FormatNumber(h_max);
      return record;
    }
  }
  while ((hi - lo) / lo > options.relative_precision) {
    const double mid = 0.5 * (lo + hi);
    (stable_at(mid) ? lo : hi) = mid;
  }
  record.h_max_stable = lo;
  record.h_min_unstable = hi;
  return record;
}

}  // namespace mbb
