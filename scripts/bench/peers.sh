#!/usr/bin/env bash
# Benchmark (not a test): mbbench against the peer engines Simbody and MuJoCo at equal
# accuracy (docs/performance.md, "mbbench against Simbody and MuJoCo"). Per problem a peer can model, with the criteria of
# docs/fastest.md ("Criteria per problem for the peer table"): each engine's fastest passing
# configuration by `mbbench fastest` (mbbench over its own explicit methods and formulations,
# Simbody over rtol and h, MuJoCo over h with each of its integrators and loops=connect where
# the mechanism has a loop), then the three winners timed interleaved (ROUNDS rounds, one
# run of INNER repeats per engine per round; min and median of all repeats) and the ratios
# peer / mbbench. The logic and the case list: scripts/bench/peers.py.
# Output: the markdown table on stdout and in $OUT/peers.md, every search's JSON under $OUT.
# usage: [QUICK=1] [CASES=id,id] [ROUNDS=5] [INNER=3] [BUDGET=20] [SEARCH_REPEATS=3]
#        [OUT=results/bench/peers] scripts/bench/peers.sh [BUILD_DIR]
#   QUICK=1: the simple pendulum only, two mbbench methods, MuJoCo RK4 only, 2 rounds of 1
#            (a smoke run of a few seconds; tests/CMakeLists.txt runs it).
#   CASES:   a comma-separated subset of the case ids (the table's first column).
# The whole list took 20 minutes at load 2-9 on 2 cores (docs/performance.md); the budget
# per method search (BUDGET) bounds the slow cases (flyball_governor, n_four_bar, the chains).
set -euo pipefail
cd "$(dirname "$0")/../.."
export MBBENCH="${MBBENCH:-${1:-build}/harness/mbbench}"
[ -x "$MBBENCH" ] || { echo "peers.sh: $MBBENCH not found; build first" >&2; exit 2; }
exec python3 scripts/bench/peers.py
