#!/usr/bin/env bash
# Regenerates the table of docs/performance.md, "Implicit step cost": time per step
# of every implicit method on double_four_bar and bricard at h = 0.01 over 2 s (200 steps),
# as a user gets it, with `derivatives=reuse` where the method has it and tangent-newmark
# with `convergence=contraction`, beside the
# yardstick measured in the same run: three dense LU solves of the run's (n + m) x (n + m)
# system (bench/dense_solve_bench.cc). The bounds listed with them are three times the
# estimate of a dense (n + m) solve per Newton iteration, 3 iterations, at 10 GFLOP/s
# (docs/performance.md, "Implicit step cost"): 15 us and 210 us for the 15- and
# 35-coordinate formulations.
# Each configuration: INVOCATIONS invocations of `mbbench run --repeats REPEATS`, the
# minimum and the median of the per-invocation minima per step.
# usage: [REPEATS=5] [INVOCATIONS=3] scripts/bench/step_cost.sh [BUILD_DIR] > table.md
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD="${1:-build}"
BIN="$BUILD/harness/mbbench"
BENCH="$BUILD/bench/dense_solve_bench"
REPEATS="${REPEATS:-5}"
INVOCATIONS="${INVOCATIONS:-3}"
for exe in "$BIN" "$BENCH"; do
  [ -x "$exe" ] || { echo "step_cost.sh: $exe not found; build first" >&2; exit 2; }
done
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
CONFIGS=(
  "tangent-newmark|"
  "tangent-newmark|derivatives=reuse"
  "tangent-newmark|convergence=contraction"
  "newmark-index3|"
  "newmark-index3|derivatives=reuse"
  "null-space-em|"
  "constrained-em|"
)
k=0
for problem in double_four_bar bricard; do
  for config in "${CONFIGS[@]}"; do
    method=${config%%|*}
    setting=${config#*|}
    sets=(--set h=0.01)
    [ -n "$setting" ] && sets+=(--set "$setting")
    for i in $(seq "$INVOCATIONS"); do
      k=$((k + 1))
      "$BIN" run -p "$problem" -m "$method" "${sets[@]}" --t-end 2 --repeats "$REPEATS" \
        --out "$TMP/run$k" >/dev/null 2>&1 || true
      echo "$problem|$method|$setting|$TMP/run$k" >>"$TMP/runs"
    done
  done
done
# The yardstick at every size the runs have (n + m of the formulation each method ran in).
python3 - "$TMP/runs" >"$TMP/sizes" <<'PY'
import glob, json, sys
sizes = set()
for line in open(sys.argv[1]):
    for f in glob.glob(line.strip().split("|")[3] + "/*.json"):
        d = json.load(open(f))
        if "problem" in d and "n" in d.get("problem", {}):
            sizes.add(d["problem"]["n"] + d["problem"]["m"])
print(" ".join(str(s) for s in sorted(sizes)))
PY
for size in $(cat "$TMP/sizes"); do "$BENCH" "$size" 3 7 0.2 >>"$TMP/dense"; done
python3 - "$TMP/runs" "$TMP/dense" "$(uname -srm)" "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)" <<'PY'
import glob, json, statistics, sys
dense = {}
for line in open(sys.argv[2]):
    size, solves, rounds, tmin, tmed, gflops = line.strip().split(",")
    dense[int(size)] = (float(tmin), float(gflops))
bound = {"double_four_bar": 15e-6, "bricard": 210e-6}  # 3 x the dense-solve estimate
runs = {}
for line in open(sys.argv[1]):
    problem, method, setting, path = line.strip().split("|")
    key = (problem, method, setting)
    for f in glob.glob(path + "/*.json"):
        d = json.load(open(f))
        if "metrics" not in d or "problem" not in d:
            continue
        m = d["metrics"]
        runs.setdefault(key, []).append(dict(
            status=d["status"], n=d["problem"]["n"], m=d["problem"]["m"],
            per_step=m["wall_time_s"]["min"] / m["steps"] if m.get("steps") else None,
            passes=m.get("newton_iterations"), jac=m.get("jacobian_evals")))
print(f"Machine: {sys.argv[4].strip()}, {sys.argv[3]}. h = 0.01 over 2 s (200 steps).")
print()
print("| problem | method | setting | n + m | passes | per step, min (median) | bound (3 x estimate) | / bound "
      "| 3 dense LU of n + m (GFLOP/s) | / 3 LU |")
print("|---|---|---|---|---|---|---|---|---|---|")
for (problem, method, setting), rs in runs.items():
    ok = [r for r in rs if r["status"] == "ok" and r["per_step"]]
    if not ok:
        print(f"| {problem} | {method} | {setting or 'default'} | | | {rs[0]['status'] if rs else 'no result'} | | | | |")
        continue
    t = [r["per_step"] for r in ok]
    size = ok[0]["n"] + ok[0]["m"]
    lu, gflops = dense.get(size, (float("nan"), float("nan")))
    print(f"| {problem} | {method} | {setting or 'default'} | {ok[0]['n']} + {ok[0]['m']} | "
          f"{ok[0]['passes']} | {min(t) * 1e6:.1f} us ({statistics.median(t) * 1e6:.1f}) | "
          f"{bound[problem] * 1e6:.0f} us | {min(t) / bound[problem]:.2f} | "
          f"{lu * 1e6:.1f} us ({gflops:.1f}) | {min(t) / lu:.2f} |")
PY
