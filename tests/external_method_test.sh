#!/usr/bin/env bash
# A method kept outside the tree (examples/external_method): installs this build into a
# temporary prefix, builds the example against it with find_package(mbbench), and checks
# that its own mybench lists the method and runs it through run, sweep, stability, fastest
# and report, and that its conformance test (allocations included, outside a sanitized
# build) passes with the declared order 2 and fails with a wrong one (3), on the order check
# only. Problems small and runs short: stiff_pendulum's minimal form, 1 s.
set -euo pipefail
build_dir=$1
source_dir=$2
# A sanitized build (MBBENCH_SANITIZE) installs instrumented libraries: the example links
# the sanitizer runtimes too (third argument: extra linker flags).
link_flags=${3:-}
. "$(dirname "$0")/temp_install.sh" "$build_dir"  # $work, this build in $work/prefix
cp -r "$source_dir/examples/external_method" "$work/src"
build() {  # build TARGET [cmake options]
  cmake -S "$work/src" -B "$work/build" -DCMAKE_PREFIX_PATH="$work/prefix" \
    -DCMAKE_BUILD_TYPE=Release -DCMAKE_EXE_LINKER_FLAGS="$link_flags" "${@:2}" >/dev/null
  cmake --build "$work/build" --target "$1" --parallel 2 >/dev/null
}
build all
bench=$work/build/mybench
# The installed reference data, as a consumer points its own executable at it.
export MBBENCH_REFERENCE_DIR=$work/prefix/share/mbbench/reference MBBENCH_NO_SOURCE_REFERENCE=1
export HOME=$work/home XDG_DATA_HOME=
cd "$work"
fail() { echo "external method: $*"; exit 1; }

"$bench" list methods >methods.txt
grep -q "^ *explicit-midpoint " methods.txt || { cat methods.txt; fail "not in list methods"; }
grep -q "^ *odeint-rk4 " methods.txt || fail "the built-in methods are missing beside it"

"$bench" run -p stiff_pendulum -m explicit-midpoint --t-end 1 --repeats 1 --out run >/dev/null
python3 - run/stiff_pendulum_explicit-midpoint.json <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["status"] == "ok", r["status"]
assert r["method"]["id"] == "explicit-midpoint", r["method"]
assert r["problem"]["parameters"]["form"] == "minimal", r["problem"]["parameters"]
assert r["metrics"]["error"]["position_max_abs"] is not None, "no error against the reference"
PY

cat >experiment.json <<'JSON'
{"name": "external", "repeats": 0, "t_end": 1,
 "matrix": {"problems": ["stiff_pendulum"], "methods": ["explicit-midpoint", "odeint-rk4"],
            "set": {"h": [0.01, 0.005]}}}
JSON
"$bench" sweep experiment.json --out sweep >/dev/null
ls sweep/*explicit-midpoint*.json >/dev/null 2>&1 || fail "sweep wrote no explicit-midpoint result"
"$bench" report sweep >/dev/null
grep -q "explicit-midpoint" sweep/report.md || fail "report does not name the method"

# The problem's horizon (63 s, 0.1 s of runs): the search brackets a stability limit.
"$bench" stability -p stiff_pendulum -m explicit-midpoint --h-min 0.01 --h-max 1 \
  --out stability >/dev/null
python3 - stability/stiff_pendulum_explicit-midpoint.stability.json <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
stable, unstable = r["h_max_stable"], r["h_min_unstable"]
assert stable is not None and unstable is not None and 0.01 <= stable < unstable <= 1, r
PY

"$bench" fastest -p stiff_pendulum -m explicit-midpoint --t-end 1 \
  --criterion position_error=1e-4 --repeats 1 --budget 20 --out fastest >fastest.txt ||
  { cat fastest.txt; fail "fastest found no passing step"; }
grep -q "explicit-midpoint" fastest.txt || fail "fastest does not name the method"

"$work/build/test_conformance" >conformance.txt 2>&1 ||
  { cat conformance.txt; fail "the conformance test fails with the right order"; }
if [ -z "$link_flags" ]; then  # not sanitized: the allocation check ran too
  grep -q "explicit-midpoint .* fixed .* allocations in" conformance.txt ||
    { cat conformance.txt; fail "no allocation check in the conformance test"; }
fi
build test_conformance -DEXPLICIT_MIDPOINT_DECLARED_ORDER=3  # the method file and the test
if "$work/build/test_conformance" -r compact >wrong.txt 2>&1; then
  cat wrong.txt
  fail "the conformance test passes with a wrong declared order (3)"
fi
# Every failure is the order check's, and there is one.
grep -q " failed: .*'explicit-midpoint on .*: order: observed order" wrong.txt &&
  ! grep " failed: " wrong.txt | grep -v ": order: observed order" ||
  { cat wrong.txt; fail "the conformance test fails, but not (only) on the declared order"; }
echo "external method: listed, run, swept, reported, searched; conformance passes at order 2, fails at 3"
