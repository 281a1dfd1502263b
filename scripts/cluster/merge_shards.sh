#!/usr/bin/env bash
# Merges the shard directories a sharded sweep wrote (OUT/shard-K/) into OUT itself: the
# result files keep their names (runs are numbered over the whole experiment, so shards never
# share a name) and OUT/index.json lists every run. The shard directories are removed.
#
# usage: scripts/cluster/merge_shards.sh OUT
set -euo pipefail
out=${1:?usage: $0 OUT}
shopt -s nullglob
shards=("$out"/shard-*/)
if [ ${#shards[@]} -eq 0 ]; then
  echo "$0: no shard-* directories in $out" >&2
  exit 2
fi
for dir in "${shards[@]}"; do
  for file in "$dir"*.json "$dir"*.series.csv; do
    name=$(basename "$file")
    [ "$name" = index.json ] && continue
    if [ -e "$out/$name" ]; then
      echo "$0: $name exists in two shards or in $out already" >&2
      exit 2
    fi
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
