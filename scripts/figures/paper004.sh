#!/usr/bin/env bash
# Paper 004 (recursive formalism with zero-mass bodies; docs/reproduction.md 004):
#   Fig 2     IDA steps (rtol = atol = 1e-6) against m1/m2 = 1e-1 ... 1e-6 on the full small
#             mass oscillator (eq 5; `ida` on the model-layer DAE and `recursive` in joint
#             coordinates) and the flat count of `recursive-zero-mass` on the m1 = 0 model (6);
#   distance  max_t |p2(m1) - p2(0)| / m1 for m1 = 1e-2, 1e-3, 1e-4 (rtol = atol = 1e-10,
#             cubic Hermite interpolation of the series onto 1000 times);
#   O(N)      time per right-hand-side evaluation against N on pendulum_chain (a quick run of
#             bench/recursive_rhs_bench, seconds) and the fitted exponent (scaling_fit.json).
# Writes $OUT/details.md (tables with the reference numbers beside ours), CSVs, and PNGs if
# gnuplot is installed; `mbbench figures 004` then writes the page (index.html, README.md)
# with computed verdicts from scripts/figures/pages/004.json (scripts/figures/page.py).
# Usage: scripts/figures/paper004.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN="${MBBENCH:-${1:-build}/harness/mbbench}"
[ -x "$BIN" ] || { echo "build first: $BIN not found" >&2; exit 2; }
OUT="${MBBENCH_FIGURES_OUT:-results/figures}/004"
mkdir -p "$OUT"
WORK="$OUT/runs"

run() {  # run NAME ARGS...: one run (result JSON and series) into $WORK/NAME/
  local name=$1; shift
  "$BIN" run "$@" --series --repeats 0 --out "$WORK/$name" >/dev/null 2>&1 || true
}
steps() {  # steps NAME: accepted steps of the run (or its status if not ok)
  python3 - "$WORK/$1" <<'PY'
import glob, json, sys
f = [x for x in glob.glob(sys.argv[1] + "/*.json") if not x.endswith("index.json")][0]
d = json.load(open(f))
print(d["metrics"]["steps"] if d["status"] == "ok" else d["status"])
PY
}

SMO="-p small_mass_oscillator"
TOL="--set rtol=1e-6 --set atol=1e-6"
RATIOS="1e-1 1e-2 1e-3 1e-4 1e-5 1e-6"
for r in $RATIOS; do
  run ida_m1_$r $SMO --param m1=$r -m ida $TOL
  run recursive_m1_$r $SMO --param m1=$r -m recursive $TOL
done
run zero_mass_m1_0 $SMO --param m1=0 -m recursive-zero-mass $TOL

# Independent variable-step BDF (rtol = atol = 1e-6) on the same data (PROBLEMS data of the
# suite: m2 = 1, c = 1, d = 1e-5, F = 1 - cos t): 240 ... 26844 steps, 91 for m1 = 0.
declare -A INDEPENDENT=([1e-1]=240 [1e-2]=589 [1e-3]=1519 [1e-4]=3174 [1e-5]=8934 [1e-6]=26844)
{
  echo "m1_over_m2,ida_steps,recursive_steps,independent_bdf_steps"
  for r in $RATIOS; do
    echo "$r,$(steps ida_m1_$r),$(steps recursive_m1_$r),${INDEPENDENT[$r]}"
  done
  echo "0,,$(steps zero_mass_m1_0),91"
} > "$OUT/fig2_steps.csv"

# O(m1) distance of the smooth solutions (p2), joint coordinates: p2 = q1 + q2, p2' = v1 + v2.
for m in 1e-2 1e-3 1e-4; do
  run dist_m1_$m $SMO --param m1=$m -m recursive --set rtol=1e-10 --set atol=1e-10
done
run dist_m1_0 $SMO --param m1=0 -m recursive-zero-mass --set rtol=1e-10 --set atol=1e-10
python3 - "$WORK" "$OUT/distance.csv" <<'PY'
import csv, glob, sys
work, out = sys.argv[1], sys.argv[2]
def series(name):
    f = glob.glob(f"{work}/{name}/*.series.csv")[0]
    rows = list(csv.DictReader(open(f)))
    return [(float(r["t"]), float(r["q0"]) + float(r["q1"]), float(r["v0"]) + float(r["v1"])) for r in rows]
def hermite(s, t):
    lo, hi = 0, len(s) - 1
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if s[mid][0] <= t: lo = mid
        else: hi = mid
    (t0, y0, d0), (t1, y1, d1) = s[lo], s[hi]
    h = t1 - t0
    u = (t - t0) / h
    return ((2*u**3 - 3*u**2 + 1) * y0 + (u**3 - 2*u**2 + u) * h * d0
            + (-2*u**3 + 3*u**2) * y1 + (u**3 - u**2) * h * d1)
zero = series("dist_m1_0")
with open(out, "w") as f:
    f.write("m1,max_abs_p2_distance,distance_over_m1\n")
    for m in ["1e-2", "1e-3", "1e-4"]:
        s = series(f"dist_m1_{m}")
        d = max(abs(hermite(s, 0.01 * k) - hermite(zero, 0.01 * k)) for k in range(1, 1001))
        f.write(f"{m},{d:.6g},{d / float(m):.4f}\n")
PY

# O(N): time per right-hand-side evaluation on pendulum_chain (every 3rd bar massless) against
# N, a quick form of scripts/bench/recursive_scaling.sh (N = 100 ... 1e4, 5 repeats of 0.05 s,
# minima; joint-dense up to N = 300 for contrast): a few seconds. MBBENCH_SCALING_TABLE names
# the full benchmark's table instead. scaling_fit.json: the least-squares exponent p of
# time ~ N^p over N >= 100 per method, which the page judges.
SCALING="${MBBENCH_SCALING_TABLE:-$OUT/scaling.csv}"
BENCH="$(dirname "$BIN")/../bench/recursive_rhs_bench"
if [ -z "${MBBENCH_SCALING_TABLE:-}" ] && [ -x "$BENCH" ]; then
  {
    echo "method,N,massless_every,evaluations_per_repeat,min_s,median_s"
    for m in recursive recursive-zero-mass; do
      for n in 100 300 1000 3000 10000; do "$BENCH" $m $n 3 5 0.05; done
    done
    for n in 10 30 100 300; do "$BENCH" joint-dense $n 3 5 0.05; done
  } > "$SCALING" || true
fi
[ -f "$SCALING" ] && python3 - "$SCALING" "$OUT/scaling_fit.json" <<'PY'
import csv, json, math, sys
rows = list(csv.DictReader(open(sys.argv[1])))
fits = {}
for m in ["recursive", "recursive-zero-mass", "joint-dense"]:
    pts = [(int(r["N"]), float(r["min_s"])) for r in rows if r["method"] == m]
    big = [q for q in pts if q[0] >= 100]
    use = big if len(big) >= 2 else pts
    if len(use) < 2:
        continue
    xs = [math.log(n) for n, _ in use]
    ys = [math.log(t) for _, t in use]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    p = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
    n_max, t_max = max(use)
    fits[m] = {"exponent": p, "n_min": min(use)[0], "n_max": n_max, "points": len(use),
               "seconds_per_body_at_n_max": t_max / n_max}
json.dump(fits, open(sys.argv[2], "w"), indent=1)
print("paper004.sh: O(N) fit " + ", ".join("%s p = %.3f" % (m, f["exponent"]) for m, f in fits.items()))
PY
{
  echo "# Paper 004: zero-mass formalism (generated by scripts/figures/paper004.sh)"
  echo
  echo "$(date -u +%F), $(git rev-parse --short HEAD 2>/dev/null || echo unknown). Runs in runs/."
  echo
  echo "## Fig 2: IDA steps against m1/m2 (small_mass_oscillator, rtol = atol = 1e-6, 10 s)"
  echo
  echo "Data: m2 = 1, c1 = c2 = 1, d1 = d2 = 1e-5, F(t) = 1 - cos t, at rest (the paper gives"
  echo "none; its Fig 2 (DASSL, tolerances 1e-6) shows the rise without numbers). Reference:"
  echo "an independent variable-step BDF on the same data. \`ida\`: model-layer DAE (planar,"
  echo "GGL); \`recursive\`: joint coordinates, IDA on q'' = a(q, q'); m1 = 0:"
  echo "\`recursive-zero-mass\`, the mixed equations (25)/(26) through IDA."
  echo
  echo "| m1/m2 | ida steps | recursive steps | independent BDF | ratio ida / independent |"
  echo "|---|---|---|---|---|"
  tail -n +2 "$OUT/fig2_steps.csv" | while IFS=, read -r r a b c; do
    ratio=$( [ -n "$a" ] && python3 -c "print(f'{$a/$c:.2f}')" || echo "-")
    echo "| $r | ${a:--} | $b | $c | $ratio |"
  done
  echo
  echo "## O(m1) distance to the m1 = 0 solution (p2, max over 0.01 ... 10 s)"
  echo
  echo "Reference: about 1.25 m1 (independent solution; tests/test_recursive.cc checks 1.25 +- 10 %"
  echo "against exp(A t))."
  echo
  echo "| m1 | max abs distance | distance / m1 | reference / m1 |"
  echo "|---|---|---|---|"
  tail -n +2 "$OUT/distance.csv" | while IFS=, read -r m d q; do echo "| $m | $d | $q | 1.25 |"; done
  echo
  echo "## Scaling (time per right-hand-side evaluation, pendulum_chain)"
  echo
  if [ -f "$SCALING" ]; then
    echo "From $SCALING (this recipe's quick run of recursive_rhs_bench, or the full"
    echo "scripts/bench/recursive_scaling.sh through MBBENCH_SCALING_TABLE; docs/performance.md"
    echo "has the full benchmark on its machine). Least-squares exponent p of time ~ N^p"
    echo "(N >= 100): $(python3 -c "import json; print(', '.join('%s %.3f' % (m, f['exponent']) for m, f in json.load(open('$OUT/scaling_fit.json')).items()))" 2>/dev/null || echo "not fitted")."
    echo
    echo '```'
    cat "$SCALING"
    echo '```'
  else
    echo "Not measured: $BENCH is not built (cmake --build build --target recursive_rhs_bench)."
  fi
} > "$OUT/details.md"

if command -v gnuplot >/dev/null; then
  zero=$(awk -F, '$1 == "0" {print $3}' "$OUT/fig2_steps.csv")
  zero_ind=$(awk -F, '$1 == "0" {print $4}' "$OUT/fig2_steps.csv")
  osc() { ls "$WORK/$1"/*.series.csv 2>/dev/null | head -1; }
  gnuplot <<GP || true
set terminal pngcairo noenhanced size 1300,520 font ",11"
set datafile separator ","
set output "$OUT/fig2_steps.png"
set multiplot layout 1,2 title "Paper 004 Fig 2: two coupled oscillators, IDA rtol = atol = 1e-6, 10 s"
set title "oscillations: position p1 of the small mass"
set xlabel "t [s]"; set ylabel "p1 [m]"; set key top left; set grid
plot "$(osc recursive_m1_1e-1)" every ::1 using 1:(column("p1")) with lines title "m1/m2 = 1e-1", \
     "$(osc recursive_m1_1e-3)" every ::1 using 1:(column("p1")) with lines title "m1/m2 = 1e-3", \
     "$(osc zero_mass_m1_0)" every ::1 using 1:(column("p1")) with lines lw 2 title "m1 = 0 (eq 6)"
set title "number of time steps"
set logscale xy
set xlabel "m1/m2"; set ylabel "accepted steps"
set format x "%.0e"; set format y "%g"
set xrange [5e-7:0.2]; set yrange [50:50000]
set key top right
plot "$OUT/fig2_steps.csv" every ::1::6 using 1:2 with linespoints pt 7 title "ida (planar DAE)", \
     "" every ::1::6 using 1:3 with linespoints pt 5 title "recursive (joint coordinates)", \
     "" every ::1::6 using 1:4 with points pt 6 ps 1.5 title "independent BDF (our check)", \
     ${zero:-1} with lines lw 2 dt 2 lc rgb "#d08000" title "m1 = 0: recursive-zero-mass (${zero:-?} steps)", \
     ${zero_ind:-1} with lines lw 1.5 dt 3 lc rgb "#202020" title "m1 = 0: independent BDF (${zero_ind:-?} steps)"
unset multiplot
GP
  if [ -f "$SCALING" ]; then
    for m in recursive recursive-zero-mass joint-dense; do
      grep "^$m," "$SCALING" > "$OUT/scaling_$m.csv" || true
    done
    fitted() {  # fitted METHOD: "p = X" of scaling_fit.json
      python3 -c "import json,sys; print('p = %.2f' % json.load(open(sys.argv[1]))[sys.argv[2]]['exponent'])" \
        "$OUT/scaling_fit.json" "$1" 2>/dev/null || echo "p not fitted"
    }
    gnuplot <<GP || true
set terminal pngcairo noenhanced size 900,550
set datafile separator ","
set output "$OUT/scaling.png"
set title "Paper 004, O(N): time per evaluation, pendulum_chain (time ~ N^p, least squares over N >= 100)"
set logscale xy; set grid
set format x "%g"; set format y "%.0e"
set xlabel "N (pendulum_chain bars)"; set ylabel "time per evaluation [s]"; set key top left
plot "$OUT/scaling_recursive.csv" using 2:5 with linespoints title "recursive, $(fitted recursive)", \
     "$OUT/scaling_recursive-zero-mass.csv" using 2:5 with linespoints title "recursive-zero-mass, $(fitted recursive-zero-mass)", \
     "$OUT/scaling_joint-dense.csv" using 2:5 with linespoints title "joint-dense, $(fitted joint-dense)"
GP
  fi
fi
# index.json: every run of this recipe.
python3 scripts/figures/index_runs.py "$OUT" "figures 004"
echo "wrote $OUT/details.md"
