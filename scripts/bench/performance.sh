#!/usr/bin/env bash
# Regenerates the measured tables of docs/performance.md in one run, mbbench's methods side
# by side with the `simbody` peer on the same machine (docs/performance.md, "Speed at equal
# accuracy against Simbody"):
#   1. `mbbench fastest` on bricard, double_four_bar, andrews_squeezer, slider_crank_3d with
#      the criteria below: per method the cheapest passing h / rtol (both for methods with
#      both modes), timed (median and min of REPEATS runs), and the ratio of Simbody's time
#      to each method's; bricard also with samples=interpolate;
#   2. n_four_bar scaling, N = 2 ... 200: time per step of odeint-rk4 (default and sparse
#      constraint solves), newmark-index3 (default and sparse Newton system) and tangent-newmark
#      (median of REPEATS), and the exponent p of a least-squares fit t ~ n^p;
#   3. the main job: `mbbench run --repeats 0` and `mbbench run` (wall and user time).
# Output: $OUT/tables.md (paste into docs/performance.md) and the JSON of every search.
# usage: [REPEATS=5] [SKIP_MAIN=1] [SCALING_ONLY=1] scripts/bench/performance.sh [BUILD_DIR]
#        (default: build; SCALING_ONLY: only part 2, the n_four_bar scaling)
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN="${MBBENCH:-${1:-build}/harness/mbbench}"
OUT="${MBBENCH_BENCH_OUT:-results/bench}"
REPEATS="${REPEATS:-5}"
[ -x "$BIN" ] || { echo "performance.sh: $BIN not found; build first" >&2; exit 2; }
mkdir -p "$OUT"
BIN="$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")"
METHODS=(-m odeint-dopri5 -m odeint-rk4 -m odeint-rkf78 -m tangent-newmark -m newmark-index3 -m ida
  -m simbody)

fastest() {  # fastest PROBLEM CRITERIA...   (SAMPLES=interpolate: into $OUT/interpolate;
             #  FORMULATION=joint-tree: the problem in that formulation, into $OUT/joint-tree)
  local problem=$1 dir="$OUT" extra=()
  shift
  if [ -n "${SAMPLES:-}" ]; then
    dir="$OUT/$SAMPLES"
    extra=(--set "samples=$SAMPLES")
  fi
  if [ -n "${FORMULATION:-}" ]; then
    dir="$OUT/$FORMULATION"
    extra+=(--param "formulation=$FORMULATION")
  fi
  mkdir -p "$dir"
  "$BIN" fastest -p "$problem" "$@" "${METHODS[@]}" "${extra[@]}" --repeats "$REPEATS" \
    --budget 60 --out "$dir" >"$dir/fastest_$problem.txt" 2>"$dir/fastest_$problem.log" || true
}
if [ -z "${SCALING_ONLY:-}" ]; then
# Bricard, energy drift <= 1e-3 J, J4 within 1e-3 m of the reference at its samples.
fastest bricard --criterion energy_drift=1e-3 --criterion output_error=1e-3
# The same with samples=interpolate: the adaptive methods (both sides) step past the
# reference's 0.1 s samples instead of landing on each (docs/fastest.md).
SAMPLES=interpolate fastest bricard --criterion energy_drift=1e-3 --criterion output_error=1e-3
# Double four-bar, energy <= 0.1 J, B0 within 1e-3 m (at every reference sample,
# stricter than at t = 10 s alone).
fastest double_four_bar --criterion energy_drift=0.1 --criterion output_error=1e-3
# Andrews' squeezer to 8 significant digits at t = 0.03 s (the reference's one
# sample): angles of order 1 rad, so an absolute 1e-8.
fastest andrews_squeezer --criterion output_error=1e-8
# slider_crank_3d: energy drift <= 1e-3 J and the outputs within 1e-3 of the reference.
fastest slider_crank_3d --criterion energy_drift=1e-3 --criterion output_error=1e-3
# The linkages in joint coordinates with loop-closure constraints on the cut joints
# (formulation joint-tree, the route Simbody takes): mbbench's methods on the same
# coordinates as the peer. Simbody's own runs do not depend on the formulation.
FORMULATION=joint-tree fastest bricard --criterion energy_drift=1e-3 --criterion output_error=1e-3
FORMULATION=joint-tree fastest double_four_bar --criterion energy_drift=0.1 \
  --criterion output_error=1e-3
FORMULATION=joint-tree fastest slider_crank_3d --criterion energy_drift=1e-3 \
  --criterion output_error=1e-3
fi

# n_four_bar scaling, fixed h = 1e-3 over 0.02 s (20 steps; the per-step cost).
# odeint-rk4 and newmark-index3 as a user gets them (constraint_solves=auto: dense below 60
# coordinates, sparse from there on) and on the sparse route at every size; tangent-newmark.
: >"$OUT/scaling.tsv"
for N in 2 5 10 20 50 100 200; do
  for variant in odeint-rk4 odeint-rk4:sparse newmark-index3 newmark-index3:sparse \
    tangent-newmark; do
    method=${variant%%:*}
    settings=()
    label=$method
    if [ "$variant" != "$method" ]; then
      settings=(--set "constraint_solves=${variant#*:}")
      label="$method constraint_solves=${variant#*:}"
    fi
    dir="$OUT/scaling_${N}_${variant/:/_}"
    "$BIN" run -p n_four_bar --param N=$N -m "$method" "${settings[@]}" --h 1e-3 --t-end 0.02 \
      --repeats "$REPEATS" --out "$dir" >/dev/null 2>&1 || true
    f=$(ls "$dir"/n_four_bar*.json 2>/dev/null | head -1)
    [ -n "$f" ] && echo -e "$N\t$label\t$f" >>"$OUT/scaling.tsv"
  done
done

# The main job (`mbbench run`, the embedded default catalogue).
if [ -z "${SKIP_MAIN:-}" ] && [ -z "${SCALING_ONLY:-}" ]; then
  /usr/bin/time -f "%e %U" -o "$OUT/main_repeats0.time" "$BIN" run --repeats 0 \
    --out "$OUT/main0" >/dev/null 2>&1 || true
  /usr/bin/time -f "%e %U" -o "$OUT/main.time" "$BIN" run --out "$OUT/main" >/dev/null 2>&1 || true
fi

python3 scripts/bench/tables.py "$OUT" >"$OUT/tables.md"
echo "tables: $OUT/tables.md"
