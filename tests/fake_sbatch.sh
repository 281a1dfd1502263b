#!/usr/bin/env bash
# A stand-in for Slurm's sbatch for tests of scripts/cluster/submit.sh: records its arguments
# (one line each, in FAKE_SBATCH_LOG) and runs the job at once, here: an array job runs every
# task in order with SLURM_ARRAY_TASK_ID set and the --export variables given; a --wrap job
# runs its command. Prints a job id as `sbatch --parsable` does. Not a scheduler: a
# dependency is only recorded (the jobs run in submission order).
set -euo pipefail
printf '%s\n' "$*" >>"${FAKE_SBATCH_LOG:?}"
array="" wrap="" exports=() script=()
while [ $# -gt 0 ]; do
  case "$1" in
    --array=*) array=${1#--array=} ;;
    --wrap=*) wrap=${1#--wrap=} ;;
    --export=*) IFS=, read -r -a exports <<<"${1#--export=}" ;;
    --*) ;;
    *) script=("$@"); break ;;
  esac
  shift
done
env_args=()
for e in "${exports[@]}"; do [ "$e" = ALL ] || env_args+=("$e"); done
id=$(($(wc -l <"$FAKE_SBATCH_LOG") + 1000))  # 1001, 1002, ...: one per submission
if [ -n "$wrap" ]; then
  bash -c "$wrap" >/dev/null 2>&1 || exit 1
elif [ -n "$array" ]; then
  for ((k = ${array%-*}; k <= ${array#*-}; ++k)); do
    env "${env_args[@]}" SLURM_ARRAY_TASK_ID=$k bash "${script[@]}" >/dev/null 2>&1 || exit 1
  done
fi
echo "$id"
