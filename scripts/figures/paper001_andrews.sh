#!/usr/bin/env bash
# Paper 001, section 6, Andrews squeezer (Figs 24-27): tangent-newmark Fox-Goodwin on the
# test set's seven-angle form to t = 0.03 s, with the coordinates of joint F (outputs F_x,
# F_y) and the per-step maximum natural frequency (series column `omega`):
#   Fig 24, 25: h = 2e-6;  Fig 26: h = 5e-4;  Fig 27: h = 6e-4; and the classical index-3
#   Newmark runs of the text, (0.5, 0.25) and (0.5001, 0.2507) at h = 2e-6.
# Output: results/figures/001/andrews/ (series CSVs, result JSONs, PNGs if gnuplot exists).
# usage: scripts/figures/paper001_andrews.sh   (MBBENCH overrides build/harness/mbbench)
set -euo pipefail
cd "$(dirname "$0")/../.."
B=${MBBENCH:-build/harness/mbbench}
OUT="${MBBENCH_FIGURES_OUT:-results/figures}/001/andrews"
mkdir -p "$OUT"
[ -x "$B" ] || { echo "paper001_andrews.sh: $B not found; build first" >&2; exit 2; }

for h in 2e-6 5e-4 6e-4; do
  "$B" run -p andrews_squeezer -m tangent-newmark --set scheme=fox-goodwin --h "$h" \
    --series --repeats 0 --out "$OUT/h$h" >/dev/null
done

# s6 text: classical position-based Newmark fails with (0.5, 0.25) and works with
# (0.5001, 0.2507); the paper gives no step, these run at the Fox-Goodwin step 2e-6 s.
for gb in 0.5:0.25 0.5001:0.2507; do
  "$B" run -p andrews_squeezer -m newmark-index3 --set gamma=${gb%%:*} --set beta=${gb#*:} \
    --h 2e-6 --repeats 0 --out "$OUT/classical_g${gb%%:*}" >/dev/null || true
done

if command -v gnuplot >/dev/null 2>&1; then
  for h in 2e-6 5e-4 6e-4; do
    csv="$OUT/h$h/andrews_squeezer_tangent-newmark.series.csv"
    gnuplot <<GP
set terminal pngcairo size 1000,560 noenhanced
set datafile separator ','
set key top left opaque box
set grid
set format x '%g'; set format y '%g'
set xlabel 't [s]'
set ylabel 'joint F coordinates [m]'
set output '$OUT/joint_F_h$h.png'
set title 'Paper 001 Figs 24, 26, 27: Andrews squeezer, tangent FG, h = $h s: joint F'
plot '$csv' using 1:'F_x' with lines lw 1.5 title 'F_x', '' using 1:'F_y' with lines lw 1.5 title 'F_y'
set output '$OUT/omega_h$h.png'
set title 'Paper 001 Fig 25: Andrews squeezer, max natural frequency per step, h = $h s'
set ylabel 'omega_max [rad/s]'
plot '$csv' using 1:'omega' with lines lw 1.5 title 'omega_max (ours)', 4503.477 with lines dt 2 title 'paper 4503.477'
GP
  done
fi
echo "wrote $OUT (Figs 24-27: joint_F_h*.png, omega_h*.png, series CSVs)"

# The paper-vs-ours details.md of results/figures/001, from whatever the 001 recipes have written
# (`mbbench figures 001` then writes the page, index.html and README.md, from pages/001.json).
python3 scripts/figures/paper001_readme.py "${MBBENCH_FIGURES_OUT:-results/figures}/001"
