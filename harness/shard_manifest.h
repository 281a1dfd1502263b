// The manifest of one shard of a sharded sweep (`mbbench sweep EXP --shard K/N`,
// docs/cluster.md "Manifests"): written atomically to OUT/shard-K/manifest.json before the
// shard runs anything, it names the experiment (its hash), K and N, the build, and every run
// the shard owes with its configuration hash. Which runs are finished is not stored: a run is
// finished when a result with that configuration hash is in OUT/shard-K/ or, after a merge,
// in OUT/. So a shard killed at any point (SIGKILL, a time limit) still says what it owed,
// and `mbbench merge` (merge_command.h) can name exactly the runs to redo.
#pragma once

#include <cstddef>
#include <set>
#include <string>
#include <vector>

#include "harness/sweep_file.h"

namespace mbb {

inline constexpr const char* kShardSchema = "mbbench.shard/1";
inline constexpr const char* kShardManifestName = "manifest.json";

/// One run a shard owes: its position in the experiment, its result file and identity.
struct OwedRun {
  size_t position = 0;
  std::string file;  // NNNN_<subject>_<method>.json
  std::string problem, method;
  std::string configuration_hash;  // ConfigurationHash(ConfigurationKey(...))
};

struct ShardManifest {
  std::string experiment;       // absolute path of the experiment file
  std::string experiment_name;  // its "name"
  std::string experiment_hash;  // ExperimentHash
  int shard = 0, shards = 1;
  /// Options of the sweep that a rerun repeats (--time-limit S, --max-runs N).
  std::vector<std::string> options;
  std::string git_commit, reference_data_hash, started;
  bool git_dirty = false;
  std::vector<OwedRun> runs;
};

/// "shard-K" for K = 0, 1, ...: the name of shard K's directory under OUT.
std::string ShardDirectoryName(int shard);
/// K when `name` is "shard-K" (digits only), else -1.
int ShardOfDirectoryName(const std::string& name);

/// A hash (16 hex digits) of the experiment: its file's bytes and the content of every model
/// file it names, in order. Shards of one experiment agree on it; an edit changes it.
std::string ExperimentHash(const std::string& file, const SweepFile& sweep);

/// The runs of shard K of N (positions i with i mod N == K), each resolved for its
/// configuration hash. InputError naming the run when one cannot be resolved.
std::vector<OwedRun> OwedRunsOf(const SweepFile& sweep, int shard, int shards);

std::string ShardManifestToJson(const ShardManifest& m);
/// Reads a manifest; InputError naming the file and the key when it is not one.
ShardManifest ReadShardManifest(const std::string& path);

/// `path` single-quoted for a POSIX shell when it holds anything but [A-Za-z0-9_./=:+-].
std::string ShellQuoted(const std::string& path);
/// The command that runs shard K of N of `experiment` into `out` again (it keeps what is
/// finished, so it reruns exactly the runs still owed): `MBBENCH sweep EXP --shard K/N
/// --out OUT [options]`, MBBENCH being this executable.
std::string RerunCommand(const std::string& experiment, int shard, int shards,
                         const std::string& out, const std::vector<std::string>& options);

/// What a merge and a resumed shard read of a stored result file.
struct StoredRun {
  bool readable = false;  // a mbbench.result/1 document with a status
  std::string status, configuration_hash, message;
  std::string series;  // its series file ("" for none)
  std::string build;   // "commit C[ (dirty)], reference data H": what computed it
};
StoredRun ReadStoredRun(const std::string& path);

/// What `mbbench sweep --shard K/N` (N > 1) knows before it runs.
struct ShardStart {
  std::string experiment;  // as given
  const SweepFile* sweep = nullptr;
  int shard = 0, shards = 1;
  std::string out;                   // OUT (the shard writes into OUT/shard-K)
  std::vector<std::string> options;  // repeated by a rerun
  bool force = false;
};
/// Writes OUT/shard-K/manifest.json (atomically) and returns the file stems of the shard's
/// runs that are finished in OUT itself (a merged directory: a result there with the same
/// configuration hash), which the shard then does not run again; none with `force`.
std::set<std::string> StartShard(const ShardStart& s);

}  // namespace mbb
