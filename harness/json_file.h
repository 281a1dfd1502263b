// One JSON file, parsed, with the errors every reader gives: "PATH: cannot open",
// "PATH: malformed JSON: ..." (InputError, exit 2).
#pragma once

#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "problems/parameters.h"

namespace mbb {

inline nlohmann::json ReadJsonFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError(path + ": cannot open");
  try {
    return nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw InputError(path + ": malformed JSON: " + e.what());
  }
}

/// A JSON number as a double; empty for null or any other type.
inline std::optional<double> OptionalNumber(const nlohmann::json& j) {
  if (j.is_number()) return j.get<double>();
  return std::nullopt;
}

}  // namespace mbb
