// Shard manifests (shard_manifest.h, docs/cluster.md "Manifests").
#include "harness/shard_manifest.h"

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "harness/configuration.h"
#include "harness/context.h"
#include "harness/json_file.h"
#include "harness/json_io.h"
#include "harness/reference_maker.h"
#include "harness/runner.h"

namespace mbb {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::string FileBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The absolute path of this executable, for the rerun commands.
std::string ThisExecutable() {
  std::error_code error;
  const fs::path self = fs::read_symlink("/proc/self/exe", error);
  return error ? std::string("mbbench") : self.string();
}

}  // namespace

std::string ShardDirectoryName(int shard) { return "shard-" + std::to_string(shard); }

int ShardOfDirectoryName(const std::string& name) {
  const std::string digits = name.rfind("shard-", 0) == 0 ? name.substr(6) : "";
  if (digits.empty() || digits.size() > 7 ||
      digits.find_first_not_of("0123456789") != std::string::npos)
    return -1;
  return std::stoi(digits);
}

std::string ExperimentHash(const std::string& file, const SweepFile& sweep) {
  std::string bytes = FileBytes(file);
  std::set<std::string> seen;
  for (const SweepItem& item : sweep.items)  // a model file's content is part of the experiment
    if (!item.spec.model_file.empty() && seen.insert(item.spec.model_file).second)
      bytes += "\nmodel " + ConfigurationHash(FileBytes(item.spec.model_file));
  return ConfigurationHash(bytes);
}

std::vector<OwedRun> OwedRunsOf(const SweepFile& sweep, int shard, int shards) {
  std::vector<OwedRun> runs;
  for (size_t i = static_cast<size_t>(shard); i < sweep.items.size();
       i += static_cast<size_t>(shards)) {
    const SweepItem& item = sweep.items[i];
    OwedRun run;
    run.position = i;
    run.file = item.label + ".json";
    run.problem = item.spec.model_file.empty() ? item.spec.problem : item.spec.model_file;
    run.method = item.spec.method;
    try {  // the key the sweep's resume compares (RunBatch): the time limit is not part of it
      run.configuration_hash =
          ConfigurationHash(ConfigurationKey(DescribeRun(ResolveRun(item.spec)), item.spec));
    } catch (const InputError& e) {
      throw InputError("run " + item.label + ": " + e.what());
    }
    runs.push_back(std::move(run));
  }
  return runs;
}

std::string ShardManifestToJson(const ShardManifest& m) {
  json runs = json::array();
  for (const OwedRun& r : m.runs)
    runs.push_back({{"position", r.position},
                    {"file", r.file},
                    {"problem", r.problem},
                    {"method", r.method},
                    {"configuration_hash", r.configuration_hash}});
  const json j = {{"schema", kShardSchema},
                  {"experiment", m.experiment},
                  {"experiment_name", m.experiment_name},
                  {"experiment_hash", m.experiment_hash},
                  {"shard", m.shard},
                  {"shards", m.shards},
                  {"options", m.options},
                  {"build",
                   {{"git_commit", m.git_commit},
                    {"git_dirty", m.git_dirty},
                    {"reference_data_hash", m.reference_data_hash}}},
                  {"started", m.started},
                  {"runs", runs}};
  return j.dump(2) + "\n";
}

ShardManifest ReadShardManifest(const std::string& path) {
  const JsonDocument d(ReadJsonFile(path), path);
  d.RequireSchema(kShardSchema);
  ShardManifest m;
  m.experiment = d.String("experiment");
  m.experiment_name = d.OptionalString("experiment_name");
  m.experiment_hash = d.String("experiment_hash");
  m.shards = static_cast<int>(d.Whole("shards"));
  m.shard = static_cast<int>(d.Whole("shard"));
  if (m.shards < 1 || m.shard < 0 || m.shard >= m.shards)
    d.Fail("shard", "shard " + std::to_string(m.shard) + " of " + std::to_string(m.shards) +
                        " is not a shard 0 <= K < N");
  if (d.Find("options") != nullptr)
    for (const auto& o : d.Array("options")) {
      if (!o.is_string()) d.Fail("options", "expected strings");
      m.options.push_back(o.get<std::string>());
    }
  m.git_commit = d.OptionalString("build.git_commit");
  m.git_dirty = d.Boolean("build.git_dirty", false);
  m.reference_data_hash = d.OptionalString("build.reference_data_hash");
  m.started = d.OptionalString("started");
  const json& runs = d.Array("runs");
  for (size_t i = 0; i < runs.size(); ++i) {
    const JsonDocument r(runs[i], path + ": runs[" + std::to_string(i) + "]");
    OwedRun run;
    run.position = static_cast<size_t>(r.Whole("position"));
    run.file = r.String("file");
    run.problem = r.OptionalString("problem");
    run.method = r.OptionalString("method");
    run.configuration_hash = r.String("configuration_hash");
    if (run.file.find('/') != std::string::npos || run.file.empty() || run.file[0] == '.')
      r.Fail("file", "'" + run.file + "' is not a result file name");
    m.runs.push_back(std::move(run));
  }
  return m;
}

StoredRun ReadStoredRun(const std::string& path) {
  StoredRun s;
  std::ifstream in(path, std::ios::binary);
  if (!in) return s;
  try {
    const JsonDocument d(ParseJsonText(FileBytes(path), path), path);
    d.RequireSchema(kResultSchema);
    s.status = d.String("status");
    s.configuration_hash = d.OptionalString("configuration_hash");
    s.series = d.OptionalString("series");
    s.message = d.OptionalString("message");
    s.build = "commit " + d.OptionalString("context.git_commit", "?") +
              (d.Boolean("context.git_dirty", false) ? " (dirty)" : "") + ", reference data " +
              d.OptionalString("context.reference_data_hash", "?");
    s.readable = true;
  } catch (const InputError&) {
    s = {};  // unreadable: the run is not finished, it is rerun (and the file overwritten)
  }
  return s;
}

std::string ShellQuoted(const std::string& path) {
  if (!path.empty() && path.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                              "0123456789_./=:+-") == std::string::npos)
    return path;
  std::string quoted = "'";
  for (char c : path) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

std::string RerunCommand(const std::string& experiment, int shard, int shards,
                         const std::string& out, const std::vector<std::string>& options) {
  std::string command = ShellQuoted(ThisExecutable()) + " sweep " + ShellQuoted(experiment) +
                        " --shard " + std::to_string(shard) + "/" + std::to_string(shards) +
                        " --out " + ShellQuoted(out);
  for (const std::string& o : options) command += " " + ShellQuoted(o);
  return command;
}

std::set<std::string> StartShard(const ShardStart& s) {
  ShardManifest m;
  m.experiment = fs::absolute(s.experiment).lexically_normal().string();
  m.experiment_name = s.sweep->name;
  m.experiment_hash = ExperimentHash(s.experiment, *s.sweep);
  m.shard = s.shard;
  m.shards = s.shards;
  m.options = s.options;
  const RunContext& context = CurrentContext();
  m.git_commit = context.git_commit;
  m.git_dirty = context.git_dirty;
  m.reference_data_hash = ReferenceDataHash();
  m.started = context.date;
  m.runs = OwedRunsOf(*s.sweep, s.shard, s.shards);
  const std::string dir = s.out + "/" + ShardDirectoryName(s.shard);
  fs::create_directories(dir);
  WriteFileAtomically(dir + "/" + kShardManifestName, ShardManifestToJson(m));
  std::set<std::string> merged;
  if (s.force) return merged;
  for (const OwedRun& run : m.runs) {  // finished in a merged OUT: not run again
    const StoredRun stored = ReadStoredRun(s.out + "/" + run.file);
    if (stored.readable && stored.configuration_hash == run.configuration_hash)
      merged.insert(run.file.substr(0, run.file.size() - 5));
  }
  if (!merged.empty())
    std::fprintf(stderr, "shard %d/%d: %zu of %zu runs are finished in %s (merged): not rerun\n",
                 s.shard, s.shards, merged.size(), m.runs.size(), s.out.c_str());
  return merged;
}

}  // namespace mbb
