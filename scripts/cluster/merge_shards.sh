#!/usr/bin/env bash
# Merges the shard directories a sharded sweep wrote (OUT/shard-K/) into OUT itself: a thin
# wrapper of `mbbench merge OUT [--partial]` (docs/cluster.md, "Merging"), kept for the
# recipes and the Slurm merge job that call it.
#
# Everything is checked before anything moves: every shard K of N against the experiment
# (each shard's manifest names the runs it owes), every run found with its configuration,
# all results from one build. Exit 1 naming the missing or unfinished runs with the command
# that reruns them (nothing moved); exit 2 for shards that disagree (N, experiment, build) or
# an OUT without shards. A directory merged already is left as it is, exit 0.
#
# usage: scripts/cluster/merge_shards.sh OUT [--partial]
#   MBBENCH  the mbbench executable (default: build/harness/mbbench of this checkout)
#   MBBENCH_SETUP  a file sourced first if set (site set-up, as in slurm_sweep.sbatch)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
[ $# -ge 1 ] || { echo "usage: $0 OUT [--partial]" >&2; exit 2; }
if [ -n "${MBBENCH_SETUP:-}" ]; then
  # shellcheck disable=SC1090
  source "$MBBENCH_SETUP"
fi
exec "${MBBENCH:-$here/../../build/harness/mbbench}" merge "$@"
