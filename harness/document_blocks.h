// The blocks every document of the suite shares (docs/result-schema.md): the context (where
// and with what it was made), the problem and method of the run, and numbers that may be null.
// result_document.h and stability_document.h build their documents from them; the helpers in
// namespace `document` are their shared writer and reader parts.
#pragma once

#include <array>
#include <map>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "harness/run_record.h"

namespace mbb {

class JsonDocument;

/// A number as a document holds it: empty for null (not measured, or not finite).
using Measured = std::optional<double>;

/// The context block: where and with what the document was made.
struct DocumentContext {
  std::string suite_version, git_commit, compiler, flags, build_type, eigen, sundials, boost, cpu,
      date, simbody, host, reference_data_hash, reference_dir;
  bool git_dirty = false;
  int cores = 0;
};
/// The context of this process (context.h) and the reference data in use.
DocumentContext CurrentDocumentContext();
/// The context block as JSON (every document of the suite carries one: results, stability
/// searches, indexes).
nlohmann::json ContextJson(const DocumentContext& context);

/// The problem and method blocks (both documents).
struct DocumentRun {
  std::string problem;
  std::map<std::string, std::string> problem_parameters;
  std::string formulation;  // "" written as null
  long n = 0, m = 0, dof = 0, constraint_rank = 0;
  std::vector<std::string> warnings;
  Measured position_stated, position, velocity_stated, velocity;  // initial residuals
  std::string method;
  std::map<std::string, std::string> method_parameters;
};

/// The problem and method with their parameters, into any record with the fields problem,
/// problem_parameters, method, method_parameters (the views of a document).
template <typename Values>
void IdentityInto(const DocumentRun& r, Values& b) {
  b.problem = r.problem;
  b.problem_parameters = r.problem_parameters;
  b.method = r.method;
  b.method_parameters = r.method_parameters;
}

/// 16 hex digits (64-bit FNV-1a) of a configuration key, for indexes and file listings.
std::string ConfigurationHash(const std::string& key);

bool operator==(const DocumentContext& a, const DocumentContext& b);
bool operator==(const DocumentRun& a, const DocumentRun& b);

namespace document {

// From records: JSON has no NaN or infinity, a document holds them as null.
Measured M(double x);
Measured M(const std::optional<double>& x);
std::vector<Measured> M(const std::vector<double>& x);
std::array<Measured, 3> M(const std::array<double, 3>& x);
/// The problem and method blocks of a record.
DocumentRun RunOf(const RunRecord& record);

// To JSON.
nlohmann::json J(const Measured& x);
nlohmann::json J(const std::vector<Measured>& x);
nlohmann::json J(const std::array<Measured, 3>& x);
/// {"schema", "context", "problem", "method"}: how every document starts.
nlohmann::json Header(const char* schema, const DocumentContext& context, const DocumentRun& run);

// From JSON, through JsonDocument: every refusal names the file and the key.
std::vector<std::string> StringList(const JsonDocument& d, const std::string& key);
/// A number or null in an array or object member (`key` names it in a refusal).
Measured MeasuredValue(const JsonDocument& d, const nlohmann::json& x, const std::string& key);
/// A whole number where the key may be absent (0 then).
long OptionalWhole(const JsonDocument& d, const std::string& key);
DocumentContext ReadContext(const JsonDocument& d);
/// The problem and method blocks after their identity (ParseRunIdentity, json_file.h).
void ReadRunDetails(const JsonDocument& d, DocumentRun& r);

}  // namespace document

}  // namespace mbb
