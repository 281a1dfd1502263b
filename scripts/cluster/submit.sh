#!/usr/bin/env bash
# Submits one experiment as a Slurm job array of N shards and, in the same go, a merge job
# that runs when every shard has ended well (afterok). Paths are made absolute here, at submit
# time, so the jobs do not depend on the submit directory; task logs go to OUT/logs/.
#
# usage: scripts/cluster/submit.sh EXPERIMENT.json OUT N [SWEEP OPTIONS...]
#   MBBENCH        the mbbench executable (default: build/harness/mbbench of this checkout)
#   MBBENCH_SETUP  a file each task sources first (site set-up), made absolute here
#   SBATCH_OPTIONS extra sbatch options for both jobs, e.g. "--partition=short --account=me"
# Prints the two job ids. A failed shard is resubmitted alone with
#   sbatch --array=K scripts/cluster/slurm_sweep.sbatch EXPERIMENT.json OUT N
set -euo pipefail
usage="usage: $0 EXPERIMENT.json OUT N [SWEEP OPTIONS...]"
[ $# -ge 3 ] || { echo "$usage" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
experiment=$(realpath -- "$1")
[ -f "$experiment" ] || { echo "$0: experiment '$1' is not a file" >&2; exit 2; }
n=$3
[[ "$n" =~ ^[1-9][0-9]*$ ]] || { echo "$0: N '$n' is not a positive integer" >&2; exit 2; }
mkdir -p "$2/logs"
out=$(realpath -- "$2")
mbbench=$(realpath -- "${MBBENCH:-$here/../../build/harness/mbbench}")
[ -x "$mbbench" ] || { echo "$0: MBBENCH '$mbbench' is not an executable" >&2; exit 2; }
setup=""
if [ -n "${MBBENCH_SETUP:-}" ]; then setup=$(realpath -- "$MBBENCH_SETUP"); fi
shift 3
# shellcheck disable=SC2086
array=$(sbatch --parsable ${SBATCH_OPTIONS:-} --array="0-$((n - 1))" \
  --output="$out/logs/sweep-%A_%a.log" --export="ALL,MBBENCH=$mbbench,MBBENCH_SETUP=$setup" \
  "$here/slurm_sweep.sbatch" "$experiment" "$out" "$n" "$@")
array=${array%%;*}
# shellcheck disable=SC2086
merge=$(sbatch --parsable ${SBATCH_OPTIONS:-} --job-name=mbbench-merge \
  --dependency="afterok:$array" --output="$out/logs/merge-%j.log" \
  --export="ALL,MBBENCH=$mbbench,MBBENCH_SETUP=$setup" \
  --wrap="'$here/merge_shards.sh' '$out'")
merge=${merge%%;*}
echo "array job $array (shards 0-$((n - 1)) of $n), merge job $merge (afterok:$array)"
