// A record of the fallbacks ParameterSet::GetDouble / GetString answer with. A result records
// a parameter's spec default (ParameterSet::Resolved), while a builder or a method's Parse
// reads the value with a fallback of its own: where the two differ, the result records a
// setting that did not run. tests/test_parameter_defaults.cc builds every method and every
// catalogue problem from an empty set inside a FallbackRecorder and compares each fallback
// with the declared default. One recorder per thread at a time; without one, nothing is kept.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace mbb {

class FallbackRecorder {
 public:
  FallbackRecorder();
  ~FallbackRecorder();
  FallbackRecorder(const FallbackRecorder&) = delete;
  FallbackRecorder& operator=(const FallbackRecorder&) = delete;

  /// (key, fallback as text: numbers with %.17g), in the order they were read.
  const std::vector<std::pair<std::string, std::string>>& fallbacks() const { return fallbacks_; }

  static bool Active();  // a recorder on this thread
  /// Called by ParameterSet when a key is absent; a no-op without a recorder on this thread.
  static void Note(const std::string& key, const std::string& fallback);

 private:
  std::vector<std::pair<std::string, std::string>> fallbacks_;
  FallbackRecorder* previous_ = nullptr;
};

}  // namespace mbb
