#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# tests/emu/test_emu_run.sh GDRLAB: the emu backend on real SoftRoCE, in one
# boot of the harness (emu/vm/run re-runs this script inside it).
#   1-2. the small scenario on the staged and the direct path, forked ranks:
#        exit 0, data_errors 0, verified_bytes as derived below
#   3.   gdrlab compare --backend emu
#   4.   four forked ranks over two devices (--nodes 4)
#   5.   mpirun -np 4 (Open MPI), MPI only for the bootstrap; 6. the wrong -np;
#        a sweep of emu points over mpirun -np 2 (each point forks its ranks)
#   7.   two GPUs per node: intra-node transfers beside staged ones
#   8.   gdrlab calibrate writes a topology the analytic backend reads
#   9.   ... with the NIC's loopback bandwidth from host memory
#   10.  a spoiled byte (GDRLAB_EMU_CORRUPT=2): exit 1, named collective,
#        the count per collective in the JSON
#   11.  a real job's trace (the kineto fixtures, imported) on 4 ranks
#   12.  an alltoall of one rank (--nodes 1): its own block is copied and
#        checked, 0 errors (the copy was skipped with the rest of a
#        one-rank collective, and every byte counted wrong)
# Exit: 0 passed, 1 failed, 77 skipped (no SoftRoCE, or a tool missing).
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"
bin=$(realpath "${1:?usage: test_emu_run.sh GDRLAB}")
in_vm "$0" "$bin"

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
common=(--topology configs/emu-vm.yaml --trace traces/emu-small.jsonl
        --backend emu --devices "$GDRLAB_RXE_A,$GDRLAB_RXE_B" --quiet)


for path in staged direct; do
    t0=$(date +%s.%N)
    if "$bin" run "${common[@]}" --path "$path" --json "$out/$path.json" >/dev/null 2>"$out/err"; then
        check "run --path $path (2 ranks, $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s)" \
            "$out/$path.json" 2
    else
        notok "run --path $path: exit $?: $(head -3 "$out/err")"
    fi
done

if "$bin" compare "${common[@]}" >"$out/compare.txt" 2>"$out/err" &&
    grep -q 'direct.*staged.*staged-memcpy' "$out/compare.txt"; then
    ok "compare --backend emu"
else
    notok "compare --backend emu: $(head -3 "$out/err")"
fi

if "$bin" run "${common[@]}" --nodes 4 --json "$out/four.json" >/dev/null 2>"$out/err"; then
    check "4 forked ranks over 2 devices" "$out/four.json" 4
else
    notok "4 forked ranks: $(head -3 "$out/err")"
fi

if ! command -v mpirun >/dev/null; then
    echo "ok $((n + 1)) - mpirun launch # SKIP mpirun not installed (openmpi-bin)"
    n=$((n + 1))
else
    # The guest kernel boots with no hostname, which Open MPI's node-name
    # parser rejects ("(none)"): give it one, in the throwaway guest only.
    if [ "$GDRLAB_RXE_MODE" = vm ] && [ "$(hostname)" = "(none)" ]; then
        hostname gdrlab-vm
    fi
    # TCP and shared memory only: MPI must not claim the rxe devices.
    if timeout 300 mpirun --allow-run-as-root --oversubscribe -np 4 \
        --mca pml ob1 --mca btl self,vader,tcp --mca osc '^ucx' \
        -x GDRLAB_EMU_DEVICES="$GDRLAB_RXE_A,$GDRLAB_RXE_B" \
        "$bin" run "${common[@]}" --nodes 4 --json "$out/mpi.json" \
        >"$out/mpi.txt" 2>"$out/err"; then
        check "mpirun -np 4" "$out/mpi.json" 4
    else
        notok "mpirun -np 4: exit $?: $(grep -v '^\s*$' "$out/err" | head -5)"
    fi
    if mpirun --allow-run-as-root --oversubscribe -np 3 \
        --mca pml ob1 --mca btl self,vader,tcp --mca osc '^ucx' \
        "$bin" run "${common[@]}" >/dev/null 2>"$out/err"; then
        notok "mpirun -np 3 for a 2-rank plan succeeded"
    elif grep -q 'mpirun started 3 ranks but the plan has 2 .*use mpirun -np 2' "$out/err"; then
        ok "mpirun -np 3 for 2 ranks: $(grep -m1 'mpirun started' "$out/err")"
    else
        notok "mpirun -np 3: $(head -3 "$out/err")"
    fi
    # A sweep of emu points spread over 2 mpirun ranks: each point forks
    # its own 2 emu ranks (its process is no launched rank), no error row.
    for p in staged direct; do
        echo "{\"name\": \"emu-$p\", \"topology\": \"$top/configs/emu-vm.yaml\", \"trace\": \"$top/traces/emu-small.jsonl\", \"backend\": \"emu\", \"path\": \"$p\"}"
    done >"$out/points.jsonl"
    if timeout 300 mpirun --allow-run-as-root --oversubscribe -np 2 \
        --mca pml ob1 --mca btl self,vader,tcp --mca osc '^ucx' \
        -x GDRLAB_EMU_DEVICES="$GDRLAB_RXE_A,$GDRLAB_RXE_B" \
        "$bin" sweep --csv "$out/points.jsonl" >"$out/sweep.csv" 2>"$out/err" &&
        [ "$(grep -c '^"emu-[a-z]*",[0-9]*,"emu-vm",2,2,emu,[a-z]*,[a-z]*,[A-Z0-9]*,[0-9.]*,[0-9.]*,[0-9.]*,[0-9.]*,""$' "$out/sweep.csv")" = 2 ]; then
        ok "mpirun -np 2 sweep of 2 emu points: $(cut -d, -f1,7,11 "$out/sweep.csv" | tail -2 | tr '\n' ' ')"
    else
        notok "mpirun -np 2 sweep of emu points: $(cat "$out/sweep.csv" "$out/err" | head -5)"
    fi
fi

if "$bin" run "${common[@]}" --topology tests/data/two-gpus-one-nic.yaml \
    --json "$out/intra.json" >/dev/null 2>"$out/err"; then
    if grep -q '"path": "intra_node"' "$out/intra.json"; then
        check "2 nodes x 2 GPUs (intra-node and staged)" "$out/intra.json" 4
    else
        notok "2 nodes x 2 GPUs: no intra-node collective"
    fi
else
    notok "2 nodes x 2 GPUs: $(head -3 "$out/err")"
fi

if "$bin" calibrate --devices "$GDRLAB_RXE_A,$GDRLAB_RXE_B" --size 1MiB -o "$out/cal.yaml" >"$out/cal.txt" 2>"$out/err" &&
    grep -q '^direct ' "$out/cal.txt" &&
    "$bin" run --topology "$out/cal.yaml" --trace traces/emu-small.jsonl --quiet >/dev/null 2>>"$out/err"; then
    ok "calibrate: $(grep -m1 'link' "$out/cal.txt" | sed 's/^ *//')"
else
    notok "calibrate: $(head -3 "$out/err")"
fi
# The NIC loopback (RDMA WRITE host -> host on node 0's device, every
# trial's last message read back and compared): a figure, and the file
# says where it came from.
lb=$(sed -n 's/.*host -> host \([0-9.]*\) MB\/s.*/\1/p' "$out/cal.txt")
if [ -n "$lb" ] && awk -v v="$lb" 'BEGIN { exit !(v > 0) }' &&
    grep -q "^# NIC loopback on $GDRLAB_RXE_A " "$out/cal.yaml"; then
    ok "calibrate: NIC loopback on $GDRLAB_RXE_A host -> host $lb MB/s"
else
    notok "calibrate: no NIC loopback figure: $(grep -i loopback "$out/cal.txt" "$out/err" | head -3)"
fi
# Collective 2 is a reduce_scatter on 2 ranks: each checks its own block,
# so one spoiled byte per rank is 2 wrong in collective 2 and 0 elsewhere.
GDRLAB_EMU_CORRUPT=2 "$bin" run "${common[@]}" --path direct --json "$out/bad.json" \
    >"$out/bad.txt" 2>"$out/err"
rc=$?
per=$(grep '"data_errors"' "$out/bad.json" 2>/dev/null | tr -dc '0-9\n' | tr '\n' ' ')
want="2 0 0 2 0 0 0 0 0 0 "
if [ "$rc" -eq 1 ] && [ "$per" = "$want" ] &&
    grep -q "gdrlab run: data corrupted on emu: 2 of [0-9]* bytes checked arrived wrong, first in collective 2 (iteration 0, reduce_scatter of 262144 bytes, direct path)" "$out/err" &&
    grep -q "^data .* 2 wrong" "$out/bad.txt"; then
    ok "a spoiled byte: exit 1, $(cat "$out/err")"
else
    notok "a spoiled byte: exit $rc, data_errors (total, per collective) '$per', want '$want': $(head -2 "$out/err")"
fi
# 11. a real job's trace: the PyTorch-profiler fixtures of tests/data/kineto
# (4 ranks, three communicators) imported and replayed on 4 forked ranks.
# By hand: the world's 1 MiB all-reduce checked by 4 ranks, each pair's
# 2 MiB all-reduce by its 2, the world's 8 KiB all-gather by 4, and the
# pair [2, 3]'s 8 KiB broadcast (from rank 3, PyTorch 2.5's "Rank" 1) by
# its 2.
if "$bin" import kineto tests/data/kineto/rank0.json tests/data/kineto/rank1.json.gz \
        tests/data/kineto/rank2.json tests/data/kineto/rank3.json -o "$out/job.jsonl" 2>"$out/err" &&
    "$bin" run --topology configs/emu-vm.yaml --trace "$out/job.jsonl" --backend emu \
        --devices "$GDRLAB_RXE_A,$GDRLAB_RXE_B" --nodes 4 --quiet --json "$out/job.json" \
        >/dev/null 2>>"$out/err"; then
    want=$((4 * 1048576 + 2 * 2 * 2097152 + 4 * 8192 + 2 * 8192))
    if grep -q '"data_errors": 0,\?$' "$out/job.json" &&
        grep -q "\"verified_bytes\": $want,\?\$" "$out/job.json" &&
        grep -q '"comm": "1"' "$out/job.json"; then
        ok "an imported kineto job on 4 ranks: $want bytes verified, 0 errors, its communicators named"
    else
        notok "an imported kineto job: $(grep -E '"(verified_bytes|data_errors)"' "$out/job.json" | head -2 | tr -d ' \n'), want $want verified"
    fi
else
    notok "an imported kineto job: $(head -3 "$out/err")"
fi
# 12. a one-rank alltoall: the rank's output is its own input, copied
echo '{"iteration": 0, "op": "alltoall", "bytes": 65536, "dtype": "fp32", "ready_us": 0}' >"$out/a2a.jsonl"
if "$bin" run --topology configs/emu-vm.yaml --trace "$out/a2a.jsonl" --backend emu \
        --devices "$GDRLAB_RXE_A" --nodes 1 --quiet --json "$out/a2a.json" >/dev/null 2>"$out/err" &&
    grep -q '"data_errors": 0,\?$' "$out/a2a.json" &&
    grep -q '"verified_bytes": 65536,\?$' "$out/a2a.json"; then
    ok "an alltoall of one rank: 65536 bytes verified, 0 errors"
else
    notok "an alltoall of one rank: $(head -2 "$out/err") $(grep -E '^  "(verified_bytes|data_errors)"' "$out/a2a.json" 2>/dev/null | tr -d ' \n')"
fi
echo "1..$n"
exit $failed
