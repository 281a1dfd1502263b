#!/usr/bin/env python3
"""A sharded sweep killed at random points (SIGKILL) ends, after resubmits, with every run
exactly once and results equal to one machine (docs/cluster.md, "Killed shards").

Each trial starts the N shards of a tiny experiment as local processes (`mbbench sweep EXP
--shard K/N --out OUT`, no GNU parallel, no Slurm) and kills every one with SIGKILL after a
random delay: before its manifest, between runs, while a result is written, or after it has
finished. Then `mbbench merge OUT` must refuse (exit 1) unless every run happens to be done,
and the shards it names are resubmitted with exactly the commands it prints; between rounds
the merge is sometimes `--partial` (exit 0), so resubmits also run into a merged directory,
and a second round of kills may hit the resubmits. A last round runs unkilled. Then:
  - the merge exits 0, no shard directory and no temporary file is left;
  - OUT holds each result and series file of the one-machine sweep exactly once, the index
    lists each run once, and `mbbench report OUT` counts exactly that many results;
  - every result equals the one-machine result, timings and context aside (runs are
    deterministic), and every series file is byte-identical;
  - resubmitting every shard once more runs nothing (no result file appears in a shard
    directory) and merging again leaves the index unchanged.

usage: cluster_kill_test.py MBBENCH [TRIALS [SEED]]      (default 10 trials, seed from time)
"""
import json
import os
import random
import re
import shlex
import signal
import subprocess
import sys
import tempfile
import time

SHARDS = 3

# Fourteen short runs (a few tens of ms each): two with series files, two problems, an
# adaptive and a fixed-step method, so kills land between and inside runs.
EXPERIMENT = {
    "name": "kill_trials",
    "t_end": 0.5,
    "repeats": 0,
    "runs": [
        {"problem": "planar_pendulum", "method": "odeint-rk4", "set": {"h": 1e-4}, "series": True},
        {"problem": "planar_pendulum", "method": "ida", "set": {"rtol": 1e-8}, "series": True},
    ],
    "matrix": {
        "problems": ["planar_pendulum", "double_pendulum"],
        "methods": ["odeint-rk4", "odeint-dopri5"],
        "set": {"h": [4e-4, 2e-4, 1e-4]},
    },
}


def fail(message):
    print("cluster_kill_test: FAIL: " + message, file=sys.stderr)
    sys.exit(1)


def without_timings(result):
    result.pop("context", None)
    for key in ("wall_time_s", "time_per_step_s", "cpu_time_s"):
        result.get("metrics", {}).pop(key, None)
    return result


def run_killed(commands, max_delay, rng):
    """Starts every command at once and SIGKILLs each after its own random delay; returns
    how many were killed (the others had finished)."""
    procs = [(subprocess.Popen(c, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL),
              rng.uniform(0.0, max_delay)) for c in commands]
    start, killed = time.monotonic(), 0
    for proc, delay in sorted(procs, key=lambda p: p[1]):
        time.sleep(max(0.0, start + delay - time.monotonic()))
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
            killed += 1
    for proc, _ in procs:
        proc.wait()
    return killed


def run_all(commands):
    procs = [subprocess.Popen(c, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
             for c in commands]
    for proc, command in zip(procs, commands):
        _, err = proc.communicate()
        if proc.returncode not in (0, 1):
            fail(f"{shlex.join(command)} exited {proc.returncode}:\n{err}")


def merge(mbbench, out, partial):
    args = [mbbench, "merge", out] + (["--partial"] if partial else [])
    p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return p.returncode, p.stderr


def rerun_commands(err):
    return [shlex.split(m) for m in re.findall(r"^\s+rerun: (.*)$", err, re.M)]


def check_equal_to_one_machine(mbbench, one, out):
    names = lambda d: sorted(n for n in os.listdir(d)
                             if n.endswith(".json") and n not in ("index.json",))
    if names(one) != names(out):
        fail(f"result files differ from one machine: {names(one)} vs {names(out)}")
    leftovers = [n for n in os.listdir(out) if n.startswith("shard-") or ".tmp." in n]
    if leftovers:
        fail(f"left in {out}: {leftovers}")
    a = json.load(open(os.path.join(one, "index.json")))["runs"]
    b = json.load(open(os.path.join(out, "index.json")))["runs"]
    if [r["file"] for r in a] != [r["file"] for r in b]:
        fail("the merged index does not list every run exactly once, in experiment order")
    for r in a:
        x, y = (without_timings(json.load(open(os.path.join(d, r["file"])))) for d in (one, out))
        if x != y:
            fail(f"{r['file']} differs from the one-machine result")
    for name in os.listdir(one):
        if name.endswith(".series.csv"):
            if open(os.path.join(one, name), "rb").read() != open(os.path.join(out, name), "rb").read():
                fail(f"{name} differs from the one-machine series")
    report = subprocess.run([mbbench, "report", out], stdout=subprocess.PIPE, text=True)
    if not report.stdout.startswith(f"{len(a)} results"):
        fail(f"report counts '{report.stdout.strip()}', expected {len(a)} results")
    return len(a)


def trial(mbbench, experiment, one, work, number, max_delay, rng):
    out = os.path.join(work, f"trial-{number}")
    all_shards = [[mbbench, "sweep", experiment, "--shard", f"{k}/{SHARDS}", "--out", out]
                  for k in range(SHARDS)]
    pending, kills, rounds, first_missing = all_shards, 0, 0, None
    while True:
        rounds += 1
        kill = rounds == 1 or (rounds <= 3 and rng.random() < 0.5)
        if kill:
            kills += run_killed(pending, max_delay, rng)
        else:
            run_all(pending)
        partial = rng.random() < 0.4
        code, err = merge(mbbench, out, partial)
        if first_missing is None:
            m = re.search(r"^merge: (\d+) runs? of", err, re.M)
            first_missing = int(m.group(1)) if m else (0 if code == 0 else "all")
        if code == 2:
            fail(f"merge refused as bad input after round {rounds}:\n{err}")
        pending = rerun_commands(err)
        if code == 0 and not pending:
            break
        if not pending:  # no shard wrote a manifest: N is unknown to the merge, resubmit all
            if "wrote its manifest" not in err:
                fail(f"merge exited {code} naming no rerun:\n{err}")
            pending = all_shards
        if not kill and not partial:
            fail(f"runs still missing after an unkilled round:\n{err}")
        if rounds > 8:
            fail("no end after 8 rounds")
    runs = check_equal_to_one_machine(mbbench, one, out)
    index = open(os.path.join(out, "index.json")).read()
    run_all(all_shards)  # a resubmit after the merge runs nothing
    for k in range(SHARDS):
        d = os.path.join(out, f"shard-{k}")
        ran = [n for n in os.listdir(d) if n.endswith(".json") and n[:1].isdigit()]
        if ran:
            fail(f"a resubmit after the merge ran again: {ran}")
    code, err = merge(mbbench, out, False)
    if code != 0 or json.loads(open(os.path.join(out, "index.json")).read())["runs"] != json.loads(index)["runs"]:
        fail(f"merging after the resubmit changed the index or failed ({code}):\n{err}")
    print(f"trial {number}: {kills} shard processes killed ({first_missing} runs missing at the "
          f"first merge), {rounds} rounds, {runs} runs once each")


def main():
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    mbbench = os.path.abspath(sys.argv[1])
    trials = int(sys.argv[2]) if len(sys.argv) > 2 else 10
    seed = int(sys.argv[3]) if len(sys.argv) > 3 else int(time.time())
    rng = random.Random(seed)
    print(f"cluster_kill_test: {trials} trials, {SHARDS} shards, seed {seed}")
    with tempfile.TemporaryDirectory(prefix="mbbench-kill-") as work:
        experiment = os.path.join(work, "kill_trials.json")
        with open(experiment, "w") as f:
            json.dump(EXPERIMENT, f)
        one = os.path.join(work, "one")
        start = time.monotonic()
        subprocess.run([mbbench, "sweep", experiment, "--out", one], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        # A shard takes about a third of one machine's time; kills are spread over a little
        # more than that, so some land before the manifest and some after the end.
        max_delay = 1.5 * (time.monotonic() - start) / SHARDS + 0.05
        for number in range(trials):
            trial(mbbench, experiment, one, work, number, max_delay, rng)
    print(f"cluster_kill_test: {trials} trials passed (seed {seed})")


if __name__ == "__main__":
    main()
