// One JSON file, parsed, with the errors every reader gives: "PATH: cannot open",
// "PATH: malformed JSON: ..." (InputError, exit 2); and JsonDocument, typed access to the keys
// of a parsed document whose every refusal names the file and the key.
#pragma once

#include <cmath>
#include <fstream>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>

#include "problems/core/parameters.h"

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

/// Parses JSON text; InputError "WHERE: malformed JSON: ..." when it is not JSON.
inline nlohmann::json ParseJsonText(const std::string& text, const std::string& where) {
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw InputError(where + ": malformed JSON: " + e.what());
  }
}

/// A JSON number as a double; empty for null or any other type.
inline std::optional<double> OptionalNumber(const nlohmann::json& j) {
  if (j.is_number()) return j.get<double>();
  return std::nullopt;
}

/// A parsed document read by dotted key paths ("settings.t_end"). Every refusal is an
/// InputError "WHERE: key 'settings.t_end': expected a number, found string": the readers of
/// result, stability and claim documents never let a nlohmann exception (or a conversion
/// that is undefined behaviour, such as a huge double to long) through.
class JsonDocument {
 public:
  using Json = nlohmann::json;

  JsonDocument(Json root, std::string where) : root_(std::move(root)), where_(std::move(where)) {
    if (!root_.is_object())
      throw InputError(where_ + ": expected a JSON object, found " + TypeName(root_));
  }

  const std::string& where() const { return where_; }

  /// "WHERE: not a mbbench.result/1 document (schema 'x')" unless the document's "schema" is
  /// `schema`.
  void RequireSchema(const std::string& schema) const {
    const std::string found = OptionalString("schema");
    if (found != schema)
      throw InputError(where_ + ": not a " + schema + " document" +
                       (found.empty() ? " (no schema)" : " (schema '" + found + "')"));
  }

  /// The value at `key`, or nullptr when it (or a part on the way) is absent; a part on the
  /// way that is there but not an object is an error.
  const Json* Find(const std::string& key) const {
    const Json* node = &root_;
    std::string path;
    size_t start = 0;
    while (true) {
      const size_t dot = key.find('.', start);
      const std::string part =
          key.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
      if (!node->is_object()) Fail(path, "expected an object, found " + TypeName(*node));
      path += (path.empty() ? "" : ".") + part;
      const auto it = node->find(part);
      if (it == node->end()) return nullptr;
      node = &*it;
      if (dot == std::string::npos) return node;
      start = dot + 1;
    }
  }

  /// The value at `key`, which must be there.
  const Json& At(const std::string& key) const {
    const Json* node = Find(key);
    if (node == nullptr) Fail(key, "missing");
    return *node;
  }

  std::string String(const std::string& key) const {
    const Json& j = At(key);
    if (!j.is_string()) Fail(key, "expected a string, found " + TypeName(j));
    return j.get<std::string>();
  }

  /// A string where the key may be absent or null (`fallback` then).
  std::string OptionalString(const std::string& key, const std::string& fallback = "") const {
    const Json* j = Find(key);
    if (j == nullptr || j->is_null()) return fallback;
    if (!j->is_string()) Fail(key, "expected a string, found " + TypeName(*j));
    return j->get<std::string>();
  }

  double Number(const std::string& key) const {
    const Json& j = At(key);
    if (!j.is_number()) Fail(key, "expected a number, found " + TypeName(j));
    return j.get<double>();
  }

  /// A key that must be there and hold a number or null (a metric that was not measured).
  std::optional<double> NumberOrNull(const std::string& key) const {
    const Json& j = At(key);
    if (j.is_null()) return std::nullopt;
    if (!j.is_number()) Fail(key, "expected a number or null, found " + TypeName(j));
    return j.get<double>();
  }

  /// A number where the key may be absent or null.
  std::optional<double> OptionalNumberAt(const std::string& key) const {
    const Json* j = Find(key);
    if (j == nullptr || j->is_null()) return std::nullopt;
    if (!j->is_number()) Fail(key, "expected a number or null, found " + TypeName(*j));
    return j->get<double>();
  }

  /// A whole number within the range of long (a counter).
  long Whole(const std::string& key) const {
    const Json& j = At(key);
    if (j.is_number_unsigned()) {
      if (j.get<unsigned long long>() >
          static_cast<unsigned long long>(std::numeric_limits<long>::max()))
        Fail(key, "expected a whole number, found one too large");
      return static_cast<long>(j.get<unsigned long long>());
    }
    if (j.is_number_integer()) return static_cast<long>(j.get<long long>());
    if (j.is_number_float()) {
      const double x = j.get<double>();
      // 2^63 is exact in a double; a double below it converts to long without overflow.
      if (x == std::floor(x) && std::abs(x) < 9223372036854775808.0) return static_cast<long>(x);
    }
    Fail(key, "expected a whole number, found " + TypeName(j));
  }

  bool Boolean(const std::string& key, bool fallback) const {
    const Json* j = Find(key);
    if (j == nullptr || j->is_null()) return fallback;
    if (!j->is_boolean()) Fail(key, "expected true or false, found " + TypeName(*j));
    return j->get<bool>();
  }

  /// An object whose values are all strings (problem and method parameters).
  std::map<std::string, std::string> Strings(const std::string& key) const {
    const Json& j = At(key);
    if (!j.is_object()) Fail(key, "expected an object of strings, found " + TypeName(j));
    std::map<std::string, std::string> out;
    for (const auto& [name, value] : j.items()) {
      if (!value.is_string()) Fail(key + "." + name, "expected a string, found " + TypeName(value));
      out[name] = value.get<std::string>();
    }
    return out;
  }

  /// An array (of anything) at `key`.
  const Json& Array(const std::string& key) const {
    const Json& j = At(key);
    if (!j.is_array()) Fail(key, "expected an array, found " + TypeName(j));
    return j;
  }

  /// An object at `key`.
  const Json& Object(const std::string& key) const {
    const Json& j = At(key);
    if (!j.is_object()) Fail(key, "expected an object, found " + TypeName(j));
    return j;
  }

  [[noreturn]] void Fail(const std::string& key, const std::string& reason) const {
    throw InputError(where_ + ": key '" + key + "': " + reason);
  }

  static std::string TypeName(const Json& j) {
    if (j.is_number()) return "a number";
    if (j.is_string()) return "a string";
    if (j.is_array()) return "an array";
    if (j.is_object()) return "an object";
    if (j.is_boolean()) return "a boolean";
    if (j.is_null()) return "null";
    return j.type_name();
  }

 private:
  Json root_;
  std::string where_;
};

/// The problem and method a result or stability document describes, with their parameters,
/// into any record with the fields problem, problem_parameters, method, method_parameters.
template <typename Values>
void ParseRunIdentity(const JsonDocument& d, Values& b) {
  b.problem = d.String("problem.id");
  b.problem_parameters = d.Strings("problem.parameters");
  b.method = d.String("method.id");
  b.method_parameters = d.Strings("method.parameters");
}

}  // namespace mbb
