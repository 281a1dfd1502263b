#!/usr/bin/env python3
"""index.json of a paper's figure directory: every result document its recipes wrote.

Each `mbbench run --out DIR` writes its own DIR/index.json describing that directory only;
a recipe makes many, so this lists them all in one mbbench.index/1 document.
usage: index_runs.py OUT_DIR NAME   (NAME, e.g. "figures 001", goes into the index)
"""
import glob
import json
import os
import sys


def main(out, name):
    runs = []
    for path in sorted(glob.glob(os.path.join(out, "**", "*.json"), recursive=True)):
        if os.path.basename(path) == "index.json":
            continue
        try:
            with open(path) as f:
                d = json.load(f)
        except (OSError, ValueError):
            continue
        if not isinstance(d, dict) or d.get("schema") != "mbbench.result/1":
            continue
        runs.append({"file": os.path.relpath(path, out), "problem": d["problem"]["id"],
                     "problem_parameters": d["problem"]["parameters"], "method": d["method"]["id"],
                     "method_parameters": d["method"]["parameters"], "settings": d["settings"],
                     "status": d["status"], "series": d.get("series")})
    with open(os.path.join(out, "index.json"), "w") as f:
        json.dump({"schema": "mbbench.index/1", "name": name, "runs": runs}, f, indent=2)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
