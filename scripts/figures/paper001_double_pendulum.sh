#!/usr/bin/env bash
# Paper 001, double pendulum (section 6, Figs 15-22; docs/problems.md substitute data): time
# series of the classical index-3 Newmark runs and of tangent Fox-Goodwin, and a Markdown
# summary in results/figures/001/double_pendulum.md. Usage:
# scripts/figures/paper001_double_pendulum.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
B=${MBBENCH:-build/harness/mbbench}
[ -x "$B" ] || { echo "build first: $B not found" >&2; exit 2; }
OUT="${MBBENCH_FIGURES_OUT:-results/figures}/001/double_pendulum"
mkdir -p "$OUT"
run() { local name=$1; shift; "$B" run -p double_pendulum "$@" --series --repeats 0 --out "$OUT/$name" >/dev/null || true; }
run fig15_index3_g0.5000005 -m newmark-index3 --set gamma=0.5000005 --set beta=0.2500006 --set h=1e-3
run index3_g0.5 -m newmark-index3 --set gamma=0.5 --set beta=0.25 --set h=1e-3
run index3_g0.5001 -m newmark-index3 --set gamma=0.5001 --set beta=0.2507 --set h=1e-3
run fig17_tangent_fg_5e-4 -m tangent-newmark --set scheme=fox-goodwin --set h=5e-4
run fig22_tangent_fg_5e-3 -m tangent-newmark --set scheme=fox-goodwin --set h=5e-3
run stiff_k1e5_tangent_fg_5e-4 --param k=1e5 -m tangent-newmark --set scheme=fox-goodwin --set h=5e-4
python3 - "$OUT" >"$OUT.md" <<'PY'
import csv, glob, json, sys
out = sys.argv[1]
def load(name):
    rec = json.load(open(glob.glob(f"{out}/{name}/double_pendulum_*.json")[0]))
    rows = list(csv.DictReader(open(glob.glob(f"{out}/{name}/*.series.csv")[0])))
    return rec, rows
ref_rec, ref_rows = load("fig17_tangent_fg_5e-4")
ref = {round(float(r["t"]), 6): r for r in ref_rows}
print("# Paper 001, double pendulum (docs/problems.md substitute data), 10 s\n")
print("Reaction error: fixed-joint multipliers against tangent Fox-Goodwin h = 5e-4 at common times.\n")
print("| run | status | last t [s] | reaction error > 1 N at [s] | max reaction error [N] | max pos/vel/acc residual | omega_max [rad/s] | h predicted (eq. 26) [s] |")
print("|---|---|---|---|---|---|---|---|")
for name in ["fig15_index3_g0.5000005", "index3_g0.5", "index3_g0.5001", "fig17_tangent_fg_5e-4",
             "fig22_tangent_fg_5e-3", "stiff_k1e5_tangent_fg_5e-4"]:
    rec, rows = load(name)
    first, emax = "-", 0.0
    if not name.startswith("stiff"):
        for r in rows:
            t = round(float(r["t"]), 6)
            if t not in ref or "lambda0" not in r:
                continue
            e = max(abs(float(r[f"lambda{i}"]) - float(ref[t][f"lambda{i}"])) for i in (0, 1))
            if e == e:
                emax = max(emax, e)
            if first == "-" and e > 1:
                first = f"{t:.3f}"
    m = rec["metrics"]
    cr = m["constraint_residual"]
    res = "%.2e / %.2e / %s" % (cr["position_max"], cr["velocity_max"],
                                "%.2e" % cr["acceleration_max"] if cr.get("acceleration_max") is not None else "-")
    om = "%.4g" % m["omega_max"] if "omega_max" in m else "-"
    hp = "%.4g" % m["h_stability_limit_predicted"] if "h_stability_limit_predicted" in m else "-"
    print(f"| {name} | {rec['status']} | {float(rows[-1]['t']):.3f} | {first} | {emax:.3g} | {res} | {om} | {hp} |")
PY
echo "wrote $OUT.md"

# Figs 15-22 as plots (gnuplot): the runs' angles, fixed-joint reactions, constraint residuals
# and maximum natural frequency, the tangent Fox-Goodwin h = 5e-4 run drawn under the others.
if command -v gnuplot >/dev/null 2>&1; then
  REF=$(ls "$OUT"/fig17_tangent_fg_5e-4/*.series.csv 2>/dev/null | head -1)
  classical=("gamma, beta = 0.5000005, 0.2500006 (Fig 15)=$OUT/fig15_index3_g0.5000005@$REF"
             "gamma, beta = 0.5, 0.25=$OUT/index3_g0.5@$REF"
             "gamma, beta = 0.5001, 0.2507=$OUT/index3_g0.5001@$REF")
  export PANELS_REF_TITLE="tangent FG h = 5e-4 s"
  PANELS_LAYOUT=1,3 python3 scripts/figures/panels.py "$OUT/fig15.png" \
    "Paper 001 Fig 15: double pendulum, classical index-3 Newmark, h = 1e-3 s" \
    "joint angle [rad]" theta1,theta2 "${classical[@]}" || true
  PANELS_LAYOUT=1,3 python3 scripts/figures/panels.py "$OUT/fig16.png" \
    "Paper 001 Fig 16: double pendulum, fixed-joint reactions (multipliers), classical index-3 Newmark, h = 1e-3 s" \
    "reaction [N]" lambda0,lambda1 "${classical[@]}" || true
  PANELS_LAYOUT=1,2 python3 scripts/figures/panels.py "$OUT/fig17_22.png" \
    "Paper 001 Figs 17 and 22: double pendulum, tangent Fox-Goodwin" "joint angle [rad]" \
    theta1,theta2 "Fig 17: h = 5e-4 s=$OUT/fig17_tangent_fg_5e-4" "Fig 22: h = 5e-3 s=$OUT/fig22_tangent_fg_5e-3@$REF" || true
  PANELS_LAYOUT=1,1 PANELS_LOGY=1 python3 scripts/figures/panels.py "$OUT/fig18_20.png" \
    "Paper 001 Figs 18-20: double pendulum, tangent FG h = 5e-4 s, constraint residual norms" \
    "residual norm (log)" position_residual,velocity_residual,acceleration_residual \
    "position, velocity, acceleration=$OUT/fig17_tangent_fg_5e-4" || true
  PANELS_LAYOUT=1,2 python3 scripts/figures/panels.py "$OUT/fig21.png" \
    "Paper 001 Fig 21: double pendulum, maximum natural frequency per step" "omega_max [rad/s]" \
    omega "tangent FG h = 5e-4 s=$OUT/fig17_tangent_fg_5e-4" "tangent FG h = 5e-3 s=$OUT/fig22_tangent_fg_5e-3" || true
fi

# The paper-vs-ours details.md of results/figures/001, from whatever the 001 recipes have written
# (`mbbench figures 001` then writes the page, index.html and README.md, from pages/001.json).
python3 scripts/figures/paper001_readme.py "${MBBENCH_FIGURES_OUT:-results/figures}/001"
