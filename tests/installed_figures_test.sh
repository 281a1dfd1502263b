#!/usr/bin/env bash
# An install that stands alone, for `figures` and `check` (docs/reports.md, "Where references are found"): installs this
# build into a temporary prefix, moves the prefix elsewhere (so nothing compiled into the
# binary points at it), and runs the moved copy from a temporary directory with the source
# tree's recipes and references switched off (MBBENCH_NO_SOURCE_FIGURES=1,
# MBBENCH_NO_SOURCE_REFERENCE=1; the build's own binary, which has no share/ beside it, shows
# that the switch leaves it nothing). `figures 003` (about 6 s on 2 cores: paper 000 takes
# about 5 min, 001 longer; every paper's recipes take the same lookup) runs the installed
# recipes and writes the page with its computed verdicts, the same as the build's binary
# writes from the source tree; `check --baseline DIR` checks baselines copied into a
# directory of the user's with the installed reference data.
set -euo pipefail
build_dir=$1
built_mbbench=$2
source_dir=$3  # only to copy a few committed baselines into the user's directory
. "$(dirname "$0")/temp_install.sh" "$build_dir"  # $work, this build in $work/prefix
mkdir "$work/baselines"
cp "$source_dir"/results/baselines/four_bar_ida.json \
   "$source_dir"/results/baselines/four_bar_odeint-dopri5.json \
   "$source_dir"/results/baselines/four_bar_angles_partitioning-projective.json "$work/baselines/"
mv "$work/prefix" "$work/moved"
mbbench=$work/moved/bin/mbbench
unset MBBENCH_REFERENCE_DIR MBBENCH_FIGURES_DIR
export MBBENCH_NO_SOURCE_FIGURES=1 MBBENCH_NO_SOURCE_REFERENCE=1 HOME=$work/home XDG_DATA_HOME=
cd "$work"

# The switch works: a binary without an install beside it finds no recipes.
if "$built_mbbench" figures 003 >none.out 2>none.err; then
  echo "the build's binary ran figures with the source tree switched off"; exit 1
fi
grep -q "no figure recipes found" none.err || { cat none.err; exit 1; }

# The installed recipes, run by the moved copy.
test -f moved/share/mbbench/scripts/figures/paper003.sh
test -f moved/share/mbbench/scripts/figures/pages/003.json
"$mbbench" figures 003 >figures.out 2>figures.err || { cat figures.err figures.out; exit 1; }
grep -q "^figures: recipes from $work/moved/share/mbbench/scripts/figures$" figures.err ||
  { echo "recipes not taken from the install:"; cat figures.err; exit 1; }
test -f results/figures/003/index.html
# The same page as the build's binary writes from the source tree: every entry's verdict and
# every measurement (the runs are deterministic; the page's commit differs: no git here).
mkdir from_source
(cd from_source && env -u MBBENCH_NO_SOURCE_FIGURES -u MBBENCH_NO_SOURCE_REFERENCE \
  "$built_mbbench" figures 003 >/dev/null 2>&1)
python3 - results/figures/003/page.json from_source/results/figures/003/page.json <<'PY'
import json, sys
def judged(path):
    page = json.load(open(path))
    return [(e["id"], e["verdict"], [m.get("ours") for m in e.get("measures", [])])
            for e in page["entries"]]
installed, source = judged(sys.argv[1]), judged(sys.argv[2])
assert installed, "empty page"
assert installed == source, "installed page differs:\n%s\nsource:\n%s" % (installed, source)
print("page 003: %d entries, the same as from the source tree" % len(installed))
PY

# check against baselines in a directory of the user's: 0 changed with the installed references.
"$mbbench" check --baseline baselines --jobs 2 >check.out 2>&1 || { cat check.out; exit 1; }
grep -q "3 baselines: 0 changed" check.out || { cat check.out; exit 1; }
echo "installed figures and check: ok"
