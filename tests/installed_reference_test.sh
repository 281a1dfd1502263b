#!/usr/bin/env bash
# An install that stands alone: installs this build into a temporary prefix and runs the
# installed mbbench from a temporary directory with the source tree's references out of its
# reach (MBBENCH_NO_SOURCE_REFERENCE=1, no MBBENCH_REFERENCE_DIR): it finds the installed
# reference data (share/mbbench/reference) and the run has error metrics; `--version` names
# that directory and the same data hash as the build's own binary. With the installed data
# moved away the run warns, in the result and on stderr.
set -euo pipefail
build_dir=$1
built_mbbench=$2
. "$(dirname "$0")/temp_install.sh" "$build_dir"  # $work, this build in $work/prefix
mbbench=$work/prefix/bin/mbbench
unset MBBENCH_REFERENCE_DIR
export MBBENCH_NO_SOURCE_REFERENCE=1 HOME=$work/home XDG_DATA_HOME=
cd "$work"
test -f prefix/share/mbbench/reference/four_bar/reference.json

"$mbbench" --version >version.txt
grep -q "^commit [0-9a-f]\{7,\}" version.txt
grep -q "(${work}/prefix/share/mbbench/reference)$" version.txt ||
  { echo "installed reference data not used:"; cat version.txt; exit 1; }
# The installed copy comes before the source tree compiled into the binary.
env -u MBBENCH_NO_SOURCE_REFERENCE "$mbbench" --version |
  grep -q "(${work}/prefix/share/mbbench/reference)$" ||
  { echo "source tree preferred to the installed reference data"; exit 1; }
installed_hash=$(sed -n 's/^reference data \([0-9a-f]*\) .*/\1/p' version.txt)
source_hash=$(env -u MBBENCH_NO_SOURCE_REFERENCE "$built_mbbench" --version |
  sed -n 's/^reference data \([0-9a-f]*\) .*/\1/p')
test -n "$installed_hash" && test "$installed_hash" = "$source_hash" ||
  { echo "reference data hash: installed '$installed_hash', source '$source_hash'"; exit 1; }

"$mbbench" run -p four_bar -m odeint-dopri5 --repeats 0 --out found >/dev/null 2>found.err
python3 - found/four_bar_odeint-dopri5.json "$installed_hash" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["metrics"].get("error") is not None, "installed run without error metrics"
assert r["context"]["reference_data_hash"] == sys.argv[2], r["context"]
assert r["context"]["git_commit"], r["context"]
assert not any("no reference data" in w for w in r["problem"]["warnings"]), r["problem"]["warnings"]
PY
if grep -q "warning" found.err; then cat found.err; exit 1; fi

# Without any reference data: a warning in the result and on stderr, never a quiet result.
mv prefix/share/mbbench/reference hidden
"$mbbench" run -p four_bar -m odeint-dopri5 --repeats 0 --out missing >/dev/null 2>missing.err
grep -q "warning: no reference data found for four_bar" missing.err ||
  { echo "no warning on stderr:"; cat missing.err; exit 1; }
python3 - missing/four_bar_odeint-dopri5.json <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["metrics"].get("error") is None
assert any("no reference data found for four_bar" in w for w in r["problem"]["warnings"]), r["problem"]["warnings"]
assert r["context"]["reference_data_hash"] == "none", r["context"]
PY

# --reference-dir brings them back.
"$mbbench" run --reference-dir hidden -p four_bar -m odeint-dopri5 --repeats 0 --out given \
  >/dev/null 2>&1
python3 -c 'import json,sys; assert json.load(open(sys.argv[1]))["metrics"].get("error")' \
  given/four_bar_odeint-dopri5.json
echo "installed references: ok ($installed_hash)"
