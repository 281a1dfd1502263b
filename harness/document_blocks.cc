// The shared blocks of the suite's documents: context, problem, method, nullable numbers.
#include "harness/document_blocks.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <tuple>

#include "harness/context.h"
#include "harness/json_file.h"
#include "harness/reference_store.h"

namespace mbb {

using nlohmann::json;

namespace document {

Measured M(double x) { return std::isfinite(x) ? Measured(x) : std::nullopt; }
Measured M(const std::optional<double>& x) { return x ? M(*x) : std::nullopt; }
std::vector<Measured> M(const std::vector<double>& v) {
  std::vector<Measured> out;
  for (double x : v) out.push_back(M(x));
  return out;
}
std::array<Measured, 3> M(const std::array<double, 3>& x) { return {M(x[0]), M(x[1]), M(x[2])}; }

DocumentRun RunOf(const RunRecord& r) {
  DocumentRun d;
  d.problem = r.problem_id;
  d.problem_parameters = r.problem_parameters;
  d.formulation = r.problem_formulation;
  d.n = r.n;
  d.m = r.m;
  d.dof = r.dof;
  d.constraint_rank = r.constraint_rank;
  d.warnings = r.warnings;
  d.position_stated = M(r.initial_residuals.position_stated);
  d.position = M(r.initial_residuals.position);
  d.velocity_stated = M(r.initial_residuals.velocity_stated);
  d.velocity = M(r.initial_residuals.velocity);
  d.method = r.method_id;
  d.method_parameters = r.method_parameters;
  return d;
}

json J(const Measured& x) { return x ? json(*x) : json(nullptr); }
json J(const std::array<Measured, 3>& x) { return json::array({J(x[0]), J(x[1]), J(x[2])}); }
json J(const std::vector<Measured>& x) {
  json a = json::array();
  for (const Measured& v : x) a.push_back(J(v));
  return a;
}

namespace {
json ProblemJson(const DocumentRun& r) {
  return {{"id", r.problem},
          {"parameters", r.problem_parameters},
          {"formulation", r.formulation.empty() ? json(nullptr) : json(r.formulation)},
          {"n", r.n},
          {"m", r.m},
          {"dof", r.dof},
          {"constraint_rank", r.constraint_rank},
          {"warnings", r.warnings},
          {"initial_residuals",
           {{"position_stated", J(r.position_stated)},
            {"position", J(r.position)},
            {"velocity_stated", J(r.velocity_stated)},
            {"velocity", J(r.velocity)}}}};
}

json MethodJson(const DocumentRun& r) {
  return {{"id", r.method}, {"parameters", r.method_parameters}};
}
}  // namespace

json Header(const char* schema, const DocumentContext& context, const DocumentRun& run) {
  return {{"schema", schema},
          {"context", ContextJson(context)},
          {"problem", ProblemJson(run)},
          {"method", MethodJson(run)}};
}

std::vector<std::string> StringList(const JsonDocument& d, const std::string& key) {
  std::vector<std::string> out;
  const json* j = d.Find(key);
  if (j == nullptr || j->is_null()) return out;
  if (!j->is_array())
    d.Fail(key, "expected an array of strings, found " + JsonDocument::TypeName(*j));
  for (const auto& x : *j) {
    if (!x.is_string()) d.Fail(key, "expected strings, found " + JsonDocument::TypeName(x));
    out.push_back(x.get<std::string>());
  }
  return out;
}

// A number or null in an array or object member (`key` names it in a refusal).
Measured MeasuredValue(const JsonDocument& d, const json& x, const std::string& key) {
  if (x.is_null()) return std::nullopt;
  if (!x.is_number()) d.Fail(key, "expected a number or null, found " + JsonDocument::TypeName(x));
  return x.get<double>();
}

long OptionalWhole(const JsonDocument& d, const std::string& key) {
  return d.Find(key) != nullptr ? d.Whole(key) : 0;
}

DocumentContext ReadContext(const JsonDocument& d) {
  d.Object("context");
  DocumentContext c;
  for (auto [key, field] : {std::pair{"suite_version", &c.suite_version},
                            {"git_commit", &c.git_commit},
                            {"compiler", &c.compiler},
                            {"flags", &c.flags},
                            {"build_type", &c.build_type},
                            {"eigen", &c.eigen},
                            {"sundials", &c.sundials},
                            {"boost", &c.boost},
                            {"cpu", &c.cpu},
                            {"date", &c.date},
                            {"simbody", &c.simbody},
                            {"host", &c.host},
                            {"reference_data_hash", &c.reference_data_hash},
                            {"reference_dir", &c.reference_dir}})
    *field = d.OptionalString(std::string("context.") + key);
  c.git_dirty = d.Boolean("context.git_dirty", false);
  c.cores =
      static_cast<int>(std::clamp(d.OptionalNumberAt("context.cores").value_or(0.0), 0.0, 1e9));
  return c;
}

// The problem and method blocks, after their identity (ParseRunIdentity).
void ReadRunDetails(const JsonDocument& d, DocumentRun& r) {
  r.formulation = d.OptionalString("problem.formulation");
  r.n = OptionalWhole(d, "problem.n");
  r.m = OptionalWhole(d, "problem.m");
  r.dof = OptionalWhole(d, "problem.dof");
  r.constraint_rank = OptionalWhole(d, "problem.constraint_rank");
  r.warnings = StringList(d, "problem.warnings");
  r.position_stated = d.OptionalNumberAt("problem.initial_residuals.position_stated");
  r.position = d.OptionalNumberAt("problem.initial_residuals.position");
  r.velocity_stated = d.OptionalNumberAt("problem.initial_residuals.velocity_stated");
  r.velocity = d.OptionalNumberAt("problem.initial_residuals.velocity");
}

}  // namespace document

namespace {
std::string HashHex(const std::string& bytes) {
  std::uint64_t h = 14695981039346656037ull;  // FNV-1a, 64 bit
  for (unsigned char c : bytes) h = (h ^ c) * 1099511628211ull;
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  return hex;
}

auto Tie(const DocumentContext& c) {
  return std::tie(c.suite_version, c.git_commit, c.compiler, c.flags, c.build_type, c.eigen,
                  c.sundials, c.boost, c.cpu, c.date, c.simbody, c.host, c.reference_data_hash,
                  c.reference_dir, c.git_dirty, c.cores);
}
auto Tie(const DocumentRun& r) {
  return std::tie(r.problem, r.problem_parameters, r.formulation, r.n, r.m, r.dof,
                  r.constraint_rank, r.warnings, r.position_stated, r.position, r.velocity_stated,
                  r.velocity, r.method, r.method_parameters);
}
}  // namespace

nlohmann::json ContextJson(const DocumentContext& c) {
  return {{"suite_version", c.suite_version},
          {"git_commit", c.git_commit},
          {"git_dirty", c.git_dirty},
          {"compiler", c.compiler},
          {"flags", c.flags},
          {"build_type", c.build_type},
          {"eigen", c.eigen},
          {"sundials", c.sundials},
          {"boost", c.boost},
          {"cpu", c.cpu},
          {"cores", c.cores},
          {"date", c.date},
          {"simbody", c.simbody.empty() ? json(nullptr) : json(c.simbody)},
          {"host", c.host},
          {"reference_data_hash", c.reference_data_hash},
          {"reference_dir", c.reference_dir}};
}

DocumentContext CurrentDocumentContext() {
  const RunContext& c = CurrentContext();
  DocumentContext d;
  d.suite_version = c.suite_version;
  d.git_commit = c.git_commit;
  d.compiler = c.compiler;
  d.flags = c.flags;
  d.build_type = c.build_type;
  d.eigen = c.eigen;
  d.sundials = c.sundials;
  d.boost = c.boost;
  d.cpu = c.cpu;
  d.date = c.date;
  d.simbody = c.simbody;
  d.host = c.host;
  d.git_dirty = c.git_dirty;
  d.cores = c.cores;
  d.reference_data_hash = ReferenceDataHash();
  d.reference_dir = ReferenceDirectory();
  return d;
}

std::string ConfigurationHash(const std::string& key) { return HashHex(key); }

bool operator==(const DocumentContext& a, const DocumentContext& b) { return Tie(a) == Tie(b); }
bool operator==(const DocumentRun& a, const DocumentRun& b) { return Tie(a) == Tie(b); }

}  // namespace mbb
