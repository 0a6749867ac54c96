# SPDX-License-Identifier: MIT
# shellcheck shell=bash
#
# Sourced by the SoftRoCE tests (tests/emu/test_emu_*.sh, tests/vm/smoke.sh)
# and bench/bench_emu.sh:
#   in_vm SCRIPT ARGS...  unless already inside the harness, run SCRIPT
#                         again through emu/vm/run (which exits with its
#                         status); then cd to the repository root
#   ok, notok             TAP lines; $failed is 1 after a notok, $n counts
#   emu_small_verified N  verified_bytes of traces/emu-small.jsonl on N ranks
#   check NAME JSON N     a run report: data_errors 0, verified_bytes as above

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

in_vm() {
    if [ -z "${GDRLAB_RXE_MODE:-}" ]; then
        exec "$top/emu/vm/run" "$(realpath "$1")" "${@:2}"
    fi
    cd "$top" || exit 1
}

failed=0 n=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
notok() { n=$((n + 1)); echo "not ok $n - $*"; failed=1; }

# By hand: every rank checks its whole buffer after allreduce, all_gather,
# broadcast and alltoall (N x bytes), reduce_scatter checks one block per
# rank (bytes in all), send/recv only the receiver (bytes).
#   allreduce 1 MiB fp32 x2 iterations, 512 KiB bf16 x2: N x 3 MiB
#   reduce_scatter 256 KiB: 256 KiB; all_gather, broadcast, alltoall 256 KiB: N x 768 KiB
#   sendrecv 128 KiB: 128 KiB
emu_small_verified() { echo $(( $1 * (3 * 1048576 + 3 * 262144) + 262144 + 131072 )); }

check() {
    local name=$1 json=$2 want
    want=$(emu_small_verified "$3")
    if ! grep -q '"data_errors": 0,\?$' "$json"; then
        notok "$name: data_errors not 0: $(grep -E 'data_errors|verified' "$json" | tr -d ' \n')"
    elif ! grep -q "\"verified_bytes\": $want,\?\$" "$json"; then
        notok "$name: verified_bytes $(grep verified_bytes "$json" | tr -dc 0-9), expected $want"
    else
        ok "$name: $want bytes verified, 0 errors"
    fi
}
