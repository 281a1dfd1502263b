// The stability document (mbbench.stability/1, docs/stability.md) as a typed value, with one
// writer (`mbbench stability`, `check --update`) and one reader (check, report):
// StabilityDocumentFromJson(ToJson(doc)) == doc. A document written before the search
// bracket was recorded reads with h_min = its first trial and h_max = 1000 h_min.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "harness/document_blocks.h"

namespace mbb {

inline constexpr const char* kStabilitySchema = "mbbench.stability/1";

struct DocumentTrial {
  double h = 0.0;
  std::string status;
  bool stable = false;
  std::string message;
  Measured max_band_ratio;
};

/// A stability document (mbbench.stability/1).
struct StabilityDocument {
  DocumentContext context;
  DocumentRun run;
  double t_end = 0.0, relative_precision = 0.0, h_min = 0.0, h_max = 0.0;
  Measured h_max_stable, h_min_unstable;
  std::string criterion;
  std::map<std::string, double> criterion_parameters;
  std::string criterion_description;
  std::vector<DocumentTrial> trials;
  std::string message;
  std::vector<std::string> notes;
};

StabilityDocument StabilityDocumentOf(const StabilityRecord& record);
std::string ToJson(const StabilityDocument& document);
/// Reads a stability document; InputError naming `where` and the key on a malformed one.
/// A document written before the bracket was recorded has h_min = its first trial and
/// h_max = 1000 h_min.
StabilityDocument StabilityDocumentFromJson(const std::string& text, const std::string& where);

bool operator==(const StabilityDocument& a, const StabilityDocument& b);

}  // namespace mbb
