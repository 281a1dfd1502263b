#include "harness/reference_maker.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace mbb {

namespace {

// Records q at the requested times (the methods land on them exactly).
class SampleCollector final : public StepObserver {
 public:
  explicit SampleCollector(const std::vector<double>& times) : times_(times) {}
  void OnStep(const StepSample& s) override {
    while (next_ < times_.size() && times_[next_] < s.t - 1e-12 * (1.0 + std::abs(s.t))) ++next_;
    if (next_ < times_.size() && std::abs(times_[next_] - s.t) <= 1e-12 * (1.0 + std::abs(s.t))) {
      positions.push_back(s.q);
      velocities.push_back(s.v);
      ++next_;
    }
  }
  std::vector<Vector> positions, velocities;

 private:
  const std::vector<double>& times_;
  size_t next_ = 0;
};

struct Samples {
  std::vector<Vector> positions, velocities;
};

Samples Solve(const ResolvedRun& run, const std::vector<double>& times) {
  RunSettings settings = run.settings;
  settings.stop_times = times;
  SampleCollector collector(times);
  const RunOutcome outcome =
      run.entry->create(run.method_parameters)->Run(run.problem, settings, collector);
  if (outcome.status != RunStatus::kOk || collector.positions.size() != times.size())
    throw InputError("reference for " + run.problem.id + ": " + run.entry->name +
                     " run failed: " + outcome.message);
  return {collector.positions, collector.velocities};
}

}  // namespace

TabulatedReference MakeReference(const std::string& problem, const ParameterSet& params,
                                 int samples, double t_end) {
  RunSpec base;
  base.problem = problem;
  base.problem_parameters = params;
  base.t_end = t_end;
  return MakeReference(base, samples);
}

TabulatedReference MakeReference(const RunSpec& base, int samples) {
  if (samples < 1) throw InputError("reference: --samples must be >= 1");
  RunSpec dopri;
  dopri.problem = base.problem;
  dopri.model_file = base.model_file;
  dopri.problem_parameters = base.problem_parameters;
  dopri.method = "odeint-dopri5";
  dopri.t_end = base.t_end;
  dopri.settings.rtol = 1e-13;
  dopri.settings.atol = 1e-15;
  RunSpec erk = dopri;
  erk.method = "arkode-erk";
  const ResolvedRun a = ResolveRun(dopri), b = ResolveRun(erk);

  std::vector<double> times;
  const double t0 = a.settings.t0, t1 = a.settings.t_end;
  for (int k = 1; k <= samples; ++k) times.push_back(t0 + (t1 - t0) * k / samples);
  const Samples sa = Solve(a, times), sb = Solve(b, times);
  const std::vector<Vector>&qa = sa.positions, &qb = sb.positions;

  TabulatedReference out;
  out.problem = a.problem.id;
  out.parameters = a.problem.parameters;
  // A model file's reference is keyed by the file's content hash (its directory), not by
  // the path it was read from.
  out.parameters.erase("model_file");
  double scale = 0.0;
  for (size_t k = 0; k < times.size(); ++k) {
    out.max_difference = std::max(out.max_difference, (qa[k] - qb[k]).lpNorm<Eigen::Infinity>());
    scale = std::max(scale, qa[k].lpNorm<Eigen::Infinity>());
  }
  Reference& ref = out.reference;
  ref.id = a.problem.id + "/suite";
  // The digits both solutions share, less one for safety, at most 11.
  const double rel = out.max_difference / std::max(scale, 1e-300);
  ref.digits = std::min(11.0, std::floor(-std::log10(std::max(rel, 1e-16))) - 1.0);
  ref.t_max = t1;
  ref.times = times;
  ref.positions = qa;
  ref.velocities = sa.velocities;  // for the outputs that depend on v
  char note[512];
  std::snprintf(note, sizeof note,
                "suite run: odeint-dopri5 rtol=1e-13 atol=1e-15 (projected index-1 ODE), "
                "cross-checked by arkode-erk (ARKODE's 4th-order ERK) at the same tolerances: "
                "max |dq| = %.2e; regenerate "
                "with `mbbench reference %s %s`",
                out.max_difference, base.model_file.empty() ? "-p" : "--model",
                base.model_file.empty() ? a.problem.id.c_str() : base.model_file.c_str());
  ref.provenance = note;
  return out;
}

}  // namespace mbb
