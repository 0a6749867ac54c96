#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# tests/vm/hostname.sh: the guest resolves the host's name even where the
# host's /etc/hosts does not have it (emu/vm/init gives the guest a copy
# with it added, and says so in one line), so that Open MPI and the srun
# bootstrap do not wait out a lookup time-out each. A host name of our own
# (a UTS namespace of this test only) that no /etc/hosts lists.
# Exit: 0 passed, 1 failed, 77 skipped (no unshare, or no VM possible).
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
name=gdrlab-test-$$-nohosts
if ! command -v unshare >/dev/null || ! unshare -u true 2>/dev/null; then
    echo "skipped: needs unshare -u (util-linux, as root)"
    exit 77
fi
if grep -qw -- "$name" /etc/hosts; then
    echo "not ok 1 - $name is in /etc/hosts already"
    exit 1
fi
out=$(unshare -u sh -c 'hostname "$1" && cd "$2" && GDRLAB_VM_MODE=vm emu/vm/run getent hosts "$1"' \
    sh "$name" "$top" 2>&1)
rc=$?
[ $rc -eq 77 ] && { echo "skipped: $out"; exit 77; }
if [ $rc -eq 0 ] && grep -q "^127.0.1.1 *$name\$" <<<"$out" &&
    grep -q "^gdrlab-vm: the host's /etc/hosts does not name '$name': the guest resolves it to 127.0.1.1" <<<"$out"; then
    echo "ok 1 - the guest resolves $name, not in the host's /etc/hosts, and says so"
    exit 0
fi
echo "not ok 1 - guest lookup of $name: exit $rc:"
sed 's/^/# /' <<<"$out"
exit 1
