#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# tests/vm/smoke.sh [RC_WRITE_CHECK]: prove that real SoftRoCE works through
# the harness. Run from anywhere; it re-runs itself through emu/vm/run (host
# rxe or the qemu guest), so ctest can call it directly (label vm).
#   1. ibv_devices lists rxe0 and rxe1
#   2. ib_write_bw from rxe0 to rxe1 across the veth pair prints a bandwidth
#   3. RC_WRITE_CHECK (tests/vm/rc_write_check.c, built by CMake when
#      libibverbs-dev is found) RDMA WRITEs both ways and checks every byte
# Exit: 0 all passed, 1 a check failed, 77 no SoftRoCE here (skipped), else
# the harness's status (124 timeout, 125 harness failure).
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../emu/lib.sh
. "$here/../emu/lib.sh"
rcw=${1:-}
[ -z "$rcw" ] || rcw=$(cd "$(dirname "$rcw")" && pwd)/$(basename "$rcw")
in_vm "$0" ${rcw:+"$rcw"}

A=$GDRLAB_RXE_A B=$GDRLAB_RXE_B
echo "# mode $GDRLAB_RXE_MODE: $A on $GDRLAB_IP_A, $B on $GDRLAB_IP_B"

devs=$(ibv_devices 2>&1)
if grep -qw "$A" <<<"$devs" && grep -qw "$B" <<<"$devs"; then
    ok "ibv_devices lists $A and $B"
else
    notok "ibv_devices lists $A and $B"
    sed 's/^/# /' <<<"$devs"
fi

# The RoCE v2 GID of each end, looked up by address (index varies).
gid_a=$("$top/emu/vm/rxe-setup" gid "$A" "$GDRLAB_IP_A")
gid_b=$("$top/emu/vm/rxe-setup" gid "$B" "$GDRLAB_IP_B")
log=$(mktemp -d "${TMPDIR:-/tmp}/gdrlab-smoke.XXXXXX")
trap 'rm -rf "$log"' EXIT
perftest_pair "$log" "$B" "$gid_b" "$A" "$gid_a" "$GDRLAB_IP_B" ib_write_bw -s 65536 -n 500 -F
status=$?
# Result line: bytes iterations peak-BW average-BW msg-rate; average in MB/s.
bw=$(awk '$1 == 65536 && NF >= 5 { print $4 }' "$log/client")
if [ $status = 0 ] && awk -v b="$bw" 'BEGIN { exit !(b + 0 > 0) }'; then
    ok "ib_write_bw $A -> $B across the veth: $bw MB/s average (65536 B messages)"
else
    notok "ib_write_bw $A -> $B (status $status)"
    sed 's/^/# client: /' "$log/client"
    sed 's/^/# server: /' "$log/server"
fi

if [ -z "$rcw" ]; then
    ok "rc_write_check # SKIP not built (no libibverbs-dev at configure time)"
elif out=$(timeout 120 "$rcw" 2>&1); then
    ok "$out"
else
    notok "rc_write_check (status $?)"
    sed 's/^/# /' <<<"$out"
fi

echo "1..$n"
exit $failed
