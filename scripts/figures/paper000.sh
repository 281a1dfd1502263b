#!/usr/bin/env bash
# Data (and, if gnuplot is installed, plots) for paper 000, Figs 7-10 (spatial pendulum),
# 12-14 (spin top) and the planar pendulum of s3.1, via the mbbench CLI:
#   continued-qr and traditional-qr with --series and minimal_series=on (q, q', Q2 columns),
#   and `ida` at tight tolerance as the DAE reference (it stands in for the paper's MBDyn).
# Output: results/figures/000/ (git-ignored). The slider-crank (Figs 3-6) needs the model
# layer and is not here yet.
#
# usage: scripts/figures/paper000.sh [BUILD_DIR]   (default: build)
set -euo pipefail
cd "$(dirname "$0")/../.."
BIN="${MBBENCH:-${1:-build}/harness/mbbench}"
OUT=results/figures/000
mkdir -p "$OUT"
[ -x "$BIN" ] || { echo "paper000.sh: $BIN not found; build first" >&2; exit 2; }

run() {  # run PROBLEM METHOD [extra mbbench args...]
  local problem=$1 method=$2
  shift 2
  "$BIN" run -p "$problem" -m "$method" --series --out "$OUT" "$@" >/dev/null
}

for problem in planar_pendulum spatial_pendulum spin_top; do
  run "$problem" continued-qr --set minimal_series=on
  run "$problem" traditional-qr --set minimal_series=on
  run "$problem" ida --set rtol=1e-12 --set atol=1e-14
done

# Agreement of the physical trajectories (positions, interpolated at the QR sample times).
{
  for problem in planar_pendulum spatial_pendulum spin_top; do
    for method in continued-qr traditional-qr; do
      printf '%s %s vs ida: ' "$problem" "$method"
      python3 scripts/figures/compare_series.py "$OUT/${problem}_ida.series.csv" \
        "$OUT/${problem}_${method}.series.csv"
    done
    printf '%s continued-qr vs traditional-qr: ' "$problem"
    python3 scripts/figures/compare_series.py "$OUT/${problem}_continued-qr.series.csv" \
      "$OUT/${problem}_traditional-qr.series.csv"
  done
} | tee "$OUT/agreement.txt"

if ! command -v gnuplot >/dev/null 2>&1; then
  echo "gnuplot not found: data written to $OUT, no plots"
  exit 0
fi

plot() {  # plot NAME GNUPLOT_BODY
  gnuplot <<EOF
set terminal pngcairo noenhanced size 1000,700
set output "$OUT/$1.png"
set datafile separator ","
set key autotitle columnhead
set grid
$2
EOF
}

sp_c="$OUT/spatial_pendulum_continued-qr.series.csv"
sp_t="$OUT/spatial_pendulum_traditional-qr.series.csv"
sp_r="$OUT/spatial_pendulum_ida.series.csv"
st_c="$OUT/spin_top_continued-qr.series.csv"
st_t="$OUT/spin_top_traditional-qr.series.csv"
st_r="$OUT/spin_top_ida.series.csv"

plot fig07_spatial_pendulum_trajectory "
set title 'Fig 7: spatial pendulum trajectory'
set xlabel 'x'; set ylabel 'y'; set zlabel 'z'
splot '$sp_r' using (column('x')):(column('y')):(column('z')) with lines title 'ida (DAE reference)', \
      '$sp_c' every 50 using (column('x')):(column('y')):(column('z')) with points pt 7 ps 0.3 title 'continued QR', \
      '$sp_t' every 50 using (column('x')):(column('y')):(column('z')) with points pt 6 ps 0.5 title 'traditional QR'"

for k in q qdot; do
  fig=$([ "$k" = q ] && echo 08 || echo 09)
  plot "fig${fig}_spatial_pendulum_min_${k}" "
set title 'Fig $fig: spatial pendulum minimal ${k}_i'
set xlabel 't (s)'
plot '$sp_c' using 1:(column('min_${k}1')) with lines title 'continued ${k}1', \
     '$sp_c' using 1:(column('min_${k}2')) with lines title 'continued ${k}2', \
     '$sp_t' using 1:(column('min_${k}1')) with lines dt 2 title 'traditional ${k}1', \
     '$sp_t' using 1:(column('min_${k}2')) with lines dt 2 title 'traditional ${k}2'"
done

plot fig10_spatial_pendulum_Q2 "
set multiplot layout 2,1
set xlabel 't (s)'
set title 'Fig 10: Q2 columns, continued QR'
plot for [c in 'Q2_1_1 Q2_2_1 Q2_3_1 Q2_1_2 Q2_2_2 Q2_3_2'] '$sp_c' using 1:(column(c)) with lines title c
set title 'Fig 10: Q2 columns, traditional QR'
plot for [c in 'Q2_1_1 Q2_2_1 Q2_3_1 Q2_1_2 Q2_2_2 Q2_3_2'] '$sp_t' using 1:(column(c)) with lines title c
unset multiplot"

plot fig12_spin_top_trajectory "
set title 'Fig 12: spin top centre of mass'
set xlabel 'x'; set ylabel 'y'; set zlabel 'z'
splot '$st_r' using (column('cm_x')):(column('cm_y')):(column('cm_z')) with lines title 'ida (DAE reference)', \
      '$st_c' every 500 using (column('cm_x')):(column('cm_y')):(column('cm_z')) with points pt 7 ps 0.3 title 'continued QR', \
      '$st_t' every 500 using (column('cm_x')):(column('cm_y')):(column('cm_z')) with points pt 6 ps 0.5 title 'traditional QR'"

for k in q qdot; do
  fig=$([ "$k" = q ] && echo 13 || echo 14)
  plot "fig${fig}_spin_top_min_${k}" "
set multiplot layout 2,1
set xlabel 't (s)'
set title 'Fig $fig: spin top minimal ${k}_i, continued QR'
plot for [i=1:5] '$st_c' every 10 using 1:(column(sprintf('min_${k}%d', i))) with lines title sprintf('${k}%d', i)
set title 'Fig $fig: spin top minimal ${k}_i, traditional QR'
plot for [i=1:5] '$st_t' every 10 using 1:(column(sprintf('min_${k}%d', i))) with lines title sprintf('${k}%d', i)
unset multiplot"
done

echo "plots and data in $OUT"
