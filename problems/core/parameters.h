// Named string parameters (`--param key=value`, `--set key=value`) with typed, validated
// access. Caller misuse (unknown key, unparsable or non-finite number, value outside a
// list) throws InputError with the key and the reason; the CLI turns that into exit code 2.
#pragma once

#include <limits>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace mbb {

/// Bad user input: unknown name, malformed value, inconsistent data. Exit code 2.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Description of one accepted parameter, used for validation, `mbbench list` and help.
struct ParameterSpec {
  std::string name;
  std::string default_value;  // as text; "" means "unset unless given"
  std::string description;
  std::vector<std::string> choices;  // empty: a number
  // Accepted range of a number, checked by ParameterSet::Validate before a problem is
  // built (a count such as a chain length bounds what gets allocated).
  double min = -std::numeric_limits<double>::infinity();
  double max = std::numeric_limits<double>::infinity();
  bool integer = false;  // the number must be whole (a count)
  /// Earlier spellings of `name`, still accepted on input and read back from stored results
  /// (the CLI and result documents are contracts): ParameterSet::WithCurrentNames renames
  /// them before anything else sees the set.
  std::vector<std::string> former_names = {};
};

class ParameterSet {
 public:
  ParameterSet() = default;
  ParameterSet(std::map<std::string, std::string> values) : values_(std::move(values)) {}  // NOLINT

  /// Parses "key=value"; throws InputError naming `context` (e.g. "--set") if malformed.
  void SetFromAssignment(const std::string& assignment, const std::string& context);
  void Set(const std::string& key, const std::string& value) { values_[key] = value; }

  bool Has(const std::string& key) const { return values_.count(key) > 0; }
  const std::map<std::string, std::string>& values() const { return values_; }

  /// The number under `key`, or `fallback` if absent. Accepts "1/12" style fractions.
  double GetDouble(const std::string& key, double fallback) const;
  std::string GetString(const std::string& key, const std::string& fallback) const;
  /// The value under `key`, which the set must hold: a catalogue builder is given
  /// Resolved(entry.parameters) (BuildProblem) and reads its declared defaults this way, so
  /// each default is written once, in its spec. Absent (an undeclared key, or one declared
  /// "unset unless given" and read without Has): std::logic_error naming the key.
  double GetDouble(const std::string& key) const;
  std::string GetString(const std::string& key) const;

  /// Throws InputError for keys not in `specs`, non-numeric or non-finite numbers, numbers
  /// outside a spec's [min, max] or not whole where it wants a count, and values outside a
  /// spec's choices. `owner` names what is being configured.
  void Validate(const std::vector<ParameterSpec>& specs, const std::string& owner) const;

  /// The set with every former name of a spec (ParameterSpec::former_names) replaced by the
  /// spec's name. InputError naming `owner` when a parameter is given under both names.
  ParameterSet WithCurrentNames(const std::vector<ParameterSpec>& specs,
                                const std::string& owner) const;

  /// The specs' defaults overlaid with the given values: what a result records.
  std::map<std::string, std::string> Resolved(const std::vector<ParameterSpec>& specs) const;

 private:
  std::map<std::string, std::string> values_;
};

/// Parses a number written as a decimal, or as "a/b"; throws InputError naming `key`.
double ParseNumber(const std::string& text, const std::string& key);

}  // namespace mbb
