#!/usr/bin/env bash
# Runs one experiment as N deterministic shards with GNU parallel (Debian's `parallel`):
# shard K of N goes to OUT/shard-K/. Locally by default; add GNU parallel's --sshlogin
# options (PARALLEL_OPTIONS) to spread the shards over machines that share OUT.
# Merge with scripts/cluster/merge_shards.sh OUT (or read them directly: mbbench report OUT).
#
# usage: scripts/cluster/parallel_sweep.sh EXPERIMENT.json OUT N [JOBS]
#   MBBENCH  the mbbench executable (default build/harness/mbbench)
# Exit status: 0 when every shard's sweep exited 0, else 1.
set -euo pipefail
if [ $# -lt 3 ]; then
  echo "usage: $0 EXPERIMENT.json OUT N [JOBS]" >&2
  exit 2
fi
experiment=$1 out=$2 shards=$3 jobs=${4:-$3}
mbbench=${MBBENCH:-build/harness/mbbench}
# shellcheck disable=SC2086
seq 0 $((shards - 1)) |
  parallel --will-cite ${PARALLEL_OPTIONS:-} -j "$jobs" \
    "$mbbench" sweep "$experiment" --shard {}/"$shards" --out "$out" || exit 1
