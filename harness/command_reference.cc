// `mbbench reference`: (re)makes the suite's own reference of a catalogue problem (-p) or of a
// model file (--model, keyed by its content hash) with reference_maker.h, and stores it
// (reference_store.h).
#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>

#include "harness/cli_options.h"
#include "harness/commands.h"
#include "harness/file_names.h"
#include "harness/reference_maker.h"

namespace mbb {

namespace fs = std::filesystem;

namespace {

struct ReferenceCommandOptions {
  CommonOptions common;
  std::string samples;
};

int CmdReference(const CommonOptions& common, const std::string& samples_text) {
  RunOptions o = ToRunOptions(common, "");
  const int samples = samples_text.empty() ? 100 : Count(samples_text, "--samples", 2, 1'000'000);
  if (!o.has_problem) throw InputError("reference: needs -p PROBLEM or --model FILE");
  const TabulatedReference ref = MakeReference(o.spec, samples);
  RequireSafeName(ref.problem, "problem id");
  std::string dir;
  if (!o.spec.model_file.empty()) {
    // A model file's reference: keyed by the file's content hash, in the user reference
    // directory ($MBBENCH_REFERENCE_DIR / --reference-dir, else under $XDG_DATA_HOME or
    // ~/.local/share), where runs on the same file find it from any working directory.
    dir = UserReferenceDirectory() + "/models/" + ModelFileHash(o.spec.model_file);
  } else {
    // Into $MBBENCH_REFERENCE_DIR when set, else ./reference/<problem>/ under the working
    // directory (never the source tree of the binary); runs find it with
    // MBBENCH_REFERENCE_DIR=$PWD/reference (docs/reports.md). Run from the source tree, this
    // is the suite's own reference directory.
    const char* env = std::getenv("MBBENCH_REFERENCE_DIR");
    dir = (env != nullptr ? std::string(env) : (fs::current_path() / "reference").string()) + "/" +
          ref.problem;
  }
  std::error_code error;
  fs::create_directories(dir, error);
  if (error) throw InputError("reference: cannot create " + dir + " (" + error.message() + ")");
  WriteReferenceEntry(dir + "/reference.json", ref);
  std::printf("%s: %zu samples to t = %g, methods differ by %.2e, %g digits claimed\nwritten: %s\n",
              ref.problem.c_str(), ref.reference.times.size(), ref.reference.t_max,
              ref.max_difference, ref.reference.digits, (dir + "/reference.json").c_str());
  return kExitOk;
}

}  // namespace

Command ReferenceCommand(CLI::App& app) {
  auto o = std::make_shared<ReferenceCommandOptions>();
  CLI::App* reference = app.add_subcommand(
      "reference",
      "(re)make the suite's own reference (-p) or a model file's (--model, keyed by its content "
      "hash): odeint-dopri5 vs arkode-erk, rtol 1e-13");
  AddProblemOptions(reference, o->common);
  reference->add_option("--samples", o->samples, "number of samples (default 100)")->type_name("K");
  return {reference, [o] { return CmdReference(o->common, o->samples); }};
}

}  // namespace mbb
