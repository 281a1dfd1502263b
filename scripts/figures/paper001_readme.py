#!/usr/bin/env python3
"""details.md and index.json for paper 001's figures: what each recipe wrote, with the paper's
numbers beside ours, and every result document of the recipes.

Called at the end of every scripts/figures/paper001_*.sh with the paper's output directory
(results/figures/001 under the user's working directory); it reads whatever the recipes have
written so far, so details.md is complete after the last recipe, whichever order they run in.
Numbers of the paper: docs/reproduction.md, section 001. A missing run shows as "(not run)".
usage: paper001_readme.py OUT_DIR
"""
import glob
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import index_runs  # noqa: E402  (beside this script)

OUT = sys.argv[1]
NOT_RUN = "(not run)"


def record(pattern):
    """The first result JSON (not index.json) under OUT/pattern, or None."""
    for path in sorted(glob.glob(os.path.join(OUT, pattern, "*.json"))):
        if not path.endswith("index.json"):
            with open(path) as f:
                return json.load(f)
    return None


def number(x, digits=4):
    return NOT_RUN if x is None else f"{x:.{digits}g}"


def relative_difference(ours, paper):
    return "-" if ours is None else f"{(ours - paper) / paper * 100:+.2f} %"


def metric(rec, *keys):
    value = rec and rec.get("metrics")
    for key in keys:
        value = value.get(key) if isinstance(value, dict) else None
    return value


def stiff_pendulum_limits():
    """(method row label, h_max_stable) pairs parsed from stability_table.md's limits table."""
    path = os.path.join(OUT, "stability_table.md")
    limits = {}
    if os.path.exists(path):
        for line in open(path):
            if line.startswith("## Verdicts"):
                break  # the limits table comes first; the verdict rows have an h column there
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if len(cells) == 6 and re.match(r"^[0-9][0-9.eE+-]*$", cells[3]):
                limits[(cells[0], cells[2])] = float(cells[3])
    return limits


def rows_stiff_pendulum():
    limits = stiff_pendulum_limits()
    for (method, scheme), paper, where in (
        (("central-difference-minimal", "gamma=1/2, beta=0"), 0.6388765, "eq. (18), 2/omega_max"),
        (("newmark-minimal", "fox-goodwin"), 0.78246, "eq. (11) (printed as (10))"),
        (("tangent-newmark", "fox-goodwin"), 0.78246, "s6: as in minimal coordinates"),
    ):
        ours = limits.get((method, scheme))
        yield (f"stiff pendulum, largest stable h [s], {method} {scheme}", where, f"{paper}",
               number(ours, 5), relative_difference(ours, paper))


def rows_double_pendulum():
    tangent = record("double_pendulum/fig17_tangent_fg_5e-4")
    for key, bound in (("position_max", 3e-14), ("velocity_max", 3e-14),
                       ("acceleration_max", 1e-10)):
        ours = metric(tangent, "constraint_residual", key)
        verdict = "-" if ours is None else ("below" if ours <= bound else "ABOVE the bound")
        yield (f"double pendulum, tangent FG h = 5e-4, {key.replace('_max', '')} constraint error",
               "s6, Figs 17-20", f"< {bound:g}", number(ours, 2), verdict)
    for run, gamma, beta, paper in (("fig15_index3_g0.5000005", "0.5000005", "0.2500006",
                                     "unstable"), ("index3_g0.5001", "0.5001", "0.2507", "works")):
        rec = record(f"double_pendulum/{run}")
        ours = rec["status"] if rec else NOT_RUN
        agree = "-" if not rec else ("agrees" if (ours == "ok") == (paper == "works") else "DIFFERS")
        yield (f"double pendulum, classical Newmark ({gamma}, {beta}), h = 1e-3", "s6, Fig 15",
               paper, ours, agree)


def rows_andrews():
    fine = record("andrews/h2e-6")
    ours = metric(fine, "error", "position_max_abs")
    yield ("Andrews, tangent FG h = 2e-6, position error vs the test-set solution", "s6, Figs 24-25",
           "< 2.28e-6", number(ours, 2), "-" if ours is None else
           ("below" if ours < 2.28e-6 else "ABOVE the bound"))
    # Not reproduced: neither the stiffness part alone nor the damped pencil gives the paper's
    # value (mbbench sources, docs/methods/newmark.md, "Andrews").
    why = " (not reproduced: docs/methods/newmark.md)"
    omega = metric(fine, "omega_max")
    yield ("Andrews, maximum natural frequency [rad/s]", "s6, Fig 25", "4503.477", number(omega, 7),
           relative_difference(omega, 4503.477) + (why if omega else ""))
    predicted = metric(fine, "h_stability_limit_predicted")
    yield ("Andrews, predicted stable step (eq. 26) [s]", "s6", "5.44e-4", number(predicted, 3),
           relative_difference(predicted, 5.44e-4) + (why if predicted else ""))
    for h in ("5e-4", "6e-4"):
        rec = record(f"andrews/h{h}")
        ours = rec["status"] if rec else NOT_RUN
        yield (f"Andrews, tangent FG h = {h}", "s6, Figs 26-27", "stable", ours,
               "-" if not rec else ("agrees" if ours == "ok" else "DIFFERS"))


def rows_linkages():
    path = os.path.join(OUT, "linkages", "best.txt")
    if not os.path.exists(path):
        return
    for line in open(path):
        prob, scheme, n = line.split()
        name = "double four-bar" if prob == "dfb" else "Bricard"
        timed = record(f"linkages/timed_{prob}_{scheme}")
        wall = metric(timed, "wall_time_s", "median")
        paper = "0.4 s" if prob == "dfb" else "0.357 s"
        ours = NOT_RUN if n == "none" else f"h = 10/{n}, median {number(wall, 3)} s"
        yield (f"{name}, tangent-newmark {scheme}: largest passing step, wall time",
               "s7 (paper's C code, other machine)", paper, ours,
               "times are not comparable across machines; see linkages.md")


FIGURES = (
    ("Figs 3-7, 12-13", "stiff pendulum time series at the paper's steps "
     "(h = 0.01 ... 6 s, T0 = 0.1 N m, one torque period 62.83 s)", "fig0*_*/, fig1*_*/ (theta.png)"),
    ("Figs 8-10", "torque study, trapezoidal h = 0.1 s, T0 = 3 ... 9 N m, 600 s",
     "torque_*/, stability_table.md"),
    ("stability limits", "growth criterion, bisection to 1e-4 relative", "stability_table.md"),
    ("Figs 15-22", "double pendulum, classical Newmark h = 1e-3, tangent FG h = 5e-4 and 5e-3",
     "double_pendulum/, double_pendulum.md"),
    ("Figs 24-27", "Andrews squeezer, tangent FG h = 2e-6, 5e-4, 6e-4 to t = 0.03 s",
     "andrews/ (joint_F_h*.png, omega_h*.png)"),
    ("s7 efficiency", "double four-bar and Bricard, 10 s, step scans h = 10/N",
     "linkages/, linkages.md"),
)


def main():
    rows = [*rows_stiff_pendulum(), *rows_double_pendulum(), *rows_andrews(), *rows_linkages()]
    with open(os.path.join(OUT, "details.md"), "w") as f:
        f.write("# Paper 001 (tangent-manifold Newmark): figures and numbers\n\n")
        f.write("Written by scripts/figures/paper001_*.sh (`mbbench figures 001`); each recipe "
                "rewrites this file from what exists, so a row reads \"(not run)\" until its "
                "recipe has run.\n\n## Figures\n\n| paper | what, with steps and parameters | "
                "files |\n|---|---|---|\n")
        for fig, what, files in FIGURES:
            f.write(f"| {fig} | {what} | {files} |\n")
        f.write("\n## The paper's numbers beside ours\n\n| quantity | where in the paper | paper | "
                "ours | difference |\n|---|---|---|---|---|\n")
        for row in rows:
            f.write("| " + " | ".join(row) + " |\n")
    index_runs.main(OUT, "figures 001")


if __name__ == "__main__":
    main()
