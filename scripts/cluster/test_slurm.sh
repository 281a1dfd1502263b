#!/usr/bin/env bash
# Runs the sharded-sweep recipe under a real one-node Slurm (Debian's slurm-wlm and munge,
# apt-get install slurm-wlm munge), set up here in a temporary directory on 127.0.0.1 only,
# with private ports and no cgroups; the daemons started here are stopped by PID at the end.
# A 4-shard array is submitted held, task 3 is cancelled with scancel, the rest run; `mbbench
# merge` must refuse and name shard 3; shard 3 is resubmitted alone (--array=3 ... 4); the merge must
# then succeed and equal a one-machine sweep, timings aside. Nothing may listen on a
# non-loopback address.
#
# usage: scripts/cluster/test_slurm.sh [MBBENCH [EXPERIMENT.json]]   (must run as root)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
mbbench=$(realpath -- "${1:-$here/../../build/harness/mbbench}")
experiment=$(realpath -- "${2:-$here/../../docs/experiments/parameter_study.json}")
for tool in munged slurmctld slurmd sbatch scancel sinfo; do
  command -v "$tool" >/dev/null || { echo "$0: $tool not found (apt-get install slurm-wlm munge)" >&2; exit 2; }
done
t=$(mktemp -d /tmp/mbbench-slurm.XXXXXX)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do while kill -0 "$p" 2>/dev/null; do sleep 0.2; done; done
}
trap cleanup EXIT
mkdir -p "$t/state" "$t/spool" "$t/log" "$t/out"
dd if=/dev/urandom of="$t/munge.key" bs=1024 count=1 status=none
chmod 400 "$t/munge.key"
munged --force --key-file="$t/munge.key" --socket="$t/munge.socket" --pid-file="$t/munged.pid" \
  --log-file="$t/log/munged.log" --seed-file="$t/munge.seed" --foreground &
pids+=($!)
port=$((20000 + RANDOM % 20000))
node=$(hostname -s)
export SLURM_CONF=$t/slurm.conf
cat >"$SLURM_CONF" <<CONF
ClusterName=mbbtest
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SrunPortRange=$((port + 2))-$((port + 20))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$t/munge.socket
CredType=cred/munge
StateSaveLocation=$t/state
SlurmdSpoolDir=$t/spool
SlurmctldPidFile=$t/slurmctld.pid
SlurmdPidFile=$t/slurmd.pid
SlurmctldLogFile=$t/log/slurmctld.log
SlurmdLogFile=$t/log/slurmd.log
CommunicationParameters=NoCtldInAddrAny,NoInAddrAny
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
NodeName=$node NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=test Nodes=$node Default=YES MaxTime=INFINITE State=UP
CONF
slurmctld -D -f "$SLURM_CONF" &
pids+=($!)
slurmd -D -f "$SLURM_CONF" -N "$node" &
pids+=($!)
for _ in $(seq 60); do
  sinfo -h -o %t 2>/dev/null | grep -q idle && break
  sleep 1
done
sinfo -h -o %t | grep -q idle || { echo "$0: the node did not come up; logs in $t/log" >&2; exit 1; }
# Nothing listens on a non-loopback address.
if ss -ltnpH | grep -E 'slurm|munge' | awk '$4 !~ /^(127\.0\.0\.1|\[::1\]):/' | grep .; then
  echo "$0: a daemon listens on a non-loopback address" >&2
  exit 1
fi
out=$t/out/sharded
mkdir -p "$out/logs"
sb() { sbatch --parsable --export="ALL,MBBENCH=$mbbench" --output="$out/logs/sweep-%A_%a.log" "$@"; }
job=$(sb --hold --array=0-3 "$here/slurm_sweep.sbatch" "$experiment" "$out" 4)
scancel "${job}_3"
scontrol release "$job"
while squeue -h -j "$job" 2>/dev/null | grep -q .; do sleep 1; done
if "$mbbench" merge "$out" 2>"$t/merge.err"; then
  echo "$0: the merge did not refuse with shard 3 cancelled" >&2
  exit 1
fi
grep -q "shard-3: missing" "$t/merge.err" || { echo "$0: the merge did not name shard 3" >&2; cat "$t/merge.err" >&2; exit 1; }
sb --wait --array=3 "$here/slurm_sweep.sbatch" "$experiment" "$out" 4 >/dev/null
"$mbbench" merge "$out"
"$mbbench" sweep "$experiment" --out "$t/out/one" >/dev/null 2>&1
python3 - "$t/out/one" "$out" <<'PY'
import json, os, sys
one, merged = sys.argv[1], sys.argv[2]
a, b = (json.load(open(os.path.join(d, "index.json")))["runs"] for d in (one, merged))
assert [r["file"] for r in a] == [r["file"] for r in b], "different runs"
def strip(r):
    r.pop("context", None)
    for k in ("wall_time_s", "time_per_step_s", "cpu_time_s"):
        r.get("metrics", {}).pop(k, None)
    return r
for r in a:
    x, y = (strip(json.load(open(os.path.join(d, r["file"])))) for d in (one, merged))
    assert x == y, r["file"]
for name in os.listdir(one):
    if name.endswith(".series.csv"):
        assert open(os.path.join(one, name), "rb").read() == open(os.path.join(merged, name), "rb").read(), name
print(f"test_slurm: {len(a)} runs merged from 4 Slurm shards (one cancelled, resubmitted) equal one machine")
PY
cleanup
pids=()
rm -rf "$t"
