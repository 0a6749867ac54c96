#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# gdrlab sweep under srun, without Slurm: each rank is started here with
# the environment srun gives a task of an N-task step, and the ranks meet
# over gdrlab's TCP bootstrap on 127.0.0.1 (GDRLAB_BOOT_ADDR). Rank 0
# prints the rows of a plain sweep (wall_s aside), the others nothing, all
# with the same status; a rank that never starts, or dies mid-sweep, ends
# the others with one line within a bounded time. (A real srun:
# tests/emu/test_emu_srun.sh, in the VM.)
# usage: test_sweep_srun.sh GDRLAB SOURCE_DIR
set -u
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

port=$((21000 + RANDOM % 9000))
pids=()
# task RANK SIZE OUT ERR args...: one task, in the background (pids)
task() {
    local r=$1 n=$2 out=$3 err=$4
    shift 4
    env SLURM_JOB_ID=1 SLURM_STEP_ID=0 SLURM_PROCID="$r" SLURM_LOCALID="$r" \
        SLURM_STEP_NUM_TASKS="$n" SLURM_STEP_NUM_NODES=1 \
        GDRLAB_BOOT_ADDR="127.0.0.1:$port" "$gdrlab" sweep "$@" >"$out" 2>"$err" &
    pids[r]=$!
}
# step N WANT WHAT args...: N tasks; each must exit WANT; only rank 0
# writes on stdout ($tmp/out); stderr of rank r in $tmp/err.r
step() {
    local n=$1 want=$2 what=$3 r rc
    shift 3
    port=$((port + 1))
    for ((r = 0; r < n; r++)); do
        task "$r" "$n" "$tmp/out.$r" "$tmp/err.$r" "$@"
    done
    for ((r = 0; r < n; r++)); do
        wait "${pids[r]}"; rc=$?
        [ "$rc" = "$want" ] ||
            { echo "FAIL: $what: rank $r exit $rc, want $want"; cat "$tmp/err.$r"; fail=1; }
        [ "$r" = 0 ] || [ ! -s "$tmp/out.$r" ] ||
            { echo "FAIL: $what: rank $r wrote on stdout"; fail=1; }
    done
    cp "$tmp/out.0" "$tmp/out"
}

spread_points "$tmp/points.jsonl"
expect 0 "plain sweep" -- "$gdrlab" sweep --csv "$tmp/points.jsonl"
cp "$tmp/out" "$tmp/plain.csv"
step 3 0 "3 tasks" --csv "$tmp/points.jsonl"
same_rows "3 tasks" "$tmp/plain.csv" "$tmp/out"
step 9 0 "9 tasks, 7 points" -j 1 --csv "$tmp/points.jsonl"
same_rows "9 tasks, 7 points" "$tmp/plain.csv" "$tmp/out"

spread_points "$tmp/bad.jsonl" bad
expect 1 "plain sweep, a point fails" -- "$gdrlab" sweep --csv "$tmp/bad.jsonl"
cp "$tmp/out" "$tmp/plain-bad.csv"
step 3 1 "3 tasks, a point fails" --csv "$tmp/bad.jsonl"
same_rows "3 tasks, a point fails" "$tmp/plain-bad.csv" "$tmp/out"

# A sweep file that differs by host: every rank stops, rank 0 says why.
head -6 "$tmp/points.jsonl" >"$tmp/six.jsonl"
port=$((port + 1))
task 0 2 "$tmp/out.0" "$tmp/err.0" "$tmp/points.jsonl"
task 1 2 "$tmp/out.1" "$tmp/err.1" "$tmp/six.jsonl"
wait "${pids[0]}"; rc0=$?
wait "${pids[1]}"; rc1=$?
[ "$rc0$rc1" = 22 ] || { echo "FAIL: files differ: exit $rc0 $rc1, want 2 2"; fail=1; }
has "$tmp/err.0" "rank 1 read 6 points from .*, rank 0 7: is the file the same on every host?"
[ ! -s "$tmp/err.1" ] || { echo "FAIL: files differ: rank 1 said:"; cat "$tmp/err.1"; fail=1; }

# Rank 2 of 3 never starts: the others give up after GDRLAB_BOOT_TIMEOUT.
export GDRLAB_BOOT_TIMEOUT=2
SECONDS=0
port=$((port + 1))
task 0 3 "$tmp/out.0" "$tmp/err.0" "$tmp/points.jsonl"
task 1 3 "$tmp/out.1" "$tmp/err.1" "$tmp/points.jsonl"
wait "${pids[0]}"; rc0=$?
wait "${pids[1]}"; rc1=$?
[ "$rc0$rc1" = 11 ] && [ "$SECONDS" -le 10 ] ||
    { echo "FAIL: a rank missing: exit $rc0 $rc1 after $SECONDS s"; fail=1; }
has "$tmp/err.0" "rank 0: rank 2 of 3 did not connect to port $port within 2 s"
has "$tmp/err.1" "^gdrlab sweep: rank 1: "
unset GDRLAB_BOOT_TIMEOUT

# Rank 2 (and its points) killed mid-sweep: 4 points a rank of about a
# second each, a 64 MiB alltoall on 64 nodes of h100-roce-clos, planned
# send by send over ECMP's uplinks (a Llama-2-7B DDP point on 1024 nodes,
# 1 s once, took 0.25 s as the analytic backend grew faster, and a rank's
# four could end before the kill).
echo '{"iteration": 0, "op": "alltoall", "bytes": 67108864, "dtype": "fp32"}' >"$tmp/slow-trace.jsonl"
for i in $(seq 12); do
    echo "{\"name\": \"s$i\", \"topology\": \"$src/configs/h100-roce-clos.yaml\", \"trace\": \"slow-trace.jsonl\", \"nodes\": 64}"
done >"$tmp/slow.jsonl"
port=$((port + 1))
for r in 0 1 2; do
    task "$r" 3 "$tmp/out.$r" "$tmp/err.$r" -j 1 "$tmp/slow.jsonl"
done
sleep 1.5
disown "${pids[2]}" # no "Killed" line from bash
kill -KILL "${pids[2]}" $(pgrep -P "${pids[2]}")
SECONDS=0
wait "${pids[0]}"; rc0=$?
wait "${pids[1]}"; rc1=$?
[ "$rc0$rc1" = 11 ] && [ "$SECONDS" -le 10 ] ||
    { echo "FAIL: a rank killed: exit $rc0 $rc1 after $SECONDS s"; fail=1; }
for r in 0 1; do
    has "$tmp/err.$r" "^gdrlab sweep: rank 2 (pid ${pids[2]} on .*) closed its bootstrap connection: it died"
done
[ ! -s "$tmp/out.0" ] || { echo "FAIL: a rank killed: rows printed"; fail=1; }
exit $fail
