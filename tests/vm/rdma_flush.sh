#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# tests/vm/rdma_flush.sh RDMA_FLUSH_CHECK: the real backend's RDMA READ
# flush (real/rdma_flush.c, NCCL's ncclIbIflush) on real rxe, through the
# harness: rdma_flush_check on rxe0 with its RoCEv2 GID. No GPU needed.
# Exit: 0 passed, 1 failed, 77 no SoftRoCE here.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../emu/lib.sh
. "$here/../emu/lib.sh"
check=$(cd "$(dirname "${1:?usage: rdma_flush.sh RDMA_FLUSH_CHECK}")" && pwd)/$(basename "$1")
in_vm "$0" "$check"
gid=$(emu/vm/rxe-setup gid "$GDRLAB_RXE_A" "$GDRLAB_IP_A") || { echo "not ok 1 - no RoCEv2 GID on $GDRLAB_RXE_A"; exit 1; }
exec "$check" "$GDRLAB_RXE_A" "$gid"
