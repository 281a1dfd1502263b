#include "harness/reference_store.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "harness/atomic_file.h"
#include "harness/context.h"
#include "harness/model_file.h"
#include "problems/model/body_motion.h"

#ifndef MBBENCH_SOURCE_DIR
#define MBBENCH_SOURCE_DIR "."
#endif
// The problems with a stored reference in the source tree at configure time
// (harness/CMakeLists.txt), ","-separated.
#ifndef MBBENCH_STORED_REFERENCES
#define MBBENCH_STORED_REFERENCES ""
#endif

namespace mbb {

using nlohmann::json;

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

namespace {

// A reference made before a catalogue parameter existed (e.g. `formulation`) was made with
// its default: complete the stored parameters with the catalogue defaults they lack.
std::map<std::string, std::string> WithCatalogueDefaults(std::map<std::string, std::string> stored,
                                                         const std::string& problem_id) {
  for (const auto& entry : ProblemCatalogue())
    if (entry.id == problem_id)
      for (const auto& spec : entry.parameters)
        if (!spec.default_value.empty()) stored.emplace(spec.name, spec.default_value);
  return stored;
}

}  // namespace

std::optional<Reference> ReadReferenceFile(const std::string& path, const Problem& problem) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  try {
    const json j = json::parse(in);
    for (const auto& e : j.at("references")) {
      // A model file's parameters hold the path it was read from; its references are keyed
      // by the file's content hash (the directory they are in), so the path is not compared.
      std::map<std::string, std::string> wanted = problem.parameters;
      wanted.erase("model_file");
      if (WithCatalogueDefaults(e.at("parameters").get<std::map<std::string, std::string>>(),
                                problem.id) != wanted)
        continue;
      Reference ref;
      ref.id = e.at("id").get<std::string>();
      ref.provenance = e.at("provenance").get<std::string>();
      ref.digits = e.at("digits").get<double>();
      ref.t_max = e.at("t_max").get<double>();
      ref.times = e.at("times").get<std::vector<double>>();
      for (const auto& q : e.at("positions")) {
        const auto values = q.get<std::vector<double>>();
        if (static_cast<int>(values.size()) != problem.n())
          throw InputError(path + ": positions of the wrong size for " + problem.id);
        ref.positions.push_back(Eigen::Map<const Vector>(values.data(), problem.n()));
      }
      if (ref.positions.size() != ref.times.size())
        throw InputError(path + ": times and positions differ in length");
      // Velocities: optional (files made before they were stored have none; the outputs
      // that depend on v are then not compared).
      if (e.contains("velocities")) {
        for (const auto& v : e.at("velocities")) {
          const auto values = v.get<std::vector<double>>();
          if (static_cast<int>(values.size()) != problem.n())
            throw InputError(path + ": velocities of the wrong size for " + problem.id);
          ref.velocities.push_back(Eigen::Map<const Vector>(values.data(), problem.n()));
        }
        if (ref.velocities.size() != ref.times.size())
          throw InputError(path + ": times and velocities differ in length");
      }
      AttachOutputs(problem, ref);
      return ref;
    }
  } catch (const json::exception& e) {
    throw InputError(path + ": malformed reference file: " + e.what());
  }
  return std::nullopt;
}

bool ReferenceFileLists(const std::string& path, const std::string& problem_id,
                        const std::map<std::string, std::string>& parameters) {
  std::ifstream in(path);
  if (!in) return false;
  try {
    const json j = json::parse(in);
    for (const auto& e : j.at("references"))
      if (WithCatalogueDefaults(e.at("parameters").get<std::map<std::string, std::string>>(),
                                problem_id) == parameters)
        return true;
  } catch (const json::exception& e) {
    throw InputError(path + ": malformed reference file: " + e.what());
  }
  return false;
}

void WriteReferenceEntry(const std::string& path, const TabulatedReference& entry) {
  json j = {
      {"schema", "mbbench.reference/1"}, {"problem", entry.problem}, {"references", json::array()}};
  {
    std::ifstream in(path);
    if (in) j = json::parse(in);
  }
  const Reference& r = entry.reference;
  json positions = json::array();
  for (const auto& q : r.positions)
    positions.push_back(std::vector<double>(q.data(), q.data() + q.size()));
  json velocities = json::array();
  for (const auto& v : r.velocities)
    velocities.push_back(std::vector<double>(v.data(), v.data() + v.size()));
  json e = {{"id", r.id},
            {"parameters", entry.parameters},
            {"provenance", r.provenance},
            {"digits", r.digits},
            {"t_max", r.t_max},
            {"max_difference_between_methods", entry.max_difference},
            {"commit", CurrentContext().git_commit},
            {"times", r.times},
            {"positions", positions}};
  if (!r.velocities.empty()) e["velocities"] = velocities;
  json kept = json::array();
  for (const auto& old : j["references"])
    if (old.at("parameters") != e["parameters"]) kept.push_back(old);
  kept.push_back(e);
  j["references"] = kept;
  WriteFileAtomically(path, j.dump(1) + "\n");
}

}  // namespace mbb
