#!/usr/bin/env python3
"""mbbench against the peer engines (Simbody, MuJoCo) at equal accuracy, interleaved
(docs/performance.md, "mbbench against Simbody and MuJoCo"; run through
scripts/bench/peers.sh, which documents the usage).

For every case (a catalogue problem with its parameters and the accuracy criteria of
docs/fastest.md, "Criteria per problem for the peer table"):
  1. `mbbench fastest` finds each engine's cheapest passing configuration:
       mbbench  its own explicit methods (odeint-dopri5 / -rk4 / -rkf78, recursive with each
                integrator) in the problem's formulation and, where the problem takes it,
                in formulation=joint-tree;
       simbody  the `simbody` peer (both its knobs: rtol and a fixed h);
       mujoco   the `mujoco` peer with each of its integrators (rk4, euler, implicit), with
                loops=connect (near-hard soft loops) where the mechanism has a loop;
     an engine's winner is its passing configuration with the smallest search median;
  2. the three winners are timed interleaved: ROUNDS rounds, in each round one
     `mbbench run --repeats INNER` per engine in turn; the time of a configuration is the
     minimum and the median of all its timed repeats (metrics.wall_time_s.times);
  3. a markdown table: per case the criteria, each engine's configuration, steps and
     min / median time, and the ratios peer / mbbench (above 1: mbbench is faster).
Times are measured, never asserted; the search and timing JSON stay in OUT for reading.
"""
import json
import os
import statistics
import subprocess
import sys
import time

# id, problem, --param list, criteria, mechanism has loops, problem takes formulation=
# joint-tree, --t-end (None: the problem's horizon), and whether mbbench's search includes
# the dense routes (False for pendulum_chain N = 1000: the odeint methods solve the
# joint-tree's dense M(q) q'' = Q, O(N^3) per evaluation, and `recursive` with IDA forms a
# dense 2N x 2N difference-quotient Jacobian; one trial takes minutes. The O(N) recursion
# with rk4 and dopri5 is mbbench's candidate there).
E = "energy_drift"
O = "output_error"
CASES = [
    # The cases and criteria of docs/fastest.md, "Criteria per problem for the peer table".
    ("simple_pendulum", "simple_pendulum_iftomm", [], {E: 1e-3, O: 1e-3}, False, True, None, True),
    ("pendulum_chain N=4", "pendulum_chain", ["N=4"], {E: 1e-3, O: 1e-3}, False, False, None, True),
    ("pendulum_chain N=10", "pendulum_chain", ["N=10"], {E: 5e-3}, False, False, 10.0, True),
    ("pendulum_chain N=100", "pendulum_chain", ["N=100"], {E: 0.5}, False, False, 10.0, True),
    ("pendulum_chain N=1000", "pendulum_chain", ["N=1000"], {E: 50.0}, False, False, 10.0, False),
    ("spatial_pendulum", "spatial_pendulum", [], {E: 1e-4, O: 1e-4}, False, False, None, True),
    ("double_four_bar", "double_four_bar", [], {E: 1e-3, O: 1e-3}, True, True, None, True),
    ("bricard", "bricard", [], {E: 1e-3, O: 1e-3}, True, True, None, True),
    # The other problems a peer models (decided by running them: not_applicable otherwise);
    # criteria: 1e-3 J and 1e-3 in the outputs (docs/fastest.md says why).
    ("planar_pendulum", "planar_pendulum", [], {E: 1e-3, O: 1e-3}, False, False, None, True),
    ("physical_pendulum", "physical_pendulum", [], {E: 1e-3, O: 1e-3}, False, False, None, True),
    ("double_pendulum", "double_pendulum", [], {E: 1e-3, O: 1e-3}, False, False, None, True),
    ("stiff_pendulum", "stiff_pendulum", [], {E: 1e-3, O: 1e-3}, False, False, None, True),
    ("four_bar", "four_bar", [], {E: 1e-3, O: 1e-3}, True, True, None, True),
    ("n_four_bar", "n_four_bar", [], {E: 1e-3, O: 1e-3}, True, True, None, True),
    ("gyro_top", "gyro_top", [], {E: 1e-3, O: 1e-3}, False, True, None, True),
    ("spin_top", "spin_top", [], {E: 1e-3, O: 1e-3}, False, False, None, True),
    ("cylindrical_pair", "cylindrical_pair", [], {E: 1e-3, O: 1e-3}, False, True, None, True),
    ("planar_pair", "planar_pair", [], {E: 1e-3, O: 1e-3}, False, True, None, True),
    ("flyball_governor", "flyball_governor", [], {E: 1e-3, O: 1e-3}, False, True, None, True),
    ("six_body_linkage", "six_body_linkage", [], {E: 1e-3, O: 1e-3}, True, True, None, True),
    ("slider_crank_3d", "slider_crank_3d", [], {E: 1e-3, O: 1e-3}, True, True, None, True),
]
QUICK_CASES = ["simple_pendulum"]
MBBENCH_METHODS = ["odeint-dopri5", "odeint-rk4", "odeint-rkf78"]
TREE_INTEGRATORS = ["rk4", "dopri5", "ida"]
MUJOCO_INTEGRATORS = ["rk4", "euler", "implicit"]


class Bench:
    def __init__(self, binary, out, quick, budget, search_repeats, rounds, inner, cases):
        self.bin, self.out, self.quick = binary, out, quick
        self.budget, self.search_repeats = budget, search_repeats
        self.rounds, self.inner, self.cases = rounds, inner, cases
        self.methods = self.registered_methods()
        self.tree_integrators = self.integrators_of("recursive")

    def call(self, args):
        return subprocess.run([self.bin] + args, capture_output=True, text=True)

    def registered_methods(self):
        listing = self.call(["list", "methods"]).stdout
        return {line.split()[0] for line in listing.splitlines() if line[:1].isalpha()}

    def integrators_of(self, method):
        """The `integrator` values `method` offers (mbbench list methods)."""
        lines = self.call(["list", "methods"]).stdout.splitlines()
        for k, line in enumerate(lines):
            if line.split()[:1] != [method]:
                continue
            for sub in lines[k + 1:]:
                if sub[:1].isalpha():
                    break
                if sub.strip().startswith("integrator="):
                    values = sub[sub.index("{") + 1:sub.index("}")].split("|")
                    return [v for v in TREE_INTEGRATORS if v in values]
        return []

    def fastest(self, case, tag, methods, sets=(), params=()):
        """One `mbbench fastest` search; the passing results, each with how to rerun it."""
        _, problem, case_params, criteria, _, _, t_end, _ = case
        methods = [m for m in methods if m in self.methods]
        if not methods:
            return []
        out = os.path.join(self.out, slug(case[0]), tag)
        args = ["fastest", "-p", problem, "--out", out, "--repeats", str(self.search_repeats),
                "--budget", str(self.budget)]
        for p in list(case_params) + list(params):
            args += ["--param", p]
        if t_end is not None:
            args += ["--t-end", repr(t_end)]
        for name, bound in criteria.items():
            args += ["--criterion", f"{name}={bound!r}"]
        for m in methods:
            args += ["-m", m]
        for s in sets:
            args += ["--set", s]
        run = self.call(args)
        with open(out + ".log", "w") as log:
            log.write(" ".join(args) + "\n" + run.stdout + run.stderr)
        path = os.path.join(out, f"fastest_{problem}.json")
        if not os.path.exists(path):
            return [{"failed": f"fastest exited {run.returncode}: {last_line(run.stderr)}"}]
        found = []
        for r in json.load(open(path))["methods"]:
            if not r["passed"]:
                found.append({"failed": f"{r['method']} {' '.join(sets)}: {r['reason']}"})
                continue
            knob_sets = [f"{r['knob']}={r['setting']!r}"] if r["knob"] else []
            if r.get("atol") is not None:
                knob_sets.append(f"atol={r['atol']!r}")
            found.append({"method": r["method"], "sets": knob_sets + list(sets),
                          "params": list(case_params) + list(params), "steps": r["steps"],
                          "search_median": r["wall_time_s"]["median"]})
        return found

    def engine_winners(self, case):
        """mbbench's, Simbody's and MuJoCo's cheapest passing configuration (or why none)."""
        _, _, _, _, loops, tree, _, dense = case
        quick = self.quick
        mb = []
        if dense:
            mb += self.fastest(case, "mbbench", MBBENCH_METHODS[:2] if quick else MBBENCH_METHODS)
        if not quick:
            for integrator in self.tree_integrators:
                if integrator == "ida" and not dense:
                    continue
                mb += self.fastest(case, f"recursive-{integrator}", ["recursive"],
                                   [f"integrator={integrator}"])
            if tree and dense:
                mb += self.fastest(case, "mbbench-joint-tree", MBBENCH_METHODS,
                                   params=["formulation=joint-tree"])
        sb = self.fastest(case, "simbody", ["simbody"])
        mj = []
        for integrator in MUJOCO_INTEGRATORS[:1] if quick else MUJOCO_INTEGRATORS:
            sets = [f"integrator={integrator}"] + (["loops=connect"] if loops else [])
            mj += self.fastest(case, f"mujoco-{integrator}", ["mujoco"], sets)
        return {"mbbench": best(mb, self.methods), "simbody": best(sb, self.methods, "simbody"),
                "mujoco": best(mj, self.methods, "mujoco")}

    def time_once(self, case, config, where):
        _, problem, _, _, _, _, t_end, _ = case
        args = ["run", "-p", problem, "-m", config["method"], "--repeats", str(self.inner),
                "--out", where]
        for p in config["params"]:
            args += ["--param", p]
        for s in config["sets"]:
            args += ["--set", s]
        if t_end is not None:
            args += ["--t-end", repr(t_end)]
        self.call(args)
        for name in os.listdir(where):
            if name.endswith(".json") and not name.startswith("index"):
                doc = json.load(open(os.path.join(where, name)))
                if doc["status"] == "ok":
                    return doc["metrics"]["wall_time_s"]["times"], doc["metrics"]["steps"]
        return [], None

    def time_interleaved(self, case, winners):
        """ROUNDS rounds, each engine once per round in turn: every timed repeat kept."""
        times = {e: [] for e in winners if "method" in winners[e]}
        for k in range(self.rounds):
            for engine in times:
                where = os.path.join(self.out, slug(case[0]), f"time-{engine}-{k}")
                got, steps = self.time_once(case, winners[engine], where)
                times[engine] += got
                winners[engine]["steps_timed"] = steps
        for engine, ts in times.items():
            if ts:
                winners[engine]["min"] = min(ts)
                winners[engine]["median"] = statistics.median(ts)
                winners[engine]["repeats"] = len(ts)
        return winners


def best(found, registered, engine=None):
    if engine is not None and engine not in registered:
        return {"why": f"`{engine}` not built"}
    ok = [f for f in found if "method" in f]
    if not ok:
        reasons = sorted({f["failed"] for f in found if "failed" in f})
        return {"why": "; ".join(reasons)[:300] or "not searched"}
    return min(ok, key=lambda f: f["search_median"])


def slug(text):
    return text.replace(" ", "_").replace("=", "")


def last_line(text):
    lines = [l for l in text.splitlines() if l.strip()]
    return lines[-1] if lines else ""


def describe(config):
    if "method" not in config:
        return f"cannot pass: {config['why']}"
    parts = [config["method"]] + [p for p in config["params"]] + config["sets"]
    return " ".join(shorten(p) for p in parts)


def shorten(setting):
    key, _, value = setting.partition("=")
    try:
        return f"{key}={float(value):.3g}"
    except ValueError:
        return setting


def criteria_text(criteria):
    names = {E: "E", O: "out"}
    return ", ".join(f"{names[k]} {v:g}" for k, v in criteria.items())


def time_text(config):
    if "min" not in config:
        return "-" if "method" not in config else "timing run failed"
    return f"{config['min']:.3g} / {config['median']:.3g}"


def ratio_text(peer, ours):
    if "min" not in peer or "min" not in ours:
        return "-"
    return f"{peer['min'] / ours['min']:.1f} / {peer['median'] / ours['median']:.1f}"


def table(rows, header_note):
    lines = [header_note, "",
             "| problem | criteria | mbbench (steps) | mbbench min / median [s] | Simbody (steps) | "
             "Simbody min / median [s] | MuJoCo (steps) | MuJoCo min / median [s] | "
             "Simbody / mbbench (min / median) | MuJoCo / mbbench (min / median) |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for case, w in rows:
        cells = [case[0], criteria_text(case[3])]
        for engine in ["mbbench", "simbody", "mujoco"]:
            c = w[engine]
            steps = f" ({c.get('steps_timed') or c['steps']})" if "method" in c else ""
            cells += [describe(c).replace("|", "/") + steps, time_text(c)]
        cells += [ratio_text(w["simbody"], w["mbbench"]), ratio_text(w["mujoco"], w["mbbench"])]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main():
    binary = os.path.abspath(os.environ["MBBENCH"])
    out = os.path.abspath(os.environ.get("OUT", "results/bench/peers"))
    quick = os.environ.get("QUICK", "") not in ("", "0")
    only = os.environ.get("CASES", "")
    wanted = QUICK_CASES if quick and not only else [c for c in only.split(",") if c]
    cases = [c for c in CASES if not wanted or c[0] in wanted]
    bench = Bench(binary, out, quick, budget=int(os.environ.get("BUDGET", "20")),
                  search_repeats=int(os.environ.get("SEARCH_REPEATS", "1" if quick else "3")),
                  rounds=int(os.environ.get("ROUNDS", "2" if quick else "5")),
                  inner=int(os.environ.get("INNER", "1" if quick else "3")), cases=cases)
    os.makedirs(out, exist_ok=True)
    rows = []
    started = time.time()
    text = ""
    for case in cases:
        t0 = time.time()
        winners = bench.time_interleaved(case, bench.engine_winners(case))
        rows.append((case, winners))
        print(f"peers: {case[0]} done in {time.time() - t0:.0f} s", file=sys.stderr)
        text = write(out, rows, bench, quick, started, done=len(rows) == len(cases))
    sys.stdout.write(text)


def write(out, rows, bench, quick, started, done):
    """The table of the cases so far into OUT/peers.md (and the winners into peers.json)."""
    load = open("/proc/loadavg").read().split()[:3] if os.path.exists("/proc/loadavg") else []
    note = (f"Measured {time.strftime('%Y-%m-%d %H:%M')} on {os.cpu_count()} cores, load "
            f"average {' '.join(load)} at the end, {time.time() - started:.0f} s in all; "
            f"times: min / median of {bench.rounds} interleaved rounds x {bench.inner} repeats"
            + (" (QUICK)" if quick else "") + ("" if done else " (incomplete: still running)"))
    text = table(rows, note)
    with open(os.path.join(out, "peers.md"), "w") as f:
        f.write(text)
    with open(os.path.join(out, "peers.json"), "w") as f:
        json.dump([{"case": c[0], "winners": w} for c, w in rows], f, indent=1)
    return text


if __name__ == "__main__":
    main()
