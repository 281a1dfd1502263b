#include "harness/reference_maker.h"

#include <cmath>
#include <cstdlib>

#include "harness/json_io.h"
#include "problems/body_motion.h"

#ifndef MBBENCH_SOURCE_DIR
#define MBBENCH_SOURCE_DIR "."
#endif

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

std::string ReferenceDirectory() {
  if (const char* dir = std::getenv("MBBENCH_REFERENCE_DIR")) return dir;
  return std::string(MBBENCH_SOURCE_DIR) + "/reference";
}

namespace {

std::string StoredReferencePath(const std::string& problem_id) {
  return ReferenceDirectory() + "/" + problem_id + "/reference.json";
}

std::optional<Reference> FindStoredReference(const Problem& problem) {
  return ReadReferenceFile(StoredReferencePath(problem.id), problem);
}

// The other choices of the problem's `formulation` parameter, the catalogue default first
// (empty for a model-file problem, which is not in the catalogue).
std::vector<std::string> OtherFormulations(const Problem& problem) {
  const auto chosen = problem.parameters.find("formulation");
  if (chosen == problem.parameters.end()) return {};
  std::vector<std::string> others;
  for (const auto& entry : ProblemCatalogue())
    if (entry.id == problem.id)
      for (const auto& spec : entry.parameters) {
        if (spec.name != "formulation") continue;
        if (spec.default_value != chosen->second) others.push_back(spec.default_value);
        for (const auto& choice : spec.choices)
          if (choice != chosen->second && choice != spec.default_value) others.push_back(choice);
      }
  return others;
}

// Every sample through the motion of every body into the run's coordinates; q holds the
// previous sample's on entry (the continuity hint of CoordinatesFromBodies).
void MapTabulatedReference(const Problem& base, const Problem& problem, Reference& ref) {
  const bool has_v = ref.velocities.size() == ref.positions.size();
  std::vector<BodyMotion> bodies;
  Vector q = problem.q0, v(problem.n());  // q0: the continuity hint of the first sample
  const Vector zero = Vector::Zero(base.n());
  for (size_t k = 0; k < ref.positions.size(); ++k) {
    BodiesFromCoordinates(*base.structure, ref.positions[k], has_v ? ref.velocities[k] : zero,
                          bodies);
    CoordinatesFromBodies(*problem.structure, bodies, q, v);
    ref.positions[k] = q;
    if (has_v) ref.velocities[k] = v;
  }
}

// A run in another formulation of a model-layer problem (the energy-momentum methods'
// directors, the recursive methods' joint tree) has the reference of the first other
// formulation that has one (the catalogue default first), mapped sample by sample through
// the motion of every body (BodiesFromCoordinates, then CoordinatesFromBodies into the
// run's coordinates): the same motion, so position errors, outputs and their errors mean
// what they mean there. Stored references only: the closed forms build q through the run's
// own structure (CoordinatesFromBodies) and need no base. None when the run's coordinates
// cannot be made from body motions or no other formulation has a stored reference.
std::optional<Reference> TranslatedReference(const Problem& problem) {
  if (!problem.structure || !BodyCoordinatesUnsupported(*problem.structure, problem.n()).empty())
    return std::nullopt;
  for (const std::string& base_formulation : OtherFormulations(problem)) {
    std::map<std::string, std::string> parameters = problem.parameters;
    parameters["formulation"] = base_formulation;
    if (!ReferenceFileLists(StoredReferencePath(problem.id), problem.id, parameters)) continue;
    const Problem base = BuildProblem(problem.id, ParameterSet(parameters));
    if (!base.structure || base.structure->bodies.empty() ||
        !BodyCoordinatesUnsupported(*base.structure, base.n()).empty())
      continue;
    std::optional<Reference> ref = FindStoredReference(base);
    if (!ref) continue;
    MapTabulatedReference(base, problem, *ref);
    ref->id += " (formulation " + base_formulation + ", mapped through the body motions)";
    AttachOutputs(problem, *ref);
    return ref;
  }
  return std::nullopt;
}

}  // namespace

std::optional<Reference> FindAnyReference(const Problem& problem) {
  if (auto builtin = FindReference(problem)) return builtin;
  if (auto stored = FindStoredReference(problem)) return stored;
  return TranslatedReference(problem);
}

TabulatedReference MakeReference(const std::string& problem, const ParameterSet& params,
                                 int samples, double t_end) {
  if (samples < 1) throw InputError("reference: --samples must be >= 1");
  RunSpec dopri;
  dopri.problem = problem;
  dopri.problem_parameters = params;
  dopri.method = "odeint-dopri5";
  dopri.t_end = t_end;
  dopri.settings.Set("rtol", "1e-13");
  dopri.settings.Set("atol", "1e-15");
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
  char note[256];
  std::snprintf(note, sizeof note,
                "suite run: odeint-dopri5 rtol=1e-13 atol=1e-15 (projected index-1 ODE), "
                "cross-checked by arkode-erk (ARKODE's 4th-order ERK) at the same tolerances: "
                "max |dq| = %.2e; regenerate "
                "with `mbbench reference -p %s`",
                out.max_difference, a.problem.id.c_str());
  ref.provenance = note;
  return out;
}

}  // namespace mbb
