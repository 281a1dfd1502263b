#!/usr/bin/env bash
# Merges the shard directories a sharded sweep wrote (OUT/shard-K/) into OUT itself: the
# result files keep their names (runs are numbered over the whole experiment, so shards never
# share a name) and OUT/index.json lists every run. The shard directories are removed.
#
# Everything is checked before anything moves: every shard K of N (N read from the shards'
# indexes, "NAME shard K/N") must be present and finished (have its index.json), all shards
# must agree on N, and no result name may be present twice. Otherwise exit 1 naming the
# missing or unfinished shards, and nothing is moved.
#
# A directory merged already (no shard-* directories, an index.json) is left as it is, exit 0.
#
# usage: scripts/cluster/merge_shards.sh OUT
set -euo pipefail
out=${1:?usage: $0 OUT}
shopt -s nullglob
shards=("$out"/shard-*/)
if [ ${#shards[@]} -eq 0 ]; then
  if [ -f "$out/index.json" ] && ! grep -q '"name": ".* shard [0-9]*/[0-9]*"' "$out/index.json"; then
    echo "$0: $out is merged already (no shard-* directories, one index.json); nothing to do" >&2
    exit 0  # merging twice is a no-op
  fi
  echo "$0: no shard-* directories in $out" >&2
  exit 2
fi
# Check first, move nothing: N agreed by every finished shard, shards 0..N-1 all finished.
python3 - "$out" "${shards[@]}" <<'PY'
import json, os, re, sys
out, shards = sys.argv[1], sys.argv[2:]
counts, unfinished = {}, []
for d in shards:
    index = os.path.join(d, "index.json")
    if not os.path.exists(index):
        unfinished.append(d)
        continue
    with open(index) as f:
        name = json.load(f).get("name", "")
    m = re.search(r" shard (\d+)/(\d+)$", name)
    if not m:
        print(f"merge_shards.sh: {index}: name '{name}' does not say 'shard K/N'", file=sys.stderr)
        sys.exit(2)
    counts.setdefault(int(m.group(2)), []).append(index)
if len(counts) > 1:
    print("merge_shards.sh: shards disagree on N: " +
          "; ".join(f"N={n}: {', '.join(v)}" for n, v in sorted(counts.items())), file=sys.stderr)
    sys.exit(2)
problems = [f"{d.rstrip('/')}: unfinished (no index.json; rerun this shard)" for d in unfinished]
if counts:
    n = next(iter(counts))
    for k in range(n):
        d = os.path.join(out, f"shard-{k}")
        if not os.path.isdir(d):
            problems.append(f"{d}: missing (shard {k} of {n}; rerun it with --shard {k}/{n})")
seen = {}
for d in shards:
    for name in os.listdir(d):
        if name == "index.json" or not (name.endswith(".json") or name.endswith(".series.csv")):
            continue
        if name in seen or os.path.exists(os.path.join(out, name)):
            problems.append(f"{name}: exists in two shards or in {out} already")
        seen[name] = d
if problems:
    print("merge_shards.sh: not merging, nothing moved:", file=sys.stderr)
    for p in problems:
        print("  " + p, file=sys.stderr)
    sys.exit(1)
PY
for dir in "${shards[@]}"; do
  for file in "$dir"*.json "$dir"*.series.csv; do
    name=$(basename "$file")
    [ "$name" = index.json ] && continue
    mv "$file" "$out/$name"
  done
done
# One index from the shards' indexes, runs in experiment order.
python3 - "$out" "${shards[@]}" <<'PY'
import json, sys
out, shards = sys.argv[1], sys.argv[2:]
runs, index = [], None
for d in shards:
    with open(d + "index.json") as f:
        index = json.load(f)
    runs += index["runs"]
runs.sort(key=lambda r: r["file"])
index["runs"] = runs
index["name"] = index["name"].split(" shard ")[0]
with open(out + "/index.json", "w") as f:
    json.dump(index, f, indent=2)
    f.write("\n")
PY
rm -r "${shards[@]}"
