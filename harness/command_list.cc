// `mbbench list [problems|methods|all]`: the catalogue (n, m, DOF, whether a reference
// exists) and the method registry (step control, order, constraint levels kept, parameters).
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <memory>

#include "harness/cli_options.h"
#include "harness/commands.h"
#include "harness/reference_store.h"
#include "harness/runner.h"

namespace mbb {

namespace {

// What a method promises, in a few characters: constraint levels kept (P, V, A) and E for a
// bounded energy error.
std::string PromisedLevels(const MethodPromises& p) {
  std::string s;
  if (p.satisfies_position) s += "P";
  if (p.satisfies_velocity) s += "V";
  if (p.satisfies_acceleration) s += "A";
  if (p.bounded_energy_error) s += "E";
  return s.empty() ? "-" : s;
}

// The default mode's step control, as `mbbench list methods` has always shown it.
const char* StepControlLabel(const MethodEntry& e) {
  switch (e.step.ModeFor(ParameterSet(), e.parameters)) {
    case StepMode::kFixed:
      return "fixed";
    case StepMode::kAdaptive:
    case StepMode::kAdaptiveFromH:
      return "adaptive";
    case StepMode::kAdaptiveOrFixed:
      return "adapt|h";
  }
  return "?";
}

int CmdList(const std::string& what) {
  if (what != "methods") {
    int width = 7;
    for (const auto& e : ProblemCatalogue()) width = std::max(width, static_cast<int>(e.id.size()));
    std::printf("%-*s %4s %4s %4s  %-9s %-18s %s\n", width, "problem", "n", "m", "dof", "reference",
                "source", "summary");
    for (const auto& e : ProblemCatalogue()) {
      const Problem p = BuildProblem(e.id, ParameterSet());
      const RunRecord shape = DescribeRun({p, &FindMethod("ida"), {}, {}, {}, {}});
      std::printf("%-*s %4d %4d %4d  %-9s %-18s %s\n", width, e.id.c_str(), shape.n, shape.m,
                  shape.dof, FindAnyReference(p) ? "yes" : "no", e.source.c_str(),
                  e.summary.c_str());
    }
  }
  if (what == "all") std::printf("\n");
  if (what != "problems") {
    int width = 6;
    for (const auto& e : MethodRegistry()) width = std::max(width, static_cast<int>(e.name.size()));
    std::printf("%-*s %-8s %5s %-5s %s\n", width, "method", "step", "order", "keeps", "source");
    std::printf("%-*s %-8s %5s %-5s %s\n", width, "", "", "", "", "  summary; parameters");
    for (const auto& e : MethodRegistry()) {
      const MethodPromises& promise = e.promises;
      std::printf("%-*s %-8s %5s %-5s %s\n", width, e.name.c_str(), StepControlLabel(e),
                  promise.order > 0 ? std::to_string(promise.order).c_str() : "-",
                  PromisedLevels(promise).c_str(), e.source.c_str());
      std::printf("    %s\n", e.summary.c_str());
      for (const auto& p : e.parameters) {
        std::string choices;
        for (const auto& c : p.choices) choices += (choices.empty() ? " {" : "|") + c;
        if (!choices.empty()) choices += "}";
        std::printf("    %s=%s%s  %s\n", p.name.c_str(), p.default_value.c_str(), choices.c_str(),
                    p.description.c_str());
      }
    }
    std::printf(
        "\nkeeps: constraint levels held at every step (P position, V velocity, A "
        "acceleration), E a bounded energy error; order: at a fixed step (the "
        "conformance test checks both: tests/test_conformance.cc)\n");
  }
  return kExitOk;
}

}  // namespace

Command ListCommand(CLI::App& app) {
  auto what = std::make_shared<std::string>("all");
  CLI::App* list = app.add_subcommand("list", "list problems (n, m, DOF, reference) and methods");
  list->add_option("what", *what, "what to list")
      ->check(CLI::IsMember({"all", "problems", "methods"}));
  return {list, [what] { return CmdList(*what); }};
}

}  // namespace mbb
