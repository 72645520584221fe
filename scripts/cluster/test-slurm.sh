#!/usr/bin/env bash
# A real Slurm cluster runs our batch: batch.sbatch as a job array on a one-node Slurm started
# on this machine (munged, slurmctld and slurmd with a throwaway configuration under a temporary
# folder), one array task cancelled mid-capture with scancel, the array submitted again, and then
# every capture checked to be done exactly once.
#
#   scripts/cluster/test-slurm.sh [--keep]
#
# Six captures of six templeRing-12 images each, --sparse-only, over an array of 3 tasks (shard
# I runs capture-I and capture-(I+3)). Task 1 is cancelled while its first capture runs:
# scancel sends SIGTERM to the task's processes (SIGKILL after KillWait, 30 s here), photogrammetry
# batch sends it on to its reconstruct child, waits for it, records the capture "interrupted" and
# exits 143. The same sbatch is then submitted again: the finished captures are skipped, the rest
# run. Checked: each capture's report.json is complete; the captures finished before the
# resubmission were not written again (their report.json is byte for byte the same, their record
# says finished_before); the cancelled capture ran again; no reconstruct process outlived its
# task; and `photogrammetry batch-summary` counts all six ok, none twice or missing.
#
# Needs root (the daemons run as root), the release build (`swift build -c release`; or
# PHOTOGRAMMETRY=/path/to/photogrammetry) and Debian's slurm-wlm and munge, installed with
# apt-get when missing. No systemd and no cgroups: proctrack/linuxproc, task/none. The daemons
# listen on free ports of 127.0.0.1 only, and are stopped and the folder removed on exit
# (--keep keeps the folder: configuration, daemon logs, task logs, records).
set -euo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
binary=${PHOTOGRAMMETRY:-$repo/.build/release/photogrammetry}
keep=0
[ "${1:-}" = "--keep" ] && keep=1

started=$(date +%s)
say() { printf '[%4ds] %s\n' "$(( $(date +%s) - started ))" "$*"; }
fail() { say "FAIL: $*"; exit 1; }

[ "$(id -u)" -eq 0 ] || fail "run as root: slurmd and munged run as root here"
[ -x "$binary" ] || fail "no $binary: build first (swift build -c release) or set PHOTOGRAMMETRY"
binary=$(readlink -f "$binary")

# --- Slurm and MUNGE from Debian, when missing ---------------------------------------------------
if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null || ! command -v munged >/dev/null \
   || ! command -v sbatch >/dev/null; then
    say "installing slurm-wlm and munge"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends slurm-wlm munge >/dev/null
fi
say "$(slurmctld -V), munge $(munged -V 2>&1 | awk '{print $2; exit}')"

# --- A throwaway cluster -------------------------------------------------------------------------
work=$(mktemp -d /tmp/photogrammetry-slurm.XXXXXX)
pids=()
cleanup() {
    local status=$?
    set +e
    if [ -n "${SLURM_CONF:-}" ] && [ -n "${jobs_submitted:-}" ]; then
        for job in $jobs_submitted; do scancel "$job" 2>/dev/null; done
        # The tasks' processes end with their step (KillWait), before the daemons go.
        for _ in $(seq 1 40); do
            [ -z "$(squeue -h 2>/dev/null)" ] && break
            sleep 1
        done
    fi
    for (( i=${#pids[@]}-1; i>=0; i-- )); do kill "${pids[i]}" 2>/dev/null; done
    for pid in "${pids[@]}"; do
        for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -9 "$pid" 2>/dev/null
        wait "$pid" 2>/dev/null
    done
    if [ "$keep" -eq 1 ]; then
        echo "kept: $work"
    else
        rm -rf "$work"
    fi
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

mkdir -p "$work"/{munge,etc,state,spool,log,tasks,captures}
chmod 755 "$work" "$work/munge"
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
ctld_port=$(free_port)
slurmd_port=$(free_port)
while [ "$slurmd_port" = "$ctld_port" ]; do slurmd_port=$(free_port); done

head -c 1024 /dev/urandom > "$work/munge/munge.key"
chmod 400 "$work/munge/munge.key"
munged --foreground --force --key-file="$work/munge/munge.key" --socket="$work/munge/munge.socket" \
    --pid-file="$work/munge/munged.pid" --seed-file="$work/munge/munged.seed" --log-file="$work/log/munged.log" \
    >>"$work/log/munged.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 50); do [ -S "$work/munge/munge.socket" ] && break; sleep 0.1; done
[ -S "$work/munge/munge.socket" ] || { cat "$work/log/munged.log"; fail "munged did not start"; }

# The node as slurmd sees this machine (CPUs, RealMemory), named localhost.
node=$(slurmd -C | head -1 | sed -e 's/^NodeName=[^ ]*//')
hostname=$(hostname -s)
cat > "$work/etc/slurm.conf" <<EOF
ClusterName=photogrammetry-test
SlurmctldHost=$hostname(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$work/munge/munge.socket
CredType=cred/munge
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/log/slurmctld.log
SlurmdLogFile=$work/log/slurmd.log
PlugStackConfig=$work/etc/plugstack.conf
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU_Memory
SchedulerType=sched/backfill
MpiDefault=none
SwitchType=switch/none
ReturnToService=2
# scancel: SIGTERM, then SIGKILL after this many seconds: time for batch to stop its child.
KillWait=30
MinJobAge=3600
MailProg=/bin/true
NodeName=localhost NodeAddr=127.0.0.1 $node State=UNKNOWN
PartitionName=test Nodes=localhost Default=YES MaxTime=INFINITE State=UP
EOF
: > "$work/etc/plugstack.conf"
export SLURM_CONF=$work/etc/slurm.conf

slurmctld -D -i -f "$SLURM_CONF" >>"$work/log/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D -N localhost -f "$SLURM_CONF" >>"$work/log/slurmd.out" 2>&1 &
pids+=($!)
say "slurmctld on 127.0.0.1:$ctld_port, slurmd on :$slurmd_port, node localhost:$node"
for _ in $(seq 1 60); do
    state=$(sinfo -h -n localhost -o %T 2>/dev/null || true)
    [ "$state" = "idle" ] && break
    sleep 1
done
if [ "$state" != "idle" ]; then
    tail -n 20 "$work"/log/*.log
    fail "the node did not come up (state '$state')"
fi
say "node localhost idle"

# --- Six small captures --------------------------------------------------------------------------
mapfile -t images < <(ls "$repo/Datasets/templeRing-12/images"/*.png | sort)
[ "${#images[@]}" -eq 12 ] || fail "Datasets/templeRing-12/images should hold 12 PNGs"
for k in 0 1 2 3 4 5; do
    mkdir -p "$work/captures/capture-$k"
    for i in 0 1 2 3 4 5; do cp "${images[$((k + i))]}" "$work/captures/capture-$k/"; done
done
captures=$work/captures
out=$work/out
say "6 captures of 6 templeRing-12 images each in $captures"

# --- Submit, cancel one task mid-capture, let the rest finish ------------------------------------
submit() {
    (cd "$work/tasks" && PHOTOGRAMMETRY=$binary sbatch --parsable --array=0-2 --cpus-per-task=1 --mem=1G \
        --output="$work/tasks/$1-%A_%a.log" "$repo/scripts/cluster/batch.sbatch" "$captures" "$out" --sparse-only)
}
wait_for() {  # wait_for SECONDS DESCRIPTION COMMAND...
    local seconds=$1 what=$2
    shift 2
    for _ in $(seq 1 $((seconds * 5))); do "$@" && return 0; sleep 0.2; done
    fail "$what: not within $seconds s"
}
job_gone() { [ -z "$(squeue -h -j "$1" 2>/dev/null)" ]; }
ended() {  # ended NAME JOB: waits for the array submitted as NAME to end, shows its tasks' states and logs
    wait_for 300 "job array $2 to end" job_gone "$2"
    for t in 0 1 2; do say "task ${2}_$t: $(task_state "${2}_$t")"; done
    for t in 0 1 2; do
        echo "---- task ${2}_$t log"
        sed 's/^/    /' "$work/tasks/$1-${2}_$t.log"
    done
}
task_state() {  # "COMPLETED, exit 0"; a task's exit status is batch's own (143 after SIGTERM)
    scontrol show job "$1" 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p' | head -1 | tr '\n' ','
    scontrol show job "$1" 2>/dev/null | sed -n 's/.* ExitCode=\([0-9]*\):\([0-9]*\).*/ exit \1, signal \2/p' | head -1
}
record_status() {  # record_status SHARD CAPTURE
    python3 - "$out/batch-shard-$1-of-3.json" "$2" <<'EOF' 2>/dev/null || true
import json, sys
record = json.load(open(sys.argv[1]))
print(next((c["status"] for c in record["captures"] if c["name"] == sys.argv[2]), ""))
EOF
}
record_field() {  # record_field SHARD KEY: a top-level value of the shard's record
    python3 - "$out/batch-shard-$1-of-3.json" "$2" <<'EOF' 2>/dev/null || true
import json, sys
print(json.load(open(sys.argv[1])).get(sys.argv[2]))
EOF
}
reconstruct_pid() {  # the reconstruct process of a capture ("" for any), if one runs
    local entry command
    for entry in /proc/[0-9]*; do
        command=$(tr '\0' ' ' 2>/dev/null < "$entry/cmdline") || continue
        case "$command" in
            *" reconstruct $captures/$1"*) echo "${entry#/proc/}"; return;;
        esac
    done
}
alive() {  # a zombie has ended
    [ -n "$1" ] && [ -r "/proc/$1/stat" ] && [ "$(sed 's/.*) //' "/proc/$1/stat" | cut -d' ' -f1)" != Z ]
}
capture_1_running() { [ "$(record_status 1 capture-1)" = running ]; }

first=$(submit first)
jobs_submitted=$first
say "submitted job array $first (tasks ${first}_0, ${first}_1, ${first}_2: shards 0, 1, 2 of 3)"

# Task 1 runs capture-1, then capture-4: cancel it while capture-1's reconstruct runs.
wait_for 120 "capture-1 running in task ${first}_1" capture_1_running
# The pid is read once, by the same look that finds the process: a second look may come after it
# ended, and an empty pid would pass for a live one below.
child=""
for _ in $(seq 1 600); do
    child=$(reconstruct_pid capture-1)
    [ -n "$child" ] && break
    sleep 0.1
done
[ -n "$child" ] || fail "capture-1's reconstruct process did not appear within 60 s"
sleep 0.5
scancel "${first}_1"
say "scancel ${first}_1 while capture-1 ran (its reconstruct: pid $child)"
wait_for 60 "task ${first}_1 to end" job_gone "${first}_1"
alive "$child" && fail "reconstruct pid $child outlived its cancelled task"
shard_1=$(record_field 1 interrupted_by)
say "task ${first}_1 ended ($(task_state "${first}_1")); reconstruct pid $child gone; its record:" \
    "capture-1 $(record_status 1 capture-1), capture-4 $(record_status 1 capture-4), interrupted_by $shard_1"
case "$(task_state "${first}_1")" in *"exit 143"*) ;; *) fail "task ${first}_1 should have exited 143 (batch's own exit after SIGTERM)";; esac
[ "$shard_1" = SIGTERM ] || fail "the record of task ${first}_1 should say interrupted_by SIGTERM"
for capture in capture-1 capture-4; do
    [ "$(record_status 1 $capture)" != running ] || fail "$capture left \"running\" in the record"
done
grep -q "photogrammetry: interrupted by SIGTERM" "$work/tasks/first-${first}_1.log" || fail "no interruption line in task 1's log"
ended first "$first"

# What is done now, to tell later whether the resubmission wrote it again.
declare -A digest_before
for k in 0 1 2 3 4 5; do
    report=$out/capture-$k/report.json
    digest_before[capture-$k]=$( [ -f "$report" ] && sha256sum "$report" | cut -d' ' -f1 || echo none)
done

# --- Submit the same again -----------------------------------------------------------------------
second=$(submit second)
jobs_submitted="$first $second"
say "resubmitted the same array: job $second"
ended second "$second"
[ -z "$(reconstruct_pid "")" ] || fail "a reconstruct process is still running"

# --- Every capture done exactly once -------------------------------------------------------------
echo "---- photogrammetry batch-summary $out"
summary_status=0
"$binary" batch-summary "$out" | sed 's/^/    /' || summary_status=$?
[ "$summary_status" -eq 0 ] || fail "batch-summary exited $summary_status"
digests=$(for k in 0 1 2 3 4 5; do
    report=$out/capture-$k/report.json
    echo "capture-$k ${digest_before[capture-$k]} $( [ -f "$report" ] && sha256sum "$report" | cut -d' ' -f1 || echo none)"
done)
python3 - "$out" "$digests" <<'EOF'
import glob, json, os, sys
out, digests = sys.argv[1], sys.argv[2]
before = {line.split()[0]: line.split()[1:] for line in digests.splitlines()}
names = ["capture-%d" % k for k in range(6)]
problems = []
entries = {}
for path in sorted(glob.glob(os.path.join(out, "batch-shard-*-of-3.json"))):
    record = json.load(open(path))
    if record["finished_at"] is None or record["interrupted_by"] is not None:
        problems.append("%s: not finished (interrupted_by %s)" % (os.path.basename(path), record["interrupted_by"]))
    for entry in record["captures"]:
        entries.setdefault(entry["name"], []).append((os.path.basename(path), entry))
summary = json.load(open(os.path.join(out, "batch-summary.json")))
counts = summary["counts"]
for name in names:
    places = entries.get(name, [])
    if len(places) != 1:
        problems.append("%s: in %d record files" % (name, len(places)))
        continue
    file, entry = places[0]
    report = json.load(open(os.path.join(out, name, "report.json")))
    digest_first, digest_now = before[name]
    finished_first = digest_first != "none"
    ran = "skipped (done in the first submission)" if entry["finished_before"] else "reconstructed in the resubmission"
    print("    %-10s %-24s %s, report complete=%s, %d/%d registered, %s" % (
        name, file, entry["status"], report.get("complete"), report.get("images_registered", 0),
        report.get("images_total", 0), ran))
    if entry["status"] != "ok" or report.get("complete") is not True:
        problems.append("%s: %s, report complete=%s" % (name, entry["status"], report.get("complete")))
    if finished_first and (not entry["finished_before"] or digest_first != digest_now):
        problems.append("%s: finished in the first submission, but written again" % name)
    if not finished_first and entry["finished_before"]:
        problems.append("%s: unfinished after the first submission, yet skipped" % name)
row = {r["name"]: r for r in summary["captures"]}
if counts.get("ok") != 6 or counts.get("twice") or counts.get("missing") or any(row[n]["flag"] for n in names):
    problems.append("batch-summary disagrees: %s" % counts)
if sum(1 for n in names if before[n][0] == "none") != 6 - counts.get("finished_before", -1):
    problems.append("batch-summary's finished_before %s does not match the first submission" % counts.get("finished_before"))
for problem in problems:
    print("FAIL: " + problem)
sys.exit(1 if problems else 0)
EOF
say "PASS: every capture done exactly once; $(python3 -c 'import json,sys; c=json.load(open(sys.argv[1]))["counts"]; print("batch-summary: %d ok (%d finished in the first submission), %d twice, %d missing" % (c["ok"], c["finished_before"], c["twice"], c["missing"]))' "$out/batch-summary.json")"
say "total $(( $(date +%s) - started )) s"
