#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The set-up scripts on a fresh machine, with stand-ins on PATH (no
# package is installed, no kernel fetched, no VM booted):
#   1. setup.sh deps and emu/vm/deps install as a user with sudo: sudo's
#      env_reset drops a DEBIAN_FRONTEND set before it, and a debconf
#      question then waits unseen behind >/dev/null; it must reach apt-get
#   2. emu/vm/build-initramfs under a translated locale: ldd's "not a
#      dynamic executable" is translated, and busybox read as not static
#   3. emu/vm/fetch-kernel under a translated locale: apt-cache's
#      "Depends:" is translated, and the kernel apt names was not found
#      (the newest cached one was taken instead)
set -uo pipefail
. "$(dirname "$0")/lib.sh"

shim=$tmp/bin
mkdir -p "$shim"
# a user (uid 1000) with sudo, which resets the environment as Debian's does
cat >"$shim/id" <<'EOS'
#!/bin/sh
[ "$1" = -u ] && { echo 1000; exit 0; }
exec /usr/bin/id "$@"
EOS
cat >"$shim/sudo" <<'EOS'
#!/bin/sh
exec env -i PATH="$PATH" HOME="$HOME" "$@"
EOS
cat >"$shim/dpkg-query" <<'EOS'
#!/bin/sh
exit 1
EOS
cat >"$shim/apt-get" <<EOS
#!/bin/sh
echo "\${DEBIAN_FRONTEND:-unset} \$1" >>"$tmp/apt.log"
EOS
# ldd and apt-cache as they answer in German unless LC_ALL=C
cat >"$shim/ldd" <<'EOS'
#!/bin/sh
if [ "${LC_ALL:-}" = C ]; then echo "	not a dynamic executable" >&2
else echo "	das Programm ist nicht dynamisch gelinkt" >&2; fi
exit 1
EOS
cat >"$shim/apt-cache" <<'EOS'
#!/bin/sh
echo linux-image-amd64
if [ "${LC_ALL:-}" = C ]; then echo "  Depends: linux-image-6.1.0-1-amd64"
else echo "  Hängt ab von: linux-image-6.1.0-1-amd64"; fi
EOS
printf '#!/bin/sh\n' >"$shim/busybox"
chmod +x "$shim"/*

# 1. DEBIAN_FRONTEND past sudo
for cmd in "./setup.sh deps" "emu/vm/deps install"; do
    : >"$tmp/apt.log"
    # shellcheck disable=SC2086 # the command and its argument
    (cd "$src" && env -u DEBIAN_FRONTEND PATH="$shim:$PATH" $cmd) >"$tmp/out" 2>&1 ||
        { echo "FAIL: $cmd as a user with sudo: exit $?"; cat "$tmp/out"; fail=1; }
    has "$tmp/apt.log" "^noninteractive install$"
done

# 2. busybox's linkage under LANG=de_DE.UTF-8
mkdir -p "$tmp/k"
: | gzip >"$tmp/k/modules.cpio.gz"
if command -v cpio >/dev/null; then
    out=$(env -u LC_ALL LANG=de_DE.UTF-8 PATH="$shim:$PATH" TMPDIR="$tmp" \
        "$src/emu/vm/build-initramfs" "$tmp/k" 2>&1)
    [ $? -eq 0 ] && [ -f "$out" ] ||
        { echo "FAIL: build-initramfs in a German locale: $out"; fail=1; }
else
    echo "skip: build-initramfs: cpio not installed (emu/vm/deps)"
fi

# 3. the kernel apt names, not the newest cached
for v in 6.1.0-1-amd64 6.1.0-99-amd64; do
    mkdir -p "$tmp/cache/$v"
    : >"$tmp/cache/$v/vmlinux"
    : >"$tmp/cache/$v/modules.cpio.gz"
done
out=$(env -u LC_ALL LANG=de_DE.UTF-8 PATH="$shim:$PATH" GDRLAB_VM_CACHE="$tmp/cache" \
    "$src/emu/vm/fetch-kernel" 2>&1)
[ "$out" = "$tmp/cache/6.1.0-1-amd64" ] ||
    { echo "FAIL: fetch-kernel in a German locale: '$out', want $tmp/cache/6.1.0-1-amd64"; fail=1; }

# 4. no HOME (a service's or runner's environment): the cache goes under
# TMPDIR, where set -u stopped on the unbound variable
out=$(env -u HOME -u XDG_CACHE_HOME -u GDRLAB_VM_CACHE TMPDIR="$tmp" \
    bash -uc '. "$1/emu/vm/lib.sh" && echo "$VM_CACHE"' sh "$src" 2>&1)
[ "$out" = "$tmp/.cache/gdrlab/vm" ] ||
    { echo "FAIL: emu/vm/lib.sh without HOME: '$out', want $tmp/.cache/gdrlab/vm"; fail=1; }
exit $fail
