#!/usr/bin/env python3
"""Markdown tables from the output of scripts/bench/performance.sh (docs/performance.md)."""
import json
import math
import os
import sys

out = sys.argv[1]
def cpu_model():
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown CPU"


print("Machine: %s, %d cores; commit %s; `mbbench fastest` timings are medians of the\n"
      "timed repeats (min beside them); ratios are Simbody's median over the method's.\n" % (
          cpu_model(), os.cpu_count() or 0,
          os.popen("git rev-parse --short HEAD").read().strip()))

def fastest_table(directory, problem, label):
    path = os.path.join(directory, "fastest_%s.json" % problem)
    if not os.path.exists(path):
        return
    d = json.load(open(path))
    crit = ", ".join("%s <= %g" % kv for kv in d["criteria"].items())
    print("### %s, %g s: %s%s\n" % (problem, d["t_end"], crit, label))
    peer = next((m for m in d["methods"] if m["method"] == "simbody" and m["passed"]), None)
    names = list(d["criteria"])
    print("| method | setting | steps | median [s] | min [s] | %s | Simbody / method |" %
          " | ".join(names))
    print("|---|---|---|---|---|%s---|" % ("---|" * len(names)))
    for m in d["methods"]:
        if not m["passed"]:
            continue
        t = m["wall_time_s"]
        ratio = "%.2f" % (peer["wall_time_s"]["median"] / t["median"]) if peer else "-"
        setting = "%s = %.4g%s" % (m["knob"], m["setting"], "" if m["bracketed"] else " (coarsest)")
        vals = " | ".join("%.2e (%.3gx)" % (m["values"][c], m["margins"][c]) for c in names)
        print("| %s | %s | %d | %.4g | %.4g | %s | %s |" % (
            m["method"], setting, m["steps"], t["median"], t["min"], vals, ratio))
    print()
    for m in d["methods"]:
        for a in m.get("alternatives", []):  # the knob not chosen (methods with both modes)
            if a["passed"]:
                print("- %s with %s: passes at %.4g, %d steps, median %.4g s" % (
                    m["method"], a["knob"], a["setting"], a["steps"], a["median_s"]))
            else:
                print("- %s with %s: cannot pass (%s)" % (
                    m["method"], a["knob"], a["reason"].split("\n")[0][:200]))
    for m in d["methods"]:
        if not m["passed"]:
            print("- %s cannot pass: %s" % (m["method"], m["reason"].split("\n")[0][:300]))
    print()


for problem in ["bricard", "double_four_bar", "andrews_squeezer", "slider_crank_3d"]:
    fastest_table(out, problem, "")
    # The same search with --set samples=interpolate (problems with a tabulated reference).
    fastest_table(os.path.join(out, "interpolate"), problem, " (samples=interpolate)")
    # The linkages in joint coordinates with loop-closure constraints (formulation joint-tree).
    fastest_table(os.path.join(out, "joint-tree"), problem, " (formulation=joint-tree)")

scaling = os.path.join(out, "scaling.tsv")
if os.path.exists(scaling):
    rows = {}
    for line in open(scaling):
        n_links, method, f = line.rstrip("\n").split("\t")
        r = json.load(open(f))
        per_step = r["metrics"].get("time_per_step_s")
        rows.setdefault(method, []).append((int(n_links), r["problem"]["n"], per_step, r["status"]))
    print("### n_four_bar scaling (h = 1e-3, 20 steps; time per step, median)\n")
    print("| method | " + " | ".join("N=%d (n=%d)" % (a, b) for a, b, _, _ in rows[next(iter(rows))]) + " | fit p |")
    print("|---|" + "---|" * (len(rows[next(iter(rows))]) + 1))
    for method, pts in rows.items():
        good = [(n, t) for _, n, t, s in pts if t and s == "ok"]
        p = "-"
        if len(good) >= 2:
            xs = [math.log(n) for n, _ in good]
            ys = [math.log(t) for _, t in good]
            mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
            p = "%.2f" % (sum((x - mx) * (y - my) for x, y in zip(xs, ys)) /
                          sum((x - mx) ** 2 for x in xs))
        cells = ["%.3g us" % (t * 1e6) if t else s for _, _, t, s in pts]
        print("| %s | %s | %s |" % (method, " | ".join(cells), p))
    print()

for name, label in [("main_repeats0.time", "mbbench run --repeats 0"), ("main.time", "mbbench run")]:
    path = os.path.join(out, name)
    if os.path.exists(path):
        wall, user = open(path).read().split()[:2]
        print("- `%s`: %s s wall, %s s user CPU" % (label, wall, user))
