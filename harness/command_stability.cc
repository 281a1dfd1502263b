// `mbbench stability`: the largest stable fixed step of a method on a problem
// (stability.h, docs/stability.md), written as DIR/<problem>_<method>.stability.json.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>

#include "harness/cli_options.h"
#include "harness/commands.h"
#include "harness/file_names.h"
#include "harness/json_io.h"
#include "harness/run_table.h"
#include "harness/stability.h"

namespace mbb {

namespace {

struct StabilityCommandOptions {
  CommonOptions common;
  StabilityOptions search;
  std::string h_min, h_max, factor, bound, precision;
};

int CmdStability(const CommonOptions& common, StabilityOptions s) {
  RunOptions o = ToRunOptions(common, "results/stability");
  if (!o.has_problem || !o.has_method)
    throw InputError("stability: needs -p PROBLEM and -m METHOD");
  s.on_trial = [](const StabilityTrial& t) {
    std::fprintf(stderr, "  h = %-12.6g %s\n", t.h,
                 t.status == RunStatus::kOk ? "stable" : "unstable");
  };
  const std::string problem_name =
      o.spec.model_file.empty() ? o.spec.problem : BuildSpecProblem(o.spec).id;
  const std::string stem = problem_name + "_" + o.spec.method;
  RequireSafeName(stem, "result file name");
  PrepareOutputDirectory(o.out);  // before the search: a bad --out is found at once
  const StabilityRecord record = SearchStabilityLimit(o.spec, s);
  const std::string path = o.out + "/" + stem + ".stability.json";
  WriteFileAtomically(path, StabilityRecordToJson(record));
  std::printf(
      "%s %s: h_max_stable = %s, h_min_unstable = %s (criterion %s, horizon %g s)\n",
      o.spec.problem.c_str(), o.spec.method.c_str(), Cell(record.h_max_stable, "%.6g").c_str(),
      Cell(record.h_min_unstable, "%.6g").c_str(), record.criterion.c_str(), record.base.t_end);
  if (!record.message.empty()) std::printf("  %s\n", record.message.c_str());
  for (const std::string& note : record.notes) std::printf("  note: %s\n", note.c_str());
  std::printf("result: %s\n", path.c_str());
  return kExitOk;
}

}  // namespace

Command StabilityCommand(CLI::App& app) {
  auto o = std::make_shared<StabilityCommandOptions>();
  CLI::App* stability = app.add_subcommand(
      "stability", "largest stable fixed step of a method on a problem (docs/stability.md)");
  AddProblemOptions(stability, o->common);
  AddMethodOptions(stability, o->common);
  stability->add_option("--out", o->common.out, "result directory (default results/stability)");
  stability->add_option("--h-min", o->h_min, "lower end of the search bracket, s")->type_name("A");
  stability->add_option("--h-max", o->h_max, "upper end of the search bracket, s")->type_name("B");
  stability->add_option("--criterion", o->search.criterion, "growth, finite or bound")
      ->check(CLI::IsMember({"growth", "finite", "bound"}));
  stability->add_option("--factor", o->factor, "growth factor of the growth criterion");
  stability->add_option("--bound", o->bound, "bound of the bound criterion");
  stability->add_option("--precision", o->precision, "relative precision of the bisection");
  return {stability, [o] {
            StabilityOptions search = o->search;
            if (!o->h_min.empty()) search.h_min = PositiveNumber(o->h_min, "--h-min");
            if (!o->h_max.empty()) search.h_max = PositiveNumber(o->h_max, "--h-max");
            if (!o->factor.empty()) search.factor = Number(o->factor, "--factor");
            if (!o->bound.empty()) search.bound = Number(o->bound, "--bound");
            if (!o->precision.empty())
              search.relative_precision = Number(o->precision, "--precision");
            return CmdStability(o->common, search);
          }};
}

}  // namespace mbb
