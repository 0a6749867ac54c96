#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# tests/emu/test_emu_srun.sh GDRLAB: emu runs launched by Slurm's srun, on a
# real one-node Slurm (slurmctld and slurmd, Debian's slurm-wlm) started
# inside the SoftRoCE guest (emu/vm/run re-runs this script there); ranks
# find each other through gdrlab's TCP bootstrap (emu/boot_tcp.c).
#   1. srun -n 2: data_errors 0, verified_bytes as derived below, one
#      report on stdout (rank 1 keeps quiet)
#   2. srun -n 4 over two devices (--nodes 4)
#   3. gdrlab compare under srun -n 2: three runs (direct, staged,
#      staged-memcpy), one port, in each process
#   4. srun -n 3 for a 2-rank plan: "srun started 3 tasks but the plan has
#      2 ... use srun -n 2"
#   5. a rank killed (SIGKILL) mid-run: every rank ends within seconds and
#      rank 0 names the dead one
#   6. rank 0 unreachable (GDRLAB_BOOT_ADDR on no host): both sides give up
#      within GDRLAB_BOOT_TIMEOUT, each with one line
#   7. an sbatch -n 2 script: a plain gdrlab run there forks its ranks (a
#      batch script, and a one-task step in it, are not launches of N)
# The daemons run as root with auth/none (test only), their config, state
# and logs in a temporary folder; all are stopped on exit.
# Exit: 0 passed, 1 failed, 77 skipped (no SoftRoCE, or Slurm not installed).
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"
bin=$(realpath "${1:?usage: test_emu_srun.sh GDRLAB}")

for t in slurmctld slurmd srun sbatch scontrol sinfo; do
    if ! command -v "$t" >/dev/null; then
        echo "skipped: Slurm is not installed ($t missing: apt-get install slurmctld slurmd slurm-client)"
        exit 77
    fi
done
in_vm "$0" "$bin"
if [ "$GDRLAB_RXE_MODE" != vm ]; then
    # Slurm daemons and a cgroup scope are for a throwaway guest only.
    echo "skipped: starts Slurm daemons, which it does only in the VM guest (GDRLAB_VM_MODE=vm)"
    exit 77
fi
plugins=$(dirname "$(find /usr/lib -name auth_none.so -path '*slurm*' 2>/dev/null | head -1)")
if [ "$plugins" = . ]; then
    echo "skipped: this Slurm has no auth/none plugin (Debian 12's slurm-wlm-basic-plugins has)"
    exit 77
fi

now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }
lt() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a < b) }'; }

out=$(mktemp -d)
slurm=$(mktemp -d /tmp/gdrlab-slurm.XXXXXX)
pids=()
stop_slurm() {
    local p
    [ -f "$slurm/slurm.conf" ] && SLURM_CONF=$slurm/slurm.conf timeout 10 scontrol shutdown >/dev/null 2>&1
    for p in "${pids[@]}"; do
        for _ in $(seq 1 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
        kill -9 "$p" 2>/dev/null
    done
    wait 2>/dev/null
    rm -rf "$out" "$slurm"
}
trap stop_slurm EXIT

# The guest boots with no hostname, which Slurm's node name cannot be.
[ "$(hostname)" = "(none)" ] && hostname gdrlab-vm
node=$(hostname)

# slurmd needs a cgroup tree; the guest has none mounted. IgnoreSystemd: no
# dbus here, slurmd makes its scope folder itself.
if ! mountpoint -q /sys/fs/cgroup; then
    mount -t cgroup2 none /sys/fs/cgroup || { echo "not ok 1 - mount cgroup2 failed"; exit 1; }
fi
mkdir -p /sys/fs/cgroup/system.slice

# One node with 8 CPUs whatever the guest has (config_overrides), so that
# srun -n 4 fits; auth/none and cred/none: no munge key to manage.
mkdir -p "$slurm/state" "$slurm/spool"
cat >"$slurm/slurm.conf" <<EOF
ClusterName=gdrlab
SlurmctldHost=$node(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/none
CredType=cred/none
PluginDir=$plugins
StateSaveLocation=$slurm/state
SlurmdSpoolDir=$slurm/spool
SlurmctldPidFile=$slurm/slurmctld.pid
SlurmdPidFile=$slurm/slurmd.pid
SlurmctldLogFile=$slurm/slurmctld.log
SlurmdLogFile=$slurm/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SlurmdParameters=config_overrides
MpiDefault=none
ReturnToService=2
NodeName=$node NodeAddr=127.0.0.1 CPUs=8 State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
printf 'CgroupPlugin=cgroup/v2\nIgnoreSystemd=yes\n' >"$slurm/cgroup.conf"
export SLURM_CONF=$slurm/slurm.conf

t0=$(now)
slurmctld -D -i >"$slurm/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D >"$slurm/slurmd.out" 2>&1 &
pids+=($!)
state=
for _ in $(seq 1 60); do
    state=$(sinfo -h -o %t 2>/dev/null)
    [ "$state" = idle ] && break
    sleep 0.5
done
if [ "$state" != idle ]; then
    echo "not ok 1 - Slurm did not come up (node state '$state'):"
    tail -n 5 "$slurm"/*.out | sed 's/^/#   /'
    exit 1
fi
ok "Slurm $(sinfo -V | cut -d' ' -f2) up in $(since "$t0") s: node $node idle"

common=(--topology configs/emu-vm.yaml --trace traces/emu-small.jsonl
        --backend emu --devices "$GDRLAB_RXE_A,$GDRLAB_RXE_B")


# 1. two tasks; the report once
t0=$(now)
if timeout 300 srun -n 2 "$bin" run "${common[@]}" --json "$out/two.json" \
    >"$out/two.txt" 2>"$out/err"; then
    took=$(since "$t0")
    reports=$(grep -c '^topology ' "$out/two.txt")
    if [ "$reports" = 1 ]; then
        check "srun -n 2 ($took s), one report on stdout" "$out/two.json" 2
    else
        notok "srun -n 2: $reports reports on stdout, expected 1 (rank 1 keeps quiet)"
    fi
else
    notok "srun -n 2: exit $?: $(grep -v '^\s*$' "$out/err" | head -5)"
fi

# 2. four tasks over two devices
if timeout 300 srun -n 4 "$bin" run "${common[@]}" --nodes 4 --quiet \
    --json "$out/four.json" >/dev/null 2>"$out/err"; then
    check "srun -n 4 over 2 devices" "$out/four.json" 4
else
    notok "srun -n 4: exit $?: $(grep -v '^\s*$' "$out/err" | head -5)"
fi

# 3. compare: the backend runs three times in each process, on one port
if timeout 300 srun -n 2 "$bin" compare "${common[@]}" --quiet \
    >"$out/compare.txt" 2>"$out/err" &&
    grep -q 'direct.*staged.*staged-memcpy' "$out/compare.txt"; then
    ok "compare --backend emu under srun -n 2"
else
    notok "compare under srun: $(grep -v '^\s*$' "$out/err" | head -5)"
fi

# 4. the wrong task count
if timeout 120 srun -n 3 "$bin" run "${common[@]}" --quiet >/dev/null 2>"$out/err"; then
    notok "srun -n 3 for a 2-rank plan succeeded"
elif grep -q 'srun started 3 tasks but the plan has 2 .*use srun -n 2' "$out/err"; then
    ok "srun -n 3 for 2 ranks: $(grep -m1 'srun started' "$out/err")"
else
    notok "srun -n 3: $(head -3 "$out/err")"
fi

# 5. a rank killed mid-run
for i in $(seq 0 99); do
    echo "{\"iteration\": $i, \"op\": \"allreduce\", \"bytes\": 1048576, \"dtype\": \"fp32\", \"ready_us\": 0}"
done >"$out/longer.jsonl"
timeout 300 srun -n 2 "$bin" run "${common[@]}" --trace "$out/longer.jsonl" --quiet \
    >/dev/null 2>"$out/err" &
spid=$!
victim=
for _ in $(seq 1 100); do
    # PID JOBID STEPID LOCALID GLOBALID, for the tasks of the running step;
    # a task not yet started can show PID -1: never hand that to kill
    victim=$(scontrol listpids 2>/dev/null | awk '$5 == 1 && $1 ~ /^[0-9]+$/ && $1 > 1 { print $1; exit }')
    if [ -n "$victim" ] && tr '\0' ' ' <"/proc/$victim/cmdline" 2>/dev/null | grep -q "^$bin "; then
        break
    fi
    victim=
    sleep 0.2
done
sleep 4
t0=$(now)
[ -n "$victim" ] && kill -9 "$victim"
wait "$spid"
rc=$?
took=$(since "$t0")
if [ -z "$victim" ]; then
    notok "rank killed under srun: no task 1 in scontrol listpids"
elif [ $rc -ne 0 ] && grep -q "rank 1 (pid $victim on $node) closed its bootstrap connection" "$out/err" &&
    lt "$took" 15; then
    ok "rank killed under srun: ended ${took} s after the kill: $(grep -m1 'rank 1 (pid' "$out/err" | sed 's/^gdrlab[^:]*: //')"
else
    notok "rank killed under srun: exit $rc after ${took} s: $(grep -v '^\s*$' "$out/err" | head -4)"
fi

# 6. rank 0 unreachable: an address on the guest's link where no host is
t0=$(now)
GDRLAB_BOOT_ADDR=10.3.0.99:20999 GDRLAB_BOOT_TIMEOUT=3 \
    timeout 120 srun -n 2 "$bin" run "${common[@]}" --quiet >/dev/null 2>"$out/err"
rc=$?
took=$(since "$t0")
if [ $rc -ne 0 ] && lt "$took" 20 &&
    grep -q 'rank 0: rank 1 of 2 did not connect to port 20999 within 3 s' "$out/err" &&
    grep -q 'rank 1: cannot reach rank 0 at 10.3.0.99:20999 (GDRLAB_BOOT_ADDR) within 3 s' "$out/err"; then
    ok "rank 0 unreachable: both gave up in ${took} s: $(grep -m1 'rank 1: cannot' "$out/err" | sed 's/^gdrlab[^:]*: //')"
else
    notok "rank 0 unreachable: exit $rc after ${took} s: $(grep -v '^\s*$' "$out/err" | head -4)"
fi

# 7. a batch script of 2 tasks: gdrlab there forks, as does a one-task step
cat >"$out/batch.sh" <<EOF
#!/bin/bash
"$bin" run ${common[*]} --quiet --json "$out/batch.json" || exit 1
srun -n 1 "$bin" run ${common[*]} --quiet --json "$out/step1.json"
EOF
if timeout 300 sbatch --wait -n 2 -o "$out/batch.out" "$out/batch.sh" >/dev/null 2>"$out/err" &&
    [ -s "$out/batch.json" ] && [ -s "$out/step1.json" ]; then
    check "sbatch -n 2: plain gdrlab run forks its 2 ranks" "$out/batch.json" 2
    check "sbatch -n 2: srun -n 1 inside forks too" "$out/step1.json" 2
else
    notok "sbatch -n 2: $(cat "$out/err" "$out/batch.out" 2>/dev/null | grep -v '^\s*$' | head -4)"
fi

echo "1..$n"
exit $failed
