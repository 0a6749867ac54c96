#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# tests/emu/test_emu_run.sh GDRLAB: the emu backend on real SoftRoCE, in one
# boot of the harness (emu/vm/run re-runs this script inside it).
#   1-2. the small scenario on the staged and the direct path, forked ranks:
#        exit 0, data_errors 0, verified_bytes as derived below
#   3.   gdrlab compare --backend emu
#   4.   four forked ranks over two devices (--nodes 4)
#   5.   mpirun -np 4 (Open MPI), MPI only for the bootstrap; 6. the wrong -np
#   7.   two GPUs per node: intra-node transfers beside staged ones
#   8.   gdrlab calibrate writes a topology the analytic backend reads
# Exit: 0 passed, 1 failed, 77 skipped (no SoftRoCE, or a tool missing).
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
bin=$(realpath "${1:?usage: test_emu_run.sh GDRLAB}")

if [ -z "${GDRLAB_RXE_MODE:-}" ]; then
    exec "$top/emu/vm/run" "$here/test_emu_run.sh" "$bin"
fi
cd "$top"

# verified_bytes of traces/emu-small.jsonl on N ranks, by hand: every rank
# checks its whole buffer after allreduce, all_gather, broadcast and
# alltoall (N x bytes), reduce_scatter checks one block per rank (bytes in
# all), send/recv only the receiver (bytes).
#   allreduce 1 MiB fp32 x2 iterations, 512 KiB bf16 x2: N x 3 MiB
#   reduce_scatter 256 KiB: 256 KiB; all_gather, broadcast, alltoall 256 KiB: N x 768 KiB
#   sendrecv 128 KiB: 128 KiB
expect() { echo $(( $1 * (3 * 1048576 + 3 * 262144) + 262144 + 131072 )); }

failed=0 n=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
notok() { n=$((n + 1)); echo "not ok $n - $*"; failed=1; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
common=(--topology configs/emu-vm.yaml --trace traces/emu-small.jsonl
        --backend emu --devices "$GDRLAB_RXE_A,$GDRLAB_RXE_B" --quiet)

# check NAME FILE RANKS: exit status, data_errors, verified_bytes
check() {
    local name=$1 json=$2 want
    want=$(expect "$3")
    if ! grep -q '"data_errors": 0,\?$' "$json"; then
        notok "$name: data_errors not 0: $(grep -E 'data_errors|verified' "$json" | tr -d ' \n')"
    elif ! grep -q "\"verified_bytes\": $want,\?\$" "$json"; then
        notok "$name: verified_bytes $(grep verified_bytes "$json" | tr -dc 0-9), expected $want"
    else
        ok "$name: $want bytes verified, 0 errors"
    fi
}

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
    grep -q 'staged.*direct' "$out/compare.txt"; then
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
echo "1..$n"
exit $failed
