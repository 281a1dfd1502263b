#!/usr/bin/env bash
# Tables II-V, the data of Figs 8-10, 12-14, 16-18, 23-25 and their plots of paper 002 (Betsch & Leyendecker
# 2006, discrete null space method for multibody dynamics) via the mbbench CLI:
# constrained-em (scheme (10), n + m unknowns) and null-space-em (the reduced scheme: the
# explicit S-pair null space for the gyro top, the numerical null space elsewhere) on the
# directors formulation. details.md in the output lists every table and figure with the
# paper's numbers beside ours (docs/methods/energy_momentum.md explains the scaling);
# `mbbench figures 002` then writes the page (index.html, README.md) with computed verdicts
# from scripts/figures/pages/002.json (scripts/figures/page.py).
# Run time: about 30 s on the shared 2 cores.
#
# usage: scripts/figures/paper002.sh [BUILD_DIR]   (default: build)
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN="${MBBENCH:-${1:-build}/harness/mbbench}"
OUT="${MBBENCH_FIGURES_OUT:-results/figures}/002"
mkdir -p "$OUT"
[ -x "$BIN" ] || { echo "paper002.sh: $BIN not found; build first" >&2; exit 2; }

run() {  # run DIR PROBLEM METHOD [extra mbbench args...]
  local dir=$1 problem=$2 method=$3
  shift 3
  mkdir -p "$OUT/$dir"
  "$BIN" run -p "$problem" -m "$method" --repeats 0 --out "$OUT/$dir" "$@" >/dev/null || true
}

# Tables II-V: condition numbers of the iteration matrices (first step; Table V at t = 0.04).
for h in 5e-2 5e-3 5e-4; do
  run "table2/$h" gyro_top constrained-em --h "$h" --t-end "$h"
  run "table2/$h" gyro_top null-space-em --h "$h" --t-end "$h"
done
for h in 1e-2 1e-3 1e-4; do
  run "table3/$h" cylindrical_pair constrained-em --h "$h" --t-end "$h"
  run "table3/$h" cylindrical_pair null-space-em --h "$h" --t-end "$h"
  run "table4/$h" planar_pair constrained-em --h "$h" --t-end "$h"
  run "table4/$h" planar_pair null-space-em --h "$h" --t-end "$h"
  run "table5/$h" six_body_linkage constrained-em --h "$h" --t-end 0.04
  run "table5/$h" six_body_linkage null-space-em --h "$h" --t-end 0.04
done

# Figures: series (CSV: t, q, v, outputs, energy balance) of the runs the paper plots.
for h in 0.05 0.01 0.001; do  # Figs 8, 9 (centre of mass vs analytic), 10 (energy, L)
  run "gyro_top/$h" gyro_top null-space-em --h "$h" --series
done
run cylindrical_pair cylindrical_pair null-space-em --h 0.01 --series  # Figs 12-14
run planar_pair planar_pair null-space-em --h 0.01 --series            # Figs 16, 17
run planar_pair/0.001 planar_pair null-space-em --h 0.001 --series     # Fig 18
run six_body_linkage six_body_linkage null-space-em --h 0.01 --series  # Figs 23-25

# Plots (gnuplot, if installed): Figs 8, 9 (x, z of the gyro top's centre of mass at
# dt = 0.05 and 0.01 with the analytic steady precession), 10 (at dt = 0.05), 13, 17, 23 (the
# energy balance E - E0 - W of each run, which the paper shows as a flat energy line, and the
# components of the angular momentum L about the origin), 14, 18,
# 25 (the pairs' relative coordinates, the six-body linkage's joint angles) and the snapshots
# 12, 16, 24 (snapshots.py: director triads and centres).
col() {  # col CSV NAME: 1-based column of NAME in the CSV header
  head -1 "$1" | tr ',' '\n' | grep -nx "$2" | cut -d: -f1
}
if command -v gnuplot >/dev/null; then
  g05="$OUT/gyro_top/0.05/gyro_top_null-space-em.series.csv"
  g01="$OUT/gyro_top/0.01/gyro_top_null-space-em.series.csv"
  g001="$OUT/gyro_top/0.001/gyro_top_null-space-em.series.csv"
  if [ -f "$g05" ] && [ -f "$g01" ] && [ -f "$g001" ]; then
    # The analytic steady precession the paper draws beside the numerical solution: the
    # centre of mass turns about e3 at omega_p on a circle of radius r at height z0 (r, z0
    # from the run's initial state, omega_p from the problem's parameters).
    read -r r z0 wp <<<"$(python3 - "$g01" "$OUT/gyro_top/0.01/gyro_top_null-space-em.json" <<'PY'
import csv, json, sys
row = next(csv.DictReader(open(sys.argv[1])))
p = json.load(open(sys.argv[2]))["problem"]["parameters"]
print(abs(float(row["cm_y"])), float(row["cm_z"]), float(p.get("omega_p", 10)))
PY
)"
    for pair in "8:0.05:$g05" "9:0.01:$g01"; do
      fig=${pair%%:*} rest=${pair#*:}
      dt=${rest%%:*} csv=${rest#*:}
      x=$(col "$csv" cm_x) z=$(col "$csv" cm_z)
      gnuplot <<GP || true
set terminal pngcairo size 1000,520 noenhanced
set datafile separator ","
set output "$OUT/fig${fig}_gyro_top_dt$dt.png"
set xlabel "t [s]"; set ylabel "centre of mass [m]"; set key outside right; set grid
set format y "%g"; set samples 2000
set title "Paper 002 Fig $fig: gyro top, steady precession, null-space-em dt = $dt s, against the analytic solution"
plot $r*sin($wp*x) with lines lw 3 lc rgb "#b0b0b0" title "x_a (analytic)", \
     "$csv" using 1:$x every ::1 with linespoints pt 7 ps 0.5 lc 1 title "x, dt = $dt", \
     $z0 with lines lw 3 lc rgb "#e0b060" title "z_a (analytic)", \
     "$csv" using 1:$z every ::1 with linespoints pt 7 ps 0.5 lc 2 title "z, dt = $dt"
GP
    done
  fi
  six="$OUT/six_body_linkage/six_body_linkage_null-space-em.series.csv"
  if [ -f "$six" ]; then
    t1=$(col "$six" theta1) t2=$(col "$six" theta2)
    gnuplot <<GP || true
set terminal pngcairo size 800,450 noenhanced
set datafile separator ","
set output "$OUT/fig25_six_body_linkage_joint_angles.png"
set xlabel "t [s]"; set ylabel "joint angle [rad]"
set title "Paper 002 Fig 25: six-body linkage, null-space-em, dt = 0.01 (in the paper's labels)"
plot "$six" using 1:$t2 every ::1 with lines title "paper theta^1 = our theta2 (joint A2)", \
     "$six" using 1:$t1 every ::1 with lines title "paper theta^2 = our theta1 (joint A1)"
GP
  fi
  relative() {  # relative FIG CSV TITLE OUTPUT...: outputs against t
    local fig=$1 csv=$2 title=$3 plot="" name
    shift 3
    [ -f "$csv" ] || return 0
    for name in "$@"; do
      plot+="${plot:+, }\"$csv\" using 1:$(col "$csv" "$name") every ::1 with lines title \"$name\""
    done
    gnuplot <<GP || true
set terminal pngcairo size 800,450 noenhanced
set datafile separator ","
set output "$OUT/fig${fig}_relative_coordinates.png"
set xlabel "t [s]"; set ylabel "relative coordinate [m, rad]"
set title "Paper 002 Fig $fig: $title"
plot $plot
GP
  }
  relative 14 "$OUT/cylindrical_pair/cylindrical_pair_null-space-em.series.csv" \
    "cylindrical pair, null-space-em, dt = 0.01" u2 theta2
  relative 18 "$OUT/planar_pair/0.001/planar_pair_null-space-em.series.csv" \
    "planar pair, null-space-em, dt = 0.001" u1 u2 theta2
  snap() {  # snap FIG CSV TITLE SCALE TIMES...
    local fig=$1 csv=$2 title=$3
    shift 3
    [ -f "$csv" ] && python3 scripts/figures/snapshots.py "$csv" "Paper 002 Fig $fig: $title" \
      "$OUT/fig${fig}_snapshots.png" "$@" || true
  }
  snap 12 "$OUT/cylindrical_pair/cylindrical_pair_null-space-em.series.csv" \
    "cylindrical pair, null-space-em, dt = 0.01" 2 0.1 0.3 0.7
  snap 16 "$OUT/planar_pair/planar_pair_null-space-em.series.csv" \
    "planar pair, null-space-em, dt = 0.01" 0.5 0.02 0.04 0.05 0.06 0.07 0.08
  snap 24 "$OUT/six_body_linkage/six_body_linkage_null-space-em.series.csv" \
    "six-body linkage, null-space-em, dt = 0.01" 0.03 0.02 0.04 0.08 0.09 0.13 0.26
  for pair in "10:gyro_top/0.05/gyro_top" "13:cylindrical_pair/cylindrical_pair" \
              "17:planar_pair/planar_pair" "23:six_body_linkage/six_body_linkage"; do
    fig=${pair%%:*}
    csv="$OUT/${pair#*:}_null-space-em.series.csv"
    [ -f "$csv" ] || continue
    e=$(col "$csv" energy_balance)
    gnuplot <<GP || true
set terminal pngcairo size 800,450 noenhanced
set datafile separator ","
set output "$OUT/fig${fig}_energy_balance.png"
set xlabel "t [s]"; set ylabel "E - E0 - W [J]"; set format y "%.1e"
set title "Paper 002 Fig $fig: energy balance, null-space-em, $(basename "$csv" _null-space-em.series.csv)"
plot "$csv" using 1:$e every ::1 with lines notitle
GP
    # The components L_i of the angular momentum about the origin, as the paper plots them
    # (the series' angular_momentum_* columns, written where the DAE reports momenta).
    lx=$(col "$csv" angular_momentum_x || true) ly=$(col "$csv" angular_momentum_y || true)
    lz=$(col "$csv" angular_momentum_z || true)
    [ -n "$lx" ] && [ -n "$ly" ] && [ -n "$lz" ] || continue
    gnuplot <<GP || true
set terminal pngcairo size 800,450 noenhanced
set datafile separator ","
set output "$OUT/fig${fig}_angular_momentum.png"
set xlabel "t [s]"; set ylabel "L_i [kg m^2/s]"; set key outside right; set grid
set title "Paper 002 Fig $fig: angular momentum about the origin, null-space-em, $(basename "$csv" _null-space-em.series.csv)"
plot "$csv" using 1:$lx with lines lw 2 title "L_1", "$csv" using 1:$ly with lines lw 2 title "L_2", \
     "$csv" using 1:$lz with lines lw 2 title "L_3"
GP
  done
fi

# Tables III/IV, reduced column: the dt -> 0 limit cond(P^T M P) from the paper's data alone
# (no suite code), which the page compares with our reduced numbers.
python3 scripts/figures/reduced_mass_condition.py >"$OUT/reduced_mass_condition.txt"

# index.json: every run of this recipe.
python3 scripts/figures/index_runs.py "$OUT" "figures 002"

python3 - "$OUT" <<'PY'
import glob, json, math, os, sys
out = sys.argv[1]

def result(path):
    files = [f for f in glob.glob(os.path.join(out, path, "*.json")) if not f.endswith("index.json")]
    return {json.load(open(f))["method"]["id"]: json.load(open(f)) for f in files}

def cond(r, key="first"):
    c = r["metrics"].get("iteration_matrix_condition") if r["status"] == "ok" else None
    return "%.3g" % c[key] if c and c.get(key) is not None else r["status"]

lines = ["# Paper 002 (Betsch & Leyendecker 2006): tables and figures", "",
         "Generated by `scripts/figures/paper002.sh`. Condition numbers: 2-norm, Newton matrix "
         "at the first iteration of the first step, momentum rows in impulse form, constraint "
         "rows unscaled, unknowns (q, lambda) / reduced unknowns (docs/methods/energy_momentum.md). "
         "Reduced scheme: `null-space-em` (the explicit S, C, E pair null spaces and "
         "reparametrisations for the gyro top and the two pairs, Newton on the degrees of "
         "freedom; the numerical null space of the mid-point Jacobian, n unknowns, for the "
         "closed six-body linkage, whose closed-chain form (190)-(192) is not implemented).", ""]
tables = [
    ("Table II, gyro top", "table2", ["5e-2", "5e-3", "5e-4"],
     ["1.6e4", "1.6e7", "1.6e10"], ["8", "8", "8"], "first"),
    ("Table III, cylindrical pair", "table3", ["1e-2", "1e-3", "1e-4"],
     ["3.6e11", "3.6e14", "3.6e17"], ["360", "358", "358"], "first"),
    ("Table IV, planar pair", "table4", ["1e-2", "1e-3", "1e-4"],
     ["4.8e10", "4.6e13", "4.6e16"], ["7.3e2", "8.0e2", "8.0e2"], "first"),
    ("Table V, six-body linkage (at t = 0.04: the last step of a run to t = 0.04)", "table5",
     ["1e-2", "1e-3", "1e-4"], ["1.6e5", "1.5e8", "1.5e11"], ["19", "10", "58"], "last"),
]
for title, d, steps, paper_c, paper_r, key in tables:
    lines += ["## " + title, "", "| dt | constrained: paper | ours | reduced: paper | ours (unknowns) |",
              "|---|---|---|---|---|"]
    for h, pc, pr in zip(steps, paper_c, paper_r):
        r = result(os.path.join(d, h))
        c = r.get("constrained-em")
        n = r.get("null-space-em")
        unknowns = int(n["metrics"].get("newton_unknowns", 0)) if n and n["status"] == "ok" else "-"
        lines.append("| %s | %s | %s | %s | %s (%s) |" % (h, pc, cond(c, key) if c else "-", pr,
                                                          cond(n, key) if n else "-", unknowns))
    lines.append("")
lines += ["Shape: the constrained number grows like dt^-3 (a factor 1000 per decade of dt), as "
          "in the paper. The reduced one with the explicit null space and reparametrisation "
          "(Tables II-IV) stays flat (gyro top: near the ratio 8.5 of the reduced mass matrix's "
          "principal values). Table V's reduced column takes the linkage's one degree of "
          "freedom as the unknown through local coordinates of the manifold (not the paper's "
          "joint-angle form (190)-(192)): a 1 x 1 Newton matrix, condition 1 at every step, "
          "where the paper reports 19 / 10 / 58 (not flat; matrix size not given). "
          "`--set null_space=generic` (60 unknowns) grows like dt^-1: its constraint rows "
          "stay beside the 2 M / h rows. Table V: our constrained value is at t = 0.04 (the "
          "last step's first Newton iteration) with the dependent closure row dropped.", ""]

lines += ["## Figures 8-10, 12-14, 16-18, 23-25 (series in the subdirectories, `*.series.csv`)", "",
          "| figure | run | paper | ours |", "|---|---|---|---|"]
for h in ["0.05", "0.01", "0.001"]:
    r = result("gyro_top/" + h).get("null-space-em")
    if r and r["status"] == "ok":
        m = r["metrics"]
        err = m.get("error") or {}
        lines.append("| %s | gyro_top dt=%s | x, z of the centre of mass vs analytic; E and e3 . L "
                     "conserved | centre-of-mass error %.3g m; E drift %.2g rel.; e3 . L drift %.2g |"
                     % ("8, 10" if h == "0.05" else "9" if h == "0.01" else "text after 9", h,
                        err.get("output_max_abs", float("nan")), m["energy"]["max_rel_drift"],
                        m["momentum"]["conserved_max_abs_drift"]))
for fig, d in [("12-14", "cylindrical_pair"), ("16, 17", "planar_pair"),
               ("23-25", "six_body_linkage")]:
    r = result(d).get("null-space-em")
    if r and r["status"] == "ok":
        m = r["metrics"]
        mom = m.get("momentum") or {}
        drift = mom.get("conserved_max_abs_drift")
        lines.append("| %s | %s dt=0.01 | energy (and L for the free pairs) conserved | E drift "
                     "%.2g rel.; conserved momentum drift %s |"
                     % (fig, d, m["energy"]["max_rel_drift"],
                        "%.2g (abs.)" % drift if drift is not None else "none conserved"))
lines += ["", "Energy uses the scheme's node velocities v1 = 2 (q1 - q0)/h - v0 "
          "(docs/methods/energy_momentum.md)."]
pngs = sorted(os.path.basename(p) for p in glob.glob(os.path.join(out, "*.png")))
if pngs:
    lines += ["", "Plots: " + ", ".join("`%s`" % p for p in pngs) + ". The snapshots draw "
              "each body as its director triad at its centre of mass and the centres joined in "
              "body order (the paper draws solids); Figs 10, 13, 17, 23 show the energy balance "
              "and the components of L (the series' angular_momentum_* columns)."]
open(os.path.join(out, "details.md"), "w").write("\n".join(lines) + "\n")
print("paper002.sh: wrote " + os.path.join(out, "details.md"))
PY
