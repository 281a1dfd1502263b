// Declared defaults are the defaults that run. A result records a parameter's spec default
// (ParameterSet::Resolved) and hashes it into its configuration; the method's Parse or the
// problem's builder reads the same key with a fallback of its own. Where the two differ the
// result records a setting that did not run (partitioning recorded hysteresis = 0.05 and
// ran 0.01). Every method and every catalogue problem is built here from an empty parameter
// set under a FallbackRecorder, and each fallback it read is compared with the declaration;
// a catalogue problem's builder reads its parameters without fallbacks (BuildProblem hands it
// the declared defaults), so there the declaration is the only default there is.
#include <catch2/catch.hpp>

#include <cmath>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "harness/runner.h"
#include "methods/method.h"
#include "problems/core/parameter_fallbacks.h"
#include "problems/core/problem.h"
#include "tests/run_spec.h"

namespace mbb {
namespace {

using Values = std::map<std::string, std::string>;

std::string Describe(const ParameterSet& set) {
  std::string out;
  for (const auto& [k, v] : set.values()) out += k + "=" + v + " ";
  return out;
}

// The fallbacks read, each judged against `specs`: "" when every one matches its declared
// default, else one line per mismatch (key, fallback, declared default).
std::string Mismatches(const FallbackRecorder& recorder, const std::vector<ParameterSpec>& specs) {
  std::string out;
  for (const auto& [key, fallback] : recorder.fallbacks()) {
    const ParameterSpec* spec = nullptr;
    for (const ParameterSpec& s : specs)
      if (s.name == key) spec = &s;
    // An undeclared key can be neither given (Validate refuses it) nor recorded: a shared
    // Parse reading an option another entry of the family declares (partitioning-fixed's
    // hysteresis) runs its fallback and records nothing, which is consistent.
    if (spec == nullptr) continue;
    // "" declares "unset unless given": the fallback is then the code's marker for unset.
    if (spec->default_value.empty()) continue;
    const bool same =
        spec->choices.empty()
            // Exact: both are the same decimal text read by strtod (fractions as a / b).
            ? ParseNumber(spec->default_value, key) == std::stod(fallback)
            : spec->default_value == fallback;
    if (!same)
      out += "  '" + key + "': runs " + fallback + ", declares " + spec->default_value + "\n";
  }
  return out;
}

TEST_CASE("every method runs the parameter defaults its entry declares", "[parameters]") {
  for (const MethodEntry& entry : MethodRegistry()) {
    FallbackRecorder recorder;
    const ParameterSet none;
    entry.create(none);
    INFO("method " << entry.name << "\n" << Mismatches(recorder, entry.parameters));
    CHECK(Mismatches(recorder, entry.parameters).empty());
  }
}

// A catalogue builder gets the declared defaults overlaid with the given values
// (BuildProblem: ParameterSet::Resolved) and reads them without a fallback of its own, so a
// key read without a declared default is a std::logic_error, not a quiet second default.
// Built with no parameters and with each choice of every choice parameter (the branches a
// form or a formulation selects read keys of their own); a choice the problem refuses in
// that combination is an InputError, which is fine. Any fallback still read below the
// builder (the model layer's formulation) must equal the declaration.
TEST_CASE("every catalogue problem is built with the parameter defaults it declares",
          "[parameters]") {
  for (const ProblemEntry& entry : ProblemCatalogue()) {
    std::vector<ParameterSet> variants = {ParameterSet{}};
    for (const ParameterSpec& p : entry.parameters)
      for (const std::string& choice : p.choices)
        variants.push_back(ParameterSet(Values{{p.name, choice}}));
    for (const ParameterSet& variant : variants) {
      INFO("problem " << entry.id << " " << Describe(variant));
      FallbackRecorder recorder;
      try {
        BuildProblem(entry.id, variant);
      } catch (const InputError&) {
        CHECK(variant.values().size() == 1);  // the defaults themselves must build
        continue;
      }
      INFO(Mismatches(recorder, entry.parameters));
      CHECK(Mismatches(recorder, entry.parameters).empty());
    }
  }
}

// Reading a key the builder was not given is an error, whatever the caller: no fallback.
TEST_CASE("a builder's read of an undeclared parameter fails loudly", "[parameters]") {
  const ParameterSet resolved(ParameterSet().Resolved({{"g", "9.81", "", {}}}));
  CHECK(resolved.GetDouble("g") == 9.81);
  CHECK_THROWS_AS(resolved.GetDouble("length"), std::logic_error);
  CHECK_THROWS_AS(resolved.GetString("form"), std::logic_error);
}

// A setting given to a method is either refused (exit 2, naming it) or recorded and used:
// the run with another value of it differs (steps or final state). recursive with
// integrator=rk4 recorded an rtol it never read, with IDA an h. Every entry, with its default
// parameters and each value of the parameters that switch its step mode, on a short
// planar-pendulum run (where the entry is not_applicable there, only refusal is checked).
TEST_CASE("every method records a given h or tolerance only where it uses it", "[parameters]") {
  const std::map<std::string, std::pair<std::string, std::string>> values = {
      {"h", {"0.01", "0.02"}}, {"rtol", {"1e-4", "1e-8"}}};
  for (const MethodEntry& entry : MethodRegistry()) {
    std::vector<std::map<std::string, std::string>> modes = {{}};
    for (const ParameterSpec& p : entry.parameters)
      if (p.name == "integrator" || p.name == "step" || p.name == entry.step.key())
        for (const std::string& choice : p.choices) modes.push_back({{p.name, choice}});
    for (const auto& mode : modes) {
      for (const auto& [key, pair] : values) {
        auto spec_with = [&, key = key](const std::string& value) {
          RunSpec spec = Spec("planar_pendulum", entry.name, {}, mode, 0.2);
          spec.SetFromText(key, value);
          return spec;
        };
        INFO(entry.name << " " << (mode.empty() ? "" : mode.begin()->second) << " " << key);
        try {
          const RunRecord a = Execute(spec_with(pair.first));
          const RunRecord b = Execute(spec_with(pair.second));
          const std::optional<double>& recorded = key == "h" ? a.h : a.rtol;
          REQUIRE(recorded);
          CHECK(*recorded == std::stod(pair.first));
          if (a.status != RunStatus::kOk || b.status != RunStatus::kOk) continue;
          CHECK((a.counters.steps != b.counters.steps || a.final_q != b.final_q));
        } catch (const InputError& e) {
          // Refused: for this setting, or for the mode itself (refused without it too).
          const std::string why = e.what();
          bool mode_refused = false;
          try {
            ResolveRun(Spec("planar_pendulum", entry.name, {}, mode, 0.2));
          } catch (const InputError&) {
            mode_refused = true;
          }
          CHECK((mode_refused ||
                 why.find("does not use the setting(s) " + key) != std::string::npos));
        }
      }
    }
  }
}

TEST_CASE("the congruence check sees a fallback that differs from the declaration",
          "[parameters]") {
  const std::vector<ParameterSpec> specs = {{"hysteresis", "0.05", "", {}},
                                            {"integrator", "rk4", "", {"rk4", "dopri5"}}};
  FallbackRecorder recorder;
  const ParameterSet none;
  none.GetDouble("hysteresis", 0.01);
  none.GetString("integrator", "rk4");
  const std::string found = Mismatches(recorder, specs);
  CHECK(found.find("'hysteresis': runs 0.01") != std::string::npos);
  CHECK(found.find("integrator") == std::string::npos);
}

}  // namespace
}  // namespace mbb
