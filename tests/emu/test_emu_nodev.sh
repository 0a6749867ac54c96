#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# tests/emu/test_emu_nodev.sh GDRLAB: on a host with no RDMA device (no
# rxe, no NIC), --backend emu fails with exit 1 and one line that says what
# to do. Skipped (77) where the host has RDMA devices.
set -uo pipefail
bin=${1:?usage: test_emu_nodev.sh GDRLAB}
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
if "$bin" backends | grep -q '^emu  *available'; then
    echo "skipped: this host has RDMA devices"
    exit 77
fi
err=$("$bin" run --backend emu --topology configs/emu-vm.yaml \
    --trace traces/emu-small.jsonl --quiet 2>&1 >/dev/null)
rc=$?
want="gdrlab run: backend emu cannot run here: no RDMA device found (SoftRoCE: run through emu/vm/run)"
if [ $rc -eq 1 ] && [ "$err" = "$want" ]; then
    echo "ok 1 - no device: $err"
    exit 0
fi
echo "not ok 1 - no device: exit $rc: $err"
exit 1
