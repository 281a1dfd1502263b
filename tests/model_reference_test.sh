#!/usr/bin/env bash
# References for model files (docs/model-format.md): `mbbench reference --model FILE` writes
# the model's reference keyed by the file's content hash into the reference directory given
# by --reference-dir; `run` on the same file (from any path) then has an error block,
# `fastest --criterion output_error=...` passes on it, and an edited copy of the file
# (another hash) has none.
set -euo pipefail
mbbench=$1
source_dir=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
unset MBBENCH_REFERENCE_DIR
export HOME=$work/home XDG_DATA_HOME=
model=$source_dir/problems/models/triple_pendulum.json
refs=$work/refs
mkdir -p "$refs"

"$mbbench" reference --reference-dir "$refs" --model "$model" --samples 50 >"$work/ref.out"
hash=$(sed -n 's|^written: .*/models/\([0-9a-f]*\)/reference.json$|\1|p' "$work/ref.out")
test -n "$hash" || { echo "no reference written:"; cat "$work/ref.out"; exit 1; }
test -f "$refs/models/$hash/reference.json"

# The same content under another path finds it (the key is the content, not the path).
cp "$model" "$work/copy.json"
(cd "$work" && "$mbbench" run --reference-dir "$refs" --model copy.json -m odeint-dopri5 \
  --repeats 0 --out "$work/run" >/dev/null)
python3 - "$work/run/triple_pendulum_odeint-dopri5.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
e = r["metrics"]["error"]
assert e is not None, "no error block"
assert e["reference"] == "triple_pendulum/suite", e["reference"]
assert e["compared_samples"] == 50, e["compared_samples"]
assert 0 < e["position_max_rel"] < 1e-7, e["position_max_rel"]
assert r["context"]["reference_data_hash"] not in ("", None)
PY

# A sweep of the model finds it too.
cat >"$work/experiment.json" <<'JSON'
{"name": "model_reference", "runs": [{"model": "copy.json", "method": "ida"}]}
JSON
"$mbbench" sweep --reference-dir "$refs" "$work/experiment.json" --out "$work/sweep" >/dev/null
python3 - "$work/sweep" <<'PY'
import glob, json, sys
files = glob.glob(sys.argv[1] + "/*_ida.json")
assert len(files) == 1, files
assert json.load(open(files[0]))["metrics"].get("error") is not None, "sweep: no error block"
PY

# MBBENCH_REFERENCE_DIR does the same as --reference-dir.
MBBENCH_REFERENCE_DIR=$refs "$mbbench" fastest --model "$model" -m odeint-dopri5 \
  --criterion output_error=1e-6 --out "$work/fastest" >"$work/fastest.out"
grep -q "result: " "$work/fastest.out"
if grep -q "cannot pass" "$work/fastest.out"; then cat "$work/fastest.out"; exit 1; fi

# An edited model (another content hash) has no reference: no error block.
sed 's/"end_time": 5.0/"end_time": 4.0/' "$model" >"$work/edited.json"
cmp -s "$model" "$work/edited.json" && { echo "edit did not change the model"; exit 1; }
"$mbbench" run --reference-dir "$refs" --model "$work/edited.json" -m odeint-dopri5 \
  --repeats 0 --out "$work/edited" >/dev/null
python3 - "$work/edited/triple_pendulum_odeint-dopri5.json" <<'PY'
import json, sys
assert json.load(open(sys.argv[1]))["metrics"].get("error") is None, "reference of another file used"
PY

# Bad input: a missing model file is exit 2 with its name.
set +e
"$mbbench" reference --reference-dir "$refs" --model "$work/missing.json" 2>"$work/err"
rc=$?
set -e
test "$rc" = 2 || { echo "missing model: exit $rc"; exit 1; }
grep -q "missing.json" "$work/err"
echo "model reference: ok ($hash)"
