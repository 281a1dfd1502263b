#!/usr/bin/env python3
"""slider_crank_3d: the suite's reference (reference/slider_crank_3d/reference.json) as
outputs, and the largest difference of `mbbench run --series` files from it.

usage: slider_crank_reference.py REFERENCE.json CRANK_COM OUT.csv [SERIES.csv ...]

Writes t, slider_x, crank_angle of the reference entry for crank_com=CRANK_COM to OUT.csv
(slider_x = q14, the slider's x; crank_angle = 2 atan2(e1, e0) - pi/2 of the crank's Euler
parameters q3..q6, unwrapped, as the catalogue's output) and prints, for every series file,
the largest |difference| of slider_x and crank_angle at the reference times that are also
sample times of the series (fixed step: every 0.05 s is a multiple of h). Plain Python.
"""
import csv
import json
import math
import sys


def main():
    if len(sys.argv) < 4:
        print(__doc__)
        return 2
    entries = json.load(open(sys.argv[1]))["references"]
    ref = next(e for e in entries if e["parameters"].get("crank_com") == sys.argv[2])
    rows, last = [], None
    for t, q in zip(ref["times"], ref["positions"]):
        angle = 2.0 * math.atan2(q[4], q[3])
        if last is not None:
            angle += 2.0 * math.pi * round((last - angle) / (2.0 * math.pi))
        last = angle
        rows.append((t, q[14], angle - math.pi / 2))
    with open(sys.argv[3], "w") as f:
        f.write("t,slider_x,crank_angle\n")
        for r in rows:
            f.write("%.17g,%.17g,%.17g\n" % r)
    for path in sys.argv[4:]:
        with open(path) as f:
            reader = csv.reader(f)
            header = next(reader)
            it, ix, ia = header.index("t"), header.index("slider_x"), header.index("crank_angle")
            series = {round(float(r[it]), 9): (float(r[ix]), float(r[ia])) for r in reader if r}
        dx = da = 0.0
        n = 0
        for t, x, a in rows:
            s = series.get(round(t, 9))
            if s is None:
                continue
            dx, da, n = max(dx, abs(s[0] - x)), max(da, abs(s[1] - a)), n + 1
        print("%s vs reference (%d samples): slider_x %.2e m, crank_angle %.2e rad" %
              (path.split("/")[-1], n, dx, da))
    return 0


if __name__ == "__main__":
    sys.exit(main())
