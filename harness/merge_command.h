// `mbbench merge OUT`: the shards of a sharded sweep (OUT/shard-K/, each with its manifest,
// shard_manifest.h) into OUT itself, one result per run of the experiment and one index
// (docs/cluster.md "Merging"). Everything is checked before anything moves: every shard K of
// N against the experiment, every run it owes found with its configuration hash, all results
// from one build. A missing or unfinished run is named with the command that reruns it
// (exit 1); shards that disagree (N, experiment, build) are refused (exit 2). `--partial`
// merges what is there and lists the rest in the merged index. A merged directory stays
// resumable: a shard rerun into it skips the runs merged already, and merging again is
// idempotent.
#pragma once

#include <string>

namespace CLI {
class App;
}

namespace mbb {

struct MergeOptions {
  std::string out;
  bool partial = false;
};

/// Adds the `merge` subcommand with its options bound to `o`.
CLI::App* AddMergeCommand(CLI::App& app, MergeOptions& o);

/// Exit 0 merged (or nothing to do; with --partial also when runs are missing), 1 runs
/// missing or unfinished, or a shard still being written (nothing moved), 2 bad input:
/// OUT is no directory or has no shards, shards disagree on N, the experiment or the build.
int CmdMerge(const MergeOptions& o);

}  // namespace mbb
