// `mbbench merge OUT` (merge_command.h, docs/cluster.md "Merging").
#include "harness/merge_command.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <set>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "harness/file_names.h"
#include "harness/json_file.h"
#include "harness/json_io.h"
#include "harness/result_summary.h"
#include "harness/shard_manifest.h"

namespace mbb {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr int kExitMerged = 0;
constexpr int kExitIncomplete = 1;

// The plan a merge checks against: the experiment, N, what a rerun repeats, and the runs
// every shard owes.
struct Plan {
  std::string experiment, name, hash;
  int shards = 0;
  std::vector<std::string> options;
  std::map<int, ShardManifest> manifests;  // K -> the manifest in OUT/shard-K
  std::vector<int> shard_dirs;             // K of every OUT/shard-K directory
  std::map<int, std::vector<OwedRun>> owed;
  bool merged_before = false;  // OUT/index.json is a merge's (has "merge")
};

// Where one owed run's result is.
struct Located {
  OwedRun run;
  int shard = 0;
  StoredRun stored;
  fs::path source;          // empty: the run is missing or unfinished
  bool from_shard = false;  // in OUT/shard-K: to be moved into OUT
  bool collapses = false;   // OUT holds the same run (same configuration) too: replaced
  std::string why;          // for a missing run: a stored result of another configuration
};

// Exclusive locks on the .mbbench.lock files of OUT and of every shard directory: a sweep
// writing into one of them holds its lock (cli.cc), so a merge never moves from under it.
class MergeLocks {
 public:
  // False (and nothing held) when `dir` is being written by a running mbbench.
  bool Take(const fs::path& dir) {
    const std::string path = (dir / ".mbbench.lock").string();
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) throw InputError("merge: cannot create " + path);
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      ::close(fd);
      return false;
    }
    fds_.push_back(fd);
    return true;
  }
  ~MergeLocks() {
    for (int fd : fds_) ::close(fd);
  }

 private:
  std::vector<int> fds_;
};

std::string ShardPath(const std::string& out, int shard) {
  return out + "/" + ShardDirectoryName(shard);
}

// The manifests of OUT/shard-*/, and the merge section of OUT/index.json if there is one.
void ReadShards(const std::string& out, Plan& plan, std::optional<json>& merge_section) {
  for (const auto& e : fs::directory_iterator(out)) {
    const int k = ShardOfDirectoryName(e.path().filename().string());
    if (k < 0 || !e.is_directory()) continue;
    plan.shard_dirs.push_back(k);
    const fs::path manifest = e.path() / kShardManifestName;
    if (fs::exists(manifest)) {
      plan.manifests[k] = ReadShardManifest(manifest.string());
      if (plan.manifests[k].shard != k)
        throw InputError(manifest.string() + ": names shard " +
                         std::to_string(plan.manifests[k].shard) + ", not " + std::to_string(k));
    }
  }
  std::sort(plan.shard_dirs.begin(), plan.shard_dirs.end());
  const fs::path index = fs::path(out) / "index.json";
  if (!fs::exists(index)) return;
  const json j = ReadJsonFile(index.string());
  if (j.is_object() && j.contains("merge") && j["merge"].is_object()) merge_section = j["merge"];
}

// N, the experiment and its hash: agreed by every manifest, else from an earlier merge.
void DecidePlan(const std::string& out, Plan& plan, const std::optional<json>& merge_section) {
  std::map<std::string, std::vector<int>> by_n_and_hash;
  for (const auto& [k, m] : plan.manifests)
    by_n_and_hash["N = " + std::to_string(m.shards) + ", experiment " + m.experiment + " (hash " +
                  m.experiment_hash + ")"]
        .push_back(k);
  if (by_n_and_hash.size() > 1) {
    std::string what;
    for (const auto& [key, shards] : by_n_and_hash) {
      what += "\n  " + key + ": shards";
      for (int k : shards) what += " " + std::to_string(k);
    }
    throw InputError("merge: the shards in " + out +
                     " are of different sweeps (rerun the odd ones, or merge them apart):" + what);
  }
  if (!plan.manifests.empty()) {
    const ShardManifest& m = plan.manifests.begin()->second;
    plan.experiment = m.experiment;
    plan.name = m.experiment_name;
    plan.hash = m.experiment_hash;
    plan.shards = m.shards;
    plan.options = m.options;
  } else if (merge_section) {
    const JsonDocument d(*merge_section, out + "/index.json: merge");
    plan.experiment = d.String("experiment");
    plan.name = d.OptionalString("experiment_name");
    plan.hash = d.String("experiment_hash");
    plan.shards = static_cast<int>(d.Whole("shards"));
    if (d.Find("options") != nullptr)
      for (const auto& o : d.Array("options"))
        if (o.is_string()) plan.options.push_back(o.get<std::string>());
  }
  for (int k : plan.shard_dirs)
    if (plan.shards > 0 && k >= plan.shards)
      throw InputError("merge: " + ShardPath(out, k) + " is not a shard of N = " +
                       std::to_string(plan.shards) + " (the other shards' N)");
}

// The runs every shard owes: from its manifest, or from the experiment for a shard without one
// (never started, killed before its manifest, or merged and removed by an earlier merge).
void CollectOwedRuns(const std::string& out, Plan& plan) {
  std::optional<SweepFile> sweep;
  std::string unreadable;
  try {
    sweep = ReadSweepFile(plan.experiment, 100'000'000);
  } catch (const InputError& e) {
    unreadable = e.what();
  }
  if (sweep) {
    const std::string now = ExperimentHash(plan.experiment, *sweep);
    if (now != plan.hash)
      throw InputError("merge: " + plan.experiment + " has changed since the shards in " + out +
                       " ran (experiment hash " + plan.hash + ", now " + now +
                       "): rerun every shard (each keeps its runs whose configuration is "
                       "unchanged), then merge");
    if (plan.name.empty()) plan.name = sweep->name;
  }
  for (int k = 0; k < plan.shards; ++k) {
    const auto m = plan.manifests.find(k);
    if (m != plan.manifests.end()) {
      plan.owed[k] = m->second.runs;
    } else if (sweep) {
      plan.owed[k] = OwedRunsOf(*sweep, k, plan.shards);
    } else {
      throw InputError("merge: shard " + std::to_string(k) + " of " + std::to_string(plan.shards) +
                       " has no manifest in " + ShardPath(out, k) +
                       " and the experiment cannot be read to know its runs: " + unreadable);
    }
  }
  if (!sweep)
    std::fprintf(stderr, "merge: note: %s; the shards' manifests are checked without it\n",
                 unreadable.c_str());
}

// Finds each owed run's result: in OUT/shard-K (a shard's copy is the newer one) or in OUT.
std::vector<Located> LocateRuns(const std::string& out, const Plan& plan) {
  std::vector<Located> located;
  for (const auto& [k, runs] : plan.owed)
    for (const OwedRun& run : runs) {
      Located l;
      l.run = run;
      l.shard = k;
      const fs::path in_shard = fs::path(ShardPath(out, k)) / run.file;
      const fs::path in_out = fs::path(out) / run.file;
      const StoredRun a = ReadStoredRun(in_shard.string());
      const StoredRun b = ReadStoredRun(in_out.string());
      const bool a_fits = a.readable && a.configuration_hash == run.configuration_hash;
      const bool b_fits = b.readable && b.configuration_hash == run.configuration_hash;
      if (a_fits) {
        l.stored = a, l.source = in_shard, l.from_shard = true, l.collapses = b_fits;
      } else if (b_fits) {
        l.stored = b, l.source = in_out;
      } else if (a.readable || b.readable) {
        l.why = "its stored result has another configuration (" +
                (a.readable ? a : b).configuration_hash + ")";
      }
      located.push_back(std::move(l));
    }
  std::sort(located.begin(), located.end(),
            [](const Located& x, const Located& y) { return x.run.position < y.run.position; });
  return located;
}

std::string Plural(size_t n, const char* what) {
  return std::to_string(n) + " " + what + (n == 1 ? "" : "s");
}

// One line per shard with runs missing, their files, and the command that reruns exactly them.
json DescribeMissing(const std::string& out, const Plan& plan, const std::vector<Located>& runs) {
  json missing = json::array();
  std::map<int, std::vector<const Located*>> by_shard;
  for (const Located& l : runs)
    if (l.source.empty()) by_shard[l.shard].push_back(&l);
  for (const auto& [k, list] : by_shard) {
    const bool has_dir =
        std::find(plan.shard_dirs.begin(), plan.shard_dirs.end(), k) != plan.shard_dirs.end();
    const std::string state =
        !has_dir ? "missing (shard " + std::to_string(k) + " of " + std::to_string(plan.shards) +
                       " has no directory)"
        : plan.manifests.count(k) == 0
            ? "unfinished (shard " + std::to_string(k) + " of " + std::to_string(plan.shards) +
                  " has no manifest: killed before it started)"
            : "unfinished (shard " + std::to_string(k) + " of " + std::to_string(plan.shards) + ")";
    std::string files;
    for (size_t i = 0; i < list.size(); ++i) {
      if (i == 8) {
        files += ", ... (" + std::to_string(list.size() - 8) + " more)";
        break;
      }
      files += (i ? ", " : "") + list[i]->run.file +
               (list[i]->why.empty() ? "" : " [" + list[i]->why + "]");
    }
    const std::string rerun = RerunCommand(plan.experiment, k, plan.shards, out, plan.options);
    std::fprintf(stderr, "  %s: %s; owes %s of %s: %s\n    rerun: %s\n", ShardPath(out, k).c_str(),
                 state.c_str(), Plural(list.size(), "run").c_str(),
                 std::to_string(plan.owed.at(k).size()).c_str(), files.c_str(), rerun.c_str());
    for (const Located* l : list)
      missing.push_back({{"file", l->run.file}, {"shard", k}, {"rerun", rerun}});
  }
  return missing;
}

// Refuses results computed by different builds (commit, dirty flag, reference data).
void RequireOneBuild(const std::string& out, const std::vector<Located>& runs) {
  std::map<std::string, std::vector<std::string>> builds;
  for (const Located& l : runs)
    if (!l.source.empty()) builds[l.stored.build].push_back(l.source.string());
  if (builds.size() <= 1) return;
  std::string what;
  for (const auto& [build, files] : builds)
    what += "\n  " + build + ": " + Plural(files.size(), "result") + ", e.g. " + files.front();
  throw InputError("merge: the results in " + out +
                   " come from different builds (rerun the odd shards with --force using one "
                   "build):" +
                   what);
}

// The result files in OUT itself that no run of the experiment owns (an edited experiment's
// old runs): named, left in place.
void NoteStrangers(const std::string& out, const std::vector<Located>& runs) {
  std::set<std::string> owned;
  for (const Located& l : runs) owned.insert(l.run.file);
  size_t strangers = 0;
  for (const auto& e : fs::directory_iterator(out)) {
    const std::string name = e.path().filename().string();
    if (!e.is_regular_file() || e.path().extension() != ".json" || owned.count(name) ||
        !ReadStoredRun(e.path().string()).readable)
      continue;
    if (strangers++ == 0)
      std::fprintf(
          stderr,
          "merge: note: results in %s of no run of the experiment (left in place):", out.c_str());
    std::fprintf(stderr, " %s", name.c_str());
  }
  if (strangers > 0) std::fprintf(stderr, "\n");
}

// Moves the shards' results into OUT (the series file first, so a result in OUT always has
// its series), writes OUT/index.json and removes the shard directories owing nothing more.
void MoveAndIndex(const std::string& out, const Plan& plan, const std::vector<Located>& runs,
                  const json& missing) {
  std::vector<IndexEntry> entries;
  for (const Located& l : runs) {
    if (l.source.empty()) continue;
    if (l.from_shard) {
      if (!l.stored.series.empty() && fs::exists(l.source.parent_path() / l.stored.series))
        fs::rename(l.source.parent_path() / l.stored.series, fs::path(out) / l.stored.series);
      fs::rename(l.source, fs::path(out) / l.run.file);
    }
    IndexEntry e;
    e.file = l.run.file;
    e.problem = l.run.problem;
    e.method = l.run.method;
    e.configuration_hash = l.run.configuration_hash;
    e.status = l.stored.status;
    e.message = l.stored.message;
    AddResultToIndexEntry(out, e);
    entries.push_back(std::move(e));
  }
  json index = json::parse(IndexToJson(plan.name, entries));
  index["merge"] = {{"experiment", plan.experiment},
                    {"experiment_name", plan.name},
                    {"experiment_hash", plan.hash},
                    {"shards", plan.shards},
                    {"options", plan.options},
                    {"partial", !missing.empty()},
                    {"missing", missing}};
  WriteFileAtomically(out + "/index.json", index.dump(2) + "\n");
  std::set<int> owing;
  for (const json& m : missing) owing.insert(m["shard"].get<int>());
  for (int k : plan.shard_dirs)
    if (owing.count(k) == 0) fs::remove_all(ShardPath(out, k));
}

}  // namespace

CLI::App* AddMergeCommand(CLI::App& app, MergeOptions& o) {
  CLI::App* cmd = app.add_subcommand(
      "merge",
      "merge the shards of a sharded sweep (OUT/shard-K/) into OUT, after checking every shard "
      "of N against the experiment (docs/cluster.md)");
  cmd->add_option("out", o.out, "the sweep's --out directory")->required();
  cmd->add_flag("--partial", o.partial,
                "merge the runs that are finished even when some are missing (listed in "
                "OUT/index.json, \"merge\": {\"partial\": true})");
  cmd->footer(
      "Exit codes: 0 merged (or merged already; with --partial also when runs are missing), "
      "1 runs missing or unfinished or a shard still being written (each named with the "
      "command that reruns it; nothing moved), 2 bad input (no shards, shards of different "
      "N, experiments or builds, the experiment changed since).");
  return cmd;
}

int CmdMerge(const MergeOptions& o) {
  RequireDirectory(o.out, "merge:");
  const std::string out = fs::absolute(o.out).lexically_normal().string();
  Plan plan;
  std::optional<json> merge_section;
  ReadShards(out, plan, merge_section);
  const bool partial_before =
      merge_section && merge_section->contains("partial") && (*merge_section)["partial"] == true;
  if (plan.shard_dirs.empty() && !partial_before) {
    if (!fs::exists(out + "/index.json"))
      throw InputError("merge: no shard-* directories and no index.json in " + out);
    std::fprintf(stderr, "merge: %s is merged already (no shard-* directories): nothing to do\n",
                 out.c_str());
    return kExitMerged;
  }
  DecidePlan(out, plan, merge_section);
  if (plan.shards == 0) {
    std::fprintf(stderr,
                 "merge: not merging: no shard in %s wrote its manifest (each was killed "
                 "before it started, or ran an mbbench older than manifests); rerun every "
                 "shard with the same --shard K/N\n",
                 out.c_str());
    return kExitIncomplete;
  }
  MergeLocks locks;
  for (int k : plan.shard_dirs)
    if (!locks.Take(ShardPath(out, k))) {
      std::fprintf(stderr, "merge: not merging: %s is being written by a running mbbench\n",
                   ShardPath(out, k).c_str());
      return kExitIncomplete;
    }
  if (!locks.Take(out)) {
    std::fprintf(stderr, "merge: not merging: %s is being written by a running mbbench\n",
                 out.c_str());
    return kExitIncomplete;
  }
  CollectOwedRuns(out, plan);
  const std::vector<Located> runs = LocateRuns(out, plan);
  RequireOneBuild(out, runs);
  const size_t found = static_cast<size_t>(
      std::count_if(runs.begin(), runs.end(), [](const Located& l) { return !l.source.empty(); }));
  if (found < runs.size())
    std::fprintf(
        stderr, "merge: %s of %zu %s in %s (%s):\n", Plural(runs.size() - found, "run").c_str(),
        runs.size(),
        runs.size() - found == 1 ? "is missing or unfinished" : "are missing or unfinished",
        out.c_str(), o.partial ? "merging the others (--partial)" : "not merging, nothing moved");
  const json missing = DescribeMissing(out, plan, runs);
  if (!missing.empty() && !o.partial) return kExitIncomplete;
  NoteStrangers(out, runs);
  size_t moved = 0, collapsed = 0;
  for (const Located& l : runs) {
    moved += l.from_shard;
    collapsed += l.collapses;
  }
  MoveAndIndex(out, plan, runs, missing);
  std::printf(
      "merged %s of %s (%s) into %s/: %zu moved from shards, %zu merged already, %zu "
      "duplicates collapsed%s\n",
      Plural(found, "run").c_str(), plan.name.c_str(), Plural(plan.shards, "shard").c_str(),
      out.c_str(), moved, found - moved, collapsed,
      missing.empty() ? "" : "; PARTIAL: the missing runs are listed in index.json");
  return kExitMerged;
}

}  // namespace mbb
