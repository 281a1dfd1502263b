#!/usr/bin/env python3
"""Snapshots of a motion in the directors formulation (paper 002 Figs 12, 16, 24).

usage: snapshots.py SERIES.csv TITLE OUT.png SCALE T1 [T2 ...]

Every rigid body of a directors-formulation run is 12 coordinates, centre of mass and the
three body-frame directors d_1, d_2, d_3 (paper 002 eqs 21-25; problems/model/
director_formulation.cc). Each snapshot draws, at the sample nearest to the requested
time, every body as its director triad from the centre of mass (thick arrows of length
SCALE, at least a fifth of the mechanism's extent so they read against it) and the
polyline through the centres in body order: the poses the paper draws as solids. One
panel per time, written with gnuplot (pngcairo); nothing is drawn without gnuplot.
"""
import csv
import math
import os
import shutil
import subprocess
import sys
import tempfile


def rows_at(path, times):
    with open(path) as f:
        reader = csv.reader(f)
        header = next(reader)
        rows = [[float(x) if x else math.nan for x in r] for r in reader if r]  # "" = not reported
    t = header.index("t")
    q = [i for i, name in enumerate(header) if name.startswith("q") and name[1:].isdigit()]
    picked = []
    for wanted in times:
        row = min(rows, key=lambda r: abs(r[t] - wanted))
        picked.append((row[t], [row[i] for i in q]))
    return picked


def main():
    if len(sys.argv) < 6:
        sys.exit(__doc__)
    series, title, out, scale = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
    times = [float(x) for x in sys.argv[5:]]
    if not shutil.which("gnuplot"):
        print("snapshots.py: gnuplot not installed, %s not drawn" % out)
        return
    snaps = rows_at(series, times)
    if len(snaps[0][1]) % 12:
        sys.exit("snapshots.py: %s: %d coordinates are not 12 per body (directors formulation?)"
                 % (series, len(snaps[0][1])))
    # Triads long enough to read against the mechanism: at least a fifth of the largest
    # extent of the centres over all snapshots.
    span = max(max(b[a] for _, q in snaps for b in (q[12 * k:12 * k + 3] for k in range(len(q) // 12)))
               - min(b[a] for _, q in snaps for b in (q[12 * k:12 * k + 3] for k in range(len(q) // 12)))
               for a in range(3))
    scale = max(scale, 0.2 * span)
    tmp = tempfile.mkdtemp()
    script = ["set terminal pngcairo size %d,%d noenhanced" % (520 * min(len(snaps), 3),
                                                                460 * math.ceil(len(snaps) / 3)),
              'set output "%s"' % out,
              "set multiplot layout %d,%d title \"%s\"" % (math.ceil(len(snaps) / 3),
                                                           min(len(snaps), 3),
                                                           title + " (arrows: directors d1 purple, d2 green, d3 blue; dots: centres of mass)"),
              "set view equal xyz", "set view 60,30,1.35", "unset key", "set xyplane 0",
              'set tics font ",8"', "set format x '%g'; set format y '%g'; set format z '%g'",
              "set xlabel 'x'; set ylabel 'y'; set zlabel 'z'"]
    # One box for every panel: the centres and the triads' tips over all snapshots.
    for axis, name in enumerate("xyz"):
        values = [b[axis] + sign * scale * abs(b[3 + 3 * i + axis])
                  for _, q in snaps for b in (q[12 * k:12 * k + 12] for k in range(len(q) // 12))
                  for i in range(3) for sign in (-1, 1)]
        lo, hi = min(values), max(values)
        step = (hi - lo) / 3 or 1.0
        script += ["set %srange [%g:%g]" % (name, lo, hi), "set %stics %.2g" % (name, step)]
    for k, (t, q) in enumerate(snaps):
        bodies = [q[12 * b:12 * b + 12] for b in range(len(q) // 12)]
        axes = os.path.join(tmp, "axes%d.dat" % k)
        centres = os.path.join(tmp, "centres%d.dat" % k)
        with open(axes, "w") as f:
            for b in bodies:
                for i in range(3):
                    d = b[3 + 3 * i:6 + 3 * i]
                    f.write("%g %g %g %g %g %g %d\n" % (b[0], b[1], b[2], scale * d[0],
                                                         scale * d[1], scale * d[2], i + 1))
        with open(centres, "w") as f:
            for b in bodies:
                f.write("%g %g %g\n" % (b[0], b[1], b[2]))
        script += ['set title "t = %.3g s"' % t,
                   'splot "%s" using 1:2:3:4:5:6:7 with vectors lw 3 lc variable, '
                   '"%s" using 1:2:3 with linespoints lw 2 lc rgb "black" pt 7 ps 1.2'
                   % (axes, centres)]
    script.append("unset multiplot")
    subprocess.run(["gnuplot"], input="\n".join(script), text=True, check=False)
    shutil.rmtree(tmp, ignore_errors=True)
    print("snapshots.py: wrote " + out)


if __name__ == "__main__":
    main()
