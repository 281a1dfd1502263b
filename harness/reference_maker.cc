#include "harness/reference_maker.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <unistd.h>

#include "harness/json_io.h"
#include "harness/model_file.h"
#include "problems/body_motion.h"

#ifndef MBBENCH_SOURCE_DIR
#define MBBENCH_SOURCE_DIR "."
#endif
// The problems with a stored reference in the source tree at configure time
// (harness/CMakeLists.txt), ","-separated.
#ifndef MBBENCH_STORED_REFERENCES
#define MBBENCH_STORED_REFERENCES ""
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

namespace fs = std::filesystem;

namespace {

std::string EnvironmentValue(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr ? std::string(value) : std::string();
}

// <prefix>/share/mbbench/reference for an executable in <prefix>/bin ("" when unknown).
std::string InstalledReferenceDirectory() {
  std::error_code error;
  const fs::path exe = fs::read_symlink("/proc/self/exe", error);
  if (error) return {};
  return (exe.parent_path().parent_path() / "share" / "mbbench" / "reference").string();
}

std::string SourceReferenceDirectory() {
  if (!EnvironmentValue("MBBENCH_NO_SOURCE_REFERENCE").empty()) return {};
  return std::string(MBBENCH_SOURCE_DIR) + "/reference";
}

bool IsDirectory(const std::string& dir) {
  std::error_code error;
  return !dir.empty() && fs::is_directory(dir, error);
}

// FNV-1a 64 over `bytes`, continuing from `h`.
std::uint64_t Fnv1a(const std::string& bytes, std::uint64_t h = 1469598103934665603ull) {
  for (const unsigned char c : bytes) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

std::string Hex(std::uint64_t h) {
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(h));
  return text;
}

std::string FileContents(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path + ": cannot read the file");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

std::string UserReferenceDirectory() {
  if (const std::string env = EnvironmentValue("MBBENCH_REFERENCE_DIR"); !env.empty()) return env;
  if (const std::string xdg = EnvironmentValue("XDG_DATA_HOME"); !xdg.empty())
    return xdg + "/mbbench/reference";
  const std::string home = EnvironmentValue("HOME");
  return (home.empty() ? std::string(".") : home) + "/.local/share/mbbench/reference";
}

std::string ReferenceDirectory() {
  for (const std::string& dir : {EnvironmentValue("MBBENCH_REFERENCE_DIR"),
                                 InstalledReferenceDirectory(), SourceReferenceDirectory()})
    if (IsDirectory(dir)) return dir;
  return {};
}

std::vector<std::string> ReferenceSearchPath() {
  std::vector<std::string> path;
  for (const std::string& dir :
       {EnvironmentValue("MBBENCH_REFERENCE_DIR"), UserReferenceDirectory(),
        InstalledReferenceDirectory(), SourceReferenceDirectory()})
    if (IsDirectory(dir) && std::find(path.begin(), path.end(), dir) == path.end())
      path.push_back(dir);
  return path;
}

std::string ModelFileHash(const std::string& path) { return Hex(Fnv1a(FileContents(path))); }

const std::string& ReferenceDataHash() {
  static const std::string hash = [] {
    const std::string dir = ReferenceDirectory();
    if (dir.empty()) return std::string("none");
    std::vector<fs::path> files;
    for (const auto& entry : fs::recursive_directory_iterator(dir))
      if (entry.is_regular_file() && entry.path().filename() == "reference.json")
        files.push_back(fs::relative(entry.path(), dir));
    std::sort(files.begin(), files.end());
    std::uint64_t h = Fnv1a("");
    for (const fs::path& file : files) {
      h = Fnv1a(file.generic_string() + '\0', h);
      h = Fnv1a(FileContents((fs::path(dir) / file).string()), h);
    }
    return Hex(h);
  }();
  return hash;
}

namespace {

// Relative to a reference directory: <problem>/reference.json, or for a model file
// models/<content hash>/reference.json.
std::string StoredReferenceFile(const Problem& problem) {
  const auto model = problem.parameters.find("model_file");
  if (model != problem.parameters.end())
    return "models/" + ModelFileHash(model->second) + "/reference.json";
  return problem.id + "/reference.json";
}

std::optional<Reference> FindStoredReference(const Problem& problem) {
  const std::string file = StoredReferenceFile(problem);
  for (const std::string& dir : ReferenceSearchPath())
    if (auto ref = ReadReferenceFile(dir + "/" + file, problem)) return ref;
  return std::nullopt;
}

// The first directory of the search path whose file for `problem_id` lists `parameters`.
bool AnyReferenceFileLists(const std::string& problem_id,
                           const std::map<std::string, std::string>& parameters) {
  for (const std::string& dir : ReferenceSearchPath())
    if (ReferenceFileLists(dir + "/" + problem_id + "/reference.json", problem_id, parameters))
      return true;
  return false;
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
  // A model file in a formulation given by --param (or chosen for a method): the reference
  // of the file in its own formulation (`reference --model FILE` makes that one).
  const auto model_file = problem.parameters.find("model_file");
  if (model_file != problem.parameters.end()) {
    if (problem.parameters.count("formulation") == 0) return std::nullopt;
    const Problem base = LoadModelProblem(model_file->second, ParameterSet());
    if (!base.structure || base.structure->bodies.empty() ||
        !BodyCoordinatesUnsupported(*base.structure, base.n()).empty())
      return std::nullopt;
    std::optional<Reference> ref = FindStoredReference(base);
    if (!ref) return std::nullopt;
    MapTabulatedReference(base, problem, *ref);
    ref->id += " (formulation " + base.formulation + ", mapped through the body motions)";
    AttachOutputs(problem, *ref);
    return ref;
  }
  for (const std::string& base_formulation : OtherFormulations(problem)) {
    std::map<std::string, std::string> parameters = problem.parameters;
    parameters["formulation"] = base_formulation;
    if (!AnyReferenceFileLists(problem.id, parameters)) continue;
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

std::string MissingReferenceWarning(const Problem& problem) {
  if (problem.parameters.count("model_file") > 0) return {};
  const std::string stored = std::string(",") + MBBENCH_STORED_REFERENCES + ",";
  if (stored.find("," + problem.id + ",") == std::string::npos) return {};
  const std::string file = problem.id + "/reference.json";
  std::string searched;
  for (const std::string& dir : ReferenceSearchPath()) {
    std::error_code error;
    if (fs::exists(dir + "/" + file, error)) return {};  // found: other parameters, no entry
    searched += (searched.empty() ? "" : ", ") + dir;
  }
  return "no reference data found for " + problem.id + " (" + file + " in none of: " +
         (searched.empty() ? std::string("no reference directory exists") : searched) +
         "): no error metrics; install the reference data (cmake --install puts them in "
         "share/mbbench/reference) or pass --reference-dir DIR / set MBBENCH_REFERENCE_DIR";
}

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
