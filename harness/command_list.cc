// `mbbench list [problems|methods|all]`: the catalogue (n, m, DOF, whether a reference
// exists) and the method registry (step control, order, constraint levels kept, parameters).
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>

#include "harness/cli_options.h"
#include "harness/commands.h"
#include "harness/reference_store.h"
#include "harness/runner.h"
#include "problems/core/format.h"

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

// `mbbench list problems ID`: one problem's parameters (defaults, choices, ranges), its shape,
// horizon and default step, outputs, default methods and reference (with its provenance).
int CmdListProblem(const std::string& id) {
  const ProblemEntry& e = FindProblem(id);
  const Problem p = BuildProblem(e.id, ParameterSet());
  const RunRecord shape = DescribeRun({p, &FindMethod("ida"), {}, {}, {}, {}});
  std::printf("%s: %s\nsource: %s\n", e.id.c_str(), e.summary.c_str(), e.source.c_str());
  std::printf("n = %d, m = %d, dof = %d; horizon %g s, default h = %g s\n", shape.n, shape.m,
              shape.dof, p.t_end - p.t0, p.h_default);
  std::printf("parameters (--param K=V):\n");
  if (e.parameters.empty()) std::printf("  none\n");
  for (const ParameterSpec& spec : e.parameters) {
    std::string allowed;
    for (const auto& c : spec.choices) allowed += (allowed.empty() ? " {" : "|") + c;
    if (!allowed.empty()) allowed += "}";
    if (std::isfinite(spec.min) || std::isfinite(spec.max))
      allowed += " in [" +
                 (std::isfinite(spec.min) ? FormatNumber(spec.min) : std::string("-inf")) + ", " +
                 (std::isfinite(spec.max) ? FormatNumber(spec.max) : std::string("inf")) + "]";
    if (spec.integer) allowed += " (whole)";
    std::printf("  %s=%s%s  %s\n", spec.name.c_str(),
                spec.default_value.empty() ? "(unset)" : spec.default_value.c_str(),
                allowed.c_str(), spec.description.c_str());
  }
  std::string outputs, methods;
  for (const auto& o : p.output_names) outputs += (outputs.empty() ? "" : ", ") + o;
  for (const auto& m : p.default_methods) methods += (methods.empty() ? "" : ", ") + m;
  std::printf("outputs: %s\ndefault methods: %s\n", outputs.empty() ? "none" : outputs.c_str(),
              methods.empty() ? "none" : methods.c_str());
  const std::optional<Reference> reference = FindAnyReference(p);
  if (reference)
    std::printf("reference (default parameters): %s, %g digits, up to t = %g s\n  %s\n",
                reference->id.c_str(), reference->digits, reference->t_max,
                reference->provenance.c_str());
  else
    std::printf("reference (default parameters): none found\n");
  return kExitOk;
}

// `mbbench list papers`: the five papers as docs/REFERENCES.md records them; only what the
// paper's own text prints (or its first page confirmed) is stated, the rest is described.
int CmdListPapers() {
  struct Paper {
    const char *key, *cite, *subject, *doi;
  };
  static const Paper papers[] = {
      {"000", "title and authors not in the text; Multibody System Dynamics, 2023",
       "minimal-coordinate integration with a continued QR tangent subspace",
       "10.1007/s11044-023-09882-z"},
      {"001", "title and authors not in the text; Meccanica, 2021",
       "Newmark integration in the tangent manifold of the constraints",
       "10.1007/s11012-021-01433-0"},
      {"002",
       "P. Betsch, S. Leyendecker, The discrete null space method for the energy consistent "
       "integration of constrained mechanical systems. Part II: Multibody dynamics, Int. J. "
       "Numer. Meth. Engng 67 (2006) 499-552",
       "discrete null space energy-momentum scheme on directors", "10.1002/nme.1639"},
      {"003",
       "W. Blajer, W. Schiehlen, W. Schirm, A projective criterion to the coordinate "
       "partitioning method for multibody dynamics, Archive of Applied Mechanics 64 (1994) 86-98",
       "coordinate partitioning with the projective criterion", "10.1007/BF00789100"},
      {"004",
       "M. Arnold, A recursive multibody formalism for systems with small mass and inertia "
       "terms, Mechanical Sciences 4 (2013) 221-231 (journal, pages and DOI from the "
       "publisher's record, not checked against a copy)",
       "recursive O(N) formalism for zero-mass bodies (pseudo-inverse recursion)",
       "10.5194/ms-4-221-2013"}};
  for (const Paper& p : papers)
    std::printf("[%s] %s\n      %s%s%s\n", p.key, p.cite, p.subject, *p.doi ? "; doi:" : "", p.doi);
  std::printf("(docs/REFERENCES.md says which fields each paper's text prints)\n");
  return kExitOk;
}

}  // namespace

Command ListCommand(CLI::App& app) {
  struct Options {
    std::string what = "all", id;
  };
  auto o = std::make_shared<Options>();
  CLI::App* list = app.add_subcommand(
      "list",
      "list problems (n, m, DOF, reference), methods and papers; `list problems ID` "
      "for one problem's parameters, outputs and reference");
  list->add_option("what", o->what, "what to list")
      ->check(CLI::IsMember({"all", "problems", "methods", "papers"}));
  list->add_option("id", o->id, "with `problems`: one problem's details");
  return {list, [o] {
            if (!o->id.empty() && o->what != "problems")
              throw InputError("list " + o->what + " " + o->id + ": an id goes with `problems`");
            if (!o->id.empty()) return CmdListProblem(o->id);
            if (o->what == "papers") return CmdListPapers();
            return CmdList(o->what);
          }};
}

}  // namespace mbb
