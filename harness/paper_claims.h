// Paper claims of a baseline tier (`paper_claims.json` beside the baselines, schema
// mbbench.claims/1, docs/regression.md): numbers a paper states (or an independent check
// recorded in docs/reproduction.md), each tied to one baseline document of the tier and one
// key in it. `mbbench check` judges every claim on the rerun (or --against) documents, so a
// change that keeps the results "unchanged" within the regression tolerances but moves them
// away from the paper is still caught, and a baseline regenerated with --update cannot
// silently give up a reproduced number.
//
// Relations: within (|ours - paper| <= relative_tolerance |paper|), at_most, at_least,
// equals (a string such as a status, a number, or null).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace mbb {

inline constexpr const char* kClaimsSchema = "mbbench.claims/1";
inline constexpr const char* kClaimsFileName = "paper_claims.json";

struct PaperClaim {
  std::string id;
  std::string paper;     // "001"
  std::string where;     // equation, figure or section of the paper
  std::string baseline;  // file name of the baseline document in the same directory
  std::string key;       // dotted path into that document, e.g. metrics.error.position_max_abs
  std::string relation;  // within | at_most | at_least | equals
  std::optional<double> number;     // the paper's value (numbers)
  std::optional<std::string> text;  // the paper's value (equals a string)
  bool null_value = false;          // equals null (e.g. no stable step at all)
  double relative_tolerance = 0.0;  // within
  std::string why;                  // why the relation and tolerance are what they are
  // Where `value` comes from: "paper" (a number the paper prints; the default, so files
  // without the key keep their meaning), "paper statement" (the paper states it in words,
  // e.g. "conserved", "fails", "acceptable"; value is the bound that expresses the statement
  // and `why` says how) or "independent check" (a number computed outside the suite, the
  // paper states none; `why` names the computation). Printed as the label of the value.
  std::string source = "paper";
};

/// Reads and validates a claims file; InputError naming the file, the claim and the key.
std::vector<PaperClaim> ReadPaperClaims(const std::string& path);

struct ClaimVerdict {
  bool holds = false;
  std::string line;  // "001 eq. (11) ...: paper 0.78246, ours 0.78223 (-0.03 %, within 1 %)"
};

/// Whether the document (JSON text) has the claim's key (null counts as there); false for
/// text that is not JSON.
bool ClaimKeyPresent(const PaperClaim& claim, const std::string& document);

/// Judges one claim on a document (JSON text of the baseline's current version).
ClaimVerdict JudgeClaim(const PaperClaim& claim, const std::string& document);

}  // namespace mbb
