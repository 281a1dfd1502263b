#!/usr/bin/env bash
# scripts/bench/peers.sh in QUICK mode (the simple pendulum only, a few seconds): the
# markdown table is produced, with the case's row and mbbench's passing configuration in
# it, and every engine's cell either a configuration, "cannot pass: ..." or "not built".
# Times are never checked (docs/style.md, "Timing"). usage: peers_script_test.sh MBBENCH SRC
set -euo pipefail
MBBENCH=$1
SRC=$2
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
MBBENCH="$MBBENCH" OUT="$OUT" QUICK=1 "$SRC/scripts/bench/peers.sh" >"$OUT/stdout" 2>"$OUT/stderr" ||
  { cat "$OUT/stderr"; echo "FAIL: peers.sh exited non-zero"; exit 1; }
cmp -s "$OUT/stdout" "$OUT/peers.md" || { echo "FAIL: stdout differs from peers.md"; exit 1; }
grep -q '^| problem | criteria | mbbench (steps) |' "$OUT/peers.md" ||
  { cat "$OUT/peers.md"; echo "FAIL: no table header"; exit 1; }
row=$(grep '^| simple_pendulum |' "$OUT/peers.md") || { cat "$OUT/peers.md"; echo "FAIL: no row"; exit 1; }
# Cells: 1 problem, 2 criteria, 3 mbbench config, 4 its times, 5/6 Simbody, 7/8 MuJoCo.
cell() { awk -F' [|] ' -v k="$1" '{print $k}' <<<"${row#| }"; }
[ "$(cell 2)" = "E 0.001, out 0.001" ] || { echo "FAIL: criteria cell '$(cell 2)'"; exit 1; }
[[ "$(cell 3)" =~ ^odeint-(dopri5|rk4)\ .*\([0-9]+\)$ ]] ||
  { echo "FAIL: mbbench did not pass the simple pendulum: '$(cell 3)'"; exit 1; }
[[ "$(cell 4)" =~ ^[0-9.e-]+\ /\ [0-9.e-]+$ ]] || { echo "FAIL: mbbench time '$(cell 4)'"; exit 1; }
for k in 5 7; do
  [[ "$(cell $k)" =~ ^(simbody|mujoco)\ .*\([0-9]+\)$|^cannot\ pass ]] ||
    { echo "FAIL: peer cell '$(cell $k)'"; exit 1; }
done
echo "peers.sh QUICK: table produced"
