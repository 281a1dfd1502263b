#!/usr/bin/env python3
"""A multi-panel figure (gnuplot, PNG) of runs against t, each panel with a reference curve.

usage: panels.py OUT.png TITLE YLABEL COLUMN[,COLUMN...] PANEL [PANEL ...]
  PANEL   LABEL=RUN_DIR[@REF_CSV] (split at the last '='): RUN_DIR holds one `mbbench run --series` result (its
          *.series.csv and result JSON); REF_CSV (a series CSV) is drawn under it as the
          reference. "-" as RUN_DIR leaves a panel empty.
  options (environment): PANELS_LAYOUT "rows,cols" (default: 2 columns), PANELS_REF_TITLE
          (the reference's key title), PANELS_LOGY=1 (log y of |column|).
A run that did not end `ok` gets its status and last time in the panel title, and its y range
is clipped to 5x the reference's range (marked "clipped") so the reference stays readable.
Plain text in titles and keys (noenhanced), tick labels in %g.
"""
import csv
import glob
import json
import math
import os
import subprocess
import sys


def series(run_dir):
    files = glob.glob(os.path.join(run_dir, "*.series.csv"))
    return files[0] if files else None


def result(run_dir):
    for f in sorted(glob.glob(os.path.join(run_dir, "*.json"))):
        if os.path.basename(f) != "index.json":
            with open(f) as fh:
                return json.load(fh)
    return None


def column_range(path, columns):
    lo, hi, last = math.inf, -math.inf, 0.0
    with open(path) as f:
        for row in csv.DictReader(f):
            for c in columns:
                try:
                    v = float(row[c])
                except (KeyError, TypeError, ValueError):
                    continue
                if math.isfinite(v):
                    lo, hi = min(lo, v), max(hi, v)
            try:
                last = float(row["t"])
            except (KeyError, ValueError):
                pass
    return lo, hi, last


def q(text):
    return '"' + str(text).replace('\\', '\\\\').replace('"', '\\"') + '"'


def main(argv):
    if len(argv) < 6:
        print(__doc__)
        return 2
    out, title, ylabel, columns, panels = argv[1], argv[2], argv[3], argv[4].split(","), argv[5:]
    n = len(panels)
    layout = os.environ.get("PANELS_LAYOUT") or "%d,%d" % ((n + 1) // 2 if n > 1 else 1,
                                                          2 if n > 1 else 1)
    rows, cols = (int(x) for x in layout.split(","))
    ref_title = os.environ.get("PANELS_REF_TITLE", "reference")
    logy = os.environ.get("PANELS_LOGY") == "1"
    g = ["set terminal pngcairo noenhanced size %d,%d font ',10'" % (560 * cols + 40, 330 * rows + 60),
         "set output %s" % q(out), "set datafile separator ','", "set grid",
         "set format y '%g'", "set format x '%g'", "set key top right opaque box font ',8'",
         "set multiplot layout %d,%d title %s" % (rows, cols, q(title))]
    if logy:
        g += ["set logscale y", "set format y '%.0e'"]
    for panel in panels:
        label, spec = panel.rsplit("=", 1)
        run_dir, _, ref = spec.partition("@")
        g.append("unset yrange")
        if run_dir == "-" or not series(run_dir):
            g += ["set title %s" % q(label + ": (not run)"), "unset key",
                  "plot [0:1] [0:1] 2 notitle", "set key"]
            continue
        csv_file = series(run_dir)
        res = result(run_dir) or {}
        status = res.get("status", "?")
        ptitle = label
        if status != "ok":
            lo, hi, last = column_range(csv_file, columns)
            ptitle += " - %s, ends at t = %g s" % (status, last)
            if ref and os.path.exists(ref):
                rlo, rhi, _ = column_range(ref, columns)
                span = max(rhi - rlo, 1e-12)
                if lo < rlo - 2 * span or hi > rhi + 2 * span:
                    g.append("set yrange [%g:%g]" % (rlo - 2 * span, rhi + 2 * span))
                    ptitle += " (y clipped)"
        g += ["set title %s" % q(ptitle), "set xlabel 't [s]'", "set ylabel %s" % q(ylabel)]
        plots = []
        expr = (lambda c: "(abs(column(%s)))" % q(c)) if logy else (lambda c: "(column(%s))" % q(c))
        if ref and os.path.exists(ref):
            for c in columns:
                plots.append("%s every ::1 using 1:%s with lines lw 3 lc rgb '#b0b0b0' title %s"
                             % (q(ref), expr(c), q(ref_title + (" " + c if len(columns) > 1 else ""))))
        for i, c in enumerate(columns):
            plots.append("%s every ::1 using 1:%s with lines lw 1.2 lc %d title %s"
                         % (q(csv_file), expr(c), i + 1, q(c)))
        g.append("plot " + ", \\\n     ".join(plots))
    g.append("unset multiplot")
    subprocess.run(["gnuplot"], input="\n".join(g) + "\n", text=True, check=False)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
