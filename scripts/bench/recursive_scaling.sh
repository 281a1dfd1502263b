#!/usr/bin/env bash
# Benchmark (not a test): time per right-hand-side evaluation of the paper 004 tree methods
# on pendulum_chain (every 3rd bar massless) against the number of bars N, and the fitted
# exponent p of time ~ N^p (least squares on log-log, and between successive N).
#   recursive            q'' by the classical recursion (inverses)
#   recursive-zero-mass  the residual (25)/(26) with pseudo-inverses (v' = 0)
#   joint-dense          q'' by M(q) q'' = Q, M assembled and factorised densely
# Each point: 7 repeats of as many evaluations as last 0.2 s; min and median reported, also
# per body (ns), with the resident memory per body (B) that building the problem, the
# method's evaluator and the whole process hold (the goal: flat per-body cost from N = 1e2
# to 1e5, under 2 KB per body at 1e5, docs/performance.md; the summary on stderr gives the spread).
# joint-dense stops after the first N whose evaluation takes over DENSE_LIMIT s (default 1;
# an N-times larger N would take ~N^3 longer). Building the problem (about 1.5 s at
# N = 1e5) is not timed.
# Usage: scripts/bench/recursive_scaling.sh [BUILD_DIR] > scaling.csv   (CSV on stdout,
# the fit on stderr). Environment: NS (default "10 100 1000 10000 100000"), DENSE_NS.
set -euo pipefail
cd "$(dirname "$0")/../.."
BENCH="${1:-build}/bench/recursive_rhs_bench"
[ -x "$BENCH" ] || { echo "build first: cmake --build build --target recursive_rhs_bench" >&2; exit 2; }
NS=${NS:-"10 100 1000 10000 100000"}
DENSE_NS=${DENSE_NS:-"10 100 300 1000 2000"}
DENSE_LIMIT=${DENSE_LIMIT:-1}
TMP=$(mktemp)
trap 'rm -f "$TMP"' EXIT
echo "method,N,massless_every,evaluations_per_repeat,min_s,median_s,ns_per_body_min,\
ns_per_body_median,rss_problem_B_per_body,rss_method_B_per_body,rss_total_B_per_body" | tee "$TMP"
for m in recursive recursive-zero-mass; do
  for n in $NS; do "$BENCH" $m "$n" 3 7 0.2 | tee -a "$TMP"; done
done
for n in $DENSE_NS; do
  line=$("$BENCH" joint-dense "$n" 3 3 0.2)
  echo "$line" | tee -a "$TMP"
  awk -F, -v lim="$DENSE_LIMIT" '{exit !($5 > lim)}' <<<"$line" && break
done
python3 - "$TMP" >&2 <<'PY'
import csv, math, sys
rows = list(csv.DictReader(open(sys.argv[1])))
for m in ["recursive", "recursive-zero-mass", "joint-dense"]:
    pts = [(int(r["N"]), float(r["min_s"])) for r in rows if r["method"] == m]
    if len(pts) < 2: continue
    def fit(p):
        xs = [math.log(n) for n, _ in p]; ys = [math.log(t) for _, t in p]
        mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
        return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
    big = [q for q in pts if q[0] >= 100]
    local = ", ".join(f"{a[0]}->{b[0]}: {math.log(b[1]/a[1])/math.log(b[0]/a[0]):.2f}" for a, b in zip(pts, pts[1:]))
    print(f"{m}: p = {fit(big if len(big) >= 2 else pts):.3f} (N >= 100, least squares); successive: {local}")
    per = [(int(r["N"]), float(r["ns_per_body_min"]), float(r["ns_per_body_median"]),
            float(r["rss_method_B_per_body"]), float(r["rss_total_B_per_body"]))
           for r in rows if r["method"] == m and int(r["N"]) >= 100]
    if per:
        mins = [p[1] for p in per]
        print(f"  per body, N >= 100 (min / median ns): "
              + ", ".join(f"{n}: {a:.0f} / {b:.0f}" for n, a, b, _, _ in per)
              + f"; largest / smallest min {max(mins) / min(mins):.2f}")
        n, _, _, method_b, total_b = per[-1]
        print(f"  resident per body at N = {n}: method {method_b:.0f} B, process {total_b:.0f} B")
PY
