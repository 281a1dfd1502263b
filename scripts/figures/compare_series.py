#!/usr/bin/env python3
"""Largest position difference between two `mbbench run --series` CSV files.

usage: compare_series.py A.series.csv B.series.csv [COLUMN ...]

Series A is interpolated at every sample time of B (inside A's range) by cubic Hermite
interpolation on its positions q_i and velocities v_i (interpolation error ~ h^4 |q''''| / 384
for A's step h), and the largest absolute difference of the redundant positions q0.. (or of
the named columns, then by linear interpolation) is printed with the time where it occurs.
Plain Python, no numpy.
"""
import bisect
import csv
import sys


def read(path):
    with open(path) as f:
        rows = list(csv.reader(f))
    header = rows[0]
    data = [[float(x) if x else float("nan") for x in r] for r in rows[1:] if r]  # empty: not reported
    return header, data


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    ha, a = read(sys.argv[1])
    hb, b = read(sys.argv[2])
    columns = sys.argv[3:]
    ta = [r[0] for r in a]
    worst, worst_t = 0.0, 0.0
    if columns:
        ia = [ha.index(c) for c in columns]
        ib = [hb.index(c) for c in columns]
    else:
        n = sum(1 for c in ha if c.startswith("q") and c[1:].isdigit())
        qa = [ha.index("q%d" % i) for i in range(n)]
        va = [ha.index("v%d" % i) for i in range(n)]
        qb = [hb.index("q%d" % i) for i in range(n)]
    for row in b:
        t = row[0]
        if t < ta[0] or t > ta[-1]:
            continue
        k = max(1, min(len(ta) - 1, bisect.bisect_left(ta, t)))
        t0, t1 = ta[k - 1], ta[k]
        h = t1 - t0
        s = (t - t0) / h if h > 0 else 0.0
        r0, r1 = a[k - 1], a[k]
        if columns:
            for i, j in zip(ia, ib):
                x = (1 - s) * r0[i] + s * r1[i]
                d = abs(x - row[j])
                if d > worst:
                    worst, worst_t = d, t
            continue
        h00 = 2 * s**3 - 3 * s**2 + 1
        h10 = s**3 - 2 * s**2 + s
        h01 = -2 * s**3 + 3 * s**2
        h11 = s**3 - s**2
        for i in range(len(qa)):
            x = (h00 * r0[qa[i]] + h10 * h * r0[va[i]] + h01 * r1[qa[i]] +
                 h11 * h * r1[va[i]])
            d = abs(x - row[qb[i]])
            if d > worst:
                worst, worst_t = d, t
    print("max_abs_difference %.3e at t = %.6g" % (worst, worst_t))
    return 0


if __name__ == "__main__":
    sys.exit(main())
