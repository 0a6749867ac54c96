#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# tests/vm/qemu_retry.sh: emu/vm/run starts qemu once more when it was
# killed by a signal before the guest started the command (TCG qemu has
# been seen to segfault while booting), and never once the command has
# started, so the command runs at most once. GDRLAB_VM_QEMU is a wrapper
# around the real qemu that crashes where each case says:
#   1 qemu crashes at every start: one more start, then the harness error
#   2 qemu crashes at the first start: the second boots, the command runs once
#   3 qemu crashes while the command runs: no second start
# Exit: 0 passed, 1 failed, 77 skipped (no VM possible).
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
n=0

check=$(GDRLAB_VM_MODE=vm "$top/emu/vm/run" --check 2>&1)
[ $? -eq 0 ] || { echo "skipped: no VM here: $check"; exit 77; }
real=$(command -v qemu-system-x86_64)

# the wrapper: counts its starts, then crashes or runs the real qemu
cat >"$tmp/qemu" <<EOW
#!/usr/bin/env bash
ulimit -c 0
echo start >>"$tmp/starts"
starts=\$(wc -l <"$tmp/starts")
case \$(cat "$tmp/mode") in
always) kill -SEGV \$\$ ;;
first) [ "\$starts" -gt 1 ] || kill -SEGV \$\$ ;;
running)
    "$real" "\$@" &
    q=\$!
    # the command's own first line, in the shared folder: it has begun
    # (the guest's started marker and a second's sleep were not enough
    # for a TCG guest under CI's load: it had not yet written it)
    while [ ! -s "$tmp/ran" ] && kill -0 \$q 2>/dev/null; do sleep 0.2; done
    kill -SEGV \$q
    wait \$q
    exit \$?
    ;;
esac
exec "$real" "\$@"
EOW
chmod +x "$tmp/qemu"

# vm_case MODE CMD...: emu/vm/run CMD under the wrapper in MODE; sets rc, out
vm_case() {
    echo "$1" >"$tmp/mode"
    shift
    : >"$tmp/starts"
    : >"$tmp/ran"
    out=$(cd "$tmp" && GDRLAB_VM_MODE=vm GDRLAB_VM_QEMU="$tmp/qemu" GDRLAB_VM_SHARE="$tmp" \
        "$top/emu/vm/run" "$@" 2>&1)
    rc=$?
    [ $rc -ne 77 ] || { echo "skipped: $out"; exit 77; }
}

ok() { # ok CONDITION-STATUS DESCRIPTION
    n=$((n + 1))
    if [ "$1" -eq 0 ]; then
        echo "ok $n - $2"
    else
        echo "not ok $n - $2: exit $rc, $(wc -l <"$tmp/starts") starts, ran $(wc -l <"$tmp/ran"):"
        sed 's/^/# /' <<<"$out"
        fail=1
    fi
}
again="qemu stopped by signal 11 before the guest started the command; starting it once more"

vm_case always sh -c "echo ran >>$tmp/ran"
[ $rc -eq 125 ] && [ "$(grep -c "$again" <<<"$out")" -eq 1 ] && [ "$(wc -l <"$tmp/starts")" -eq 2 ] &&
    grep -q "the guest stopped without an exit status (qemu status 139" <<<"$out"
ok $? "qemu crashing at every start: started twice, then the harness's error (125)"

vm_case first sh -c "echo ran >>$tmp/ran; echo hello"
[ $rc -eq 0 ] && grep -q "^hello$" <<<"$out" && grep -q "$again" <<<"$out" &&
    [ "$(wc -l <"$tmp/starts")" -eq 2 ] && [ "$(wc -l <"$tmp/ran")" -eq 1 ]
ok $? "qemu crashing at its first start: the second boots and the command runs once"

vm_case running sh -c "echo ran >>$tmp/ran; sleep 120"
[ $rc -eq 125 ] && ! grep -q "$again" <<<"$out" && [ "$(wc -l <"$tmp/starts")" -eq 1 ] &&
    [ "$(wc -l <"$tmp/ran")" -eq 1 ]
ok $? "qemu crashing while the command runs: not started again"
exit $fail
