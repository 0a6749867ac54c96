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
#   perftest_pair DIR SDEV SGID CDEV CGID SIP TOOL ARGS...
#                         a perftest server on SDEV and its client on CDEV,
#                         their outputs in DIR/server and DIR/client

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# awk's numbers in the C locale (de_DE reads "2.5" as 2): the guest has no
# LANG, but a host-mode run keeps the caller's
export LC_ALL=C

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

# perftest_pair DIR SERVER_DEV SERVER_GID CLIENT_DEV CLIENT_GID SERVER_IP TOOL ARGS...
# Status: the client's, else the server's. perftest times with the CPU's
# cycle counter, whose rate it fits against gettimeofday (perftest's
# get_clock.c, a linear regression it refuses below r^2 0.9). Under qemu
# TCG on a busy host that fit can fail, and the tool then reports 0 MB/s:
# a fault of the clock, not of the link, so such a run is tried again (3
# tries), saying so on stderr. Any other failure is returned at once.
perftest_pair() {
    local dir=$1 sdev=$2 sgid=$3 cdev=$4 cgid=$5 ip=$6 tool=$7 try client server
    shift 7
    for try in 1 2 3; do
        timeout 120 "$tool" -d "$sdev" -x "$sgid" "$@" >"$dir/server" 2>&1 &
        server=$!
        # The server's out-of-band TCP listener shows in ss (rdma_cm ones would not).
        for _ in $(seq 200); do
            ss -ltn 2>/dev/null | grep -q ':18515 ' && break
            sleep 0.1
        done
        timeout 120 "$tool" -d "$cdev" -x "$cgid" "$@" "$ip" >"$dir/client" 2>&1
        client=$?
        wait $server
        server=$?
        grep -q 'Correlation coefficient' "$dir/client" "$dir/server" || break
        [ $try = 3 ] ||
            echo "# $tool: perftest could not fit its cycle counter's rate (try $try of 3): again" >&2
    done
    [ $client = 0 ] || return $client
    return $server
}
