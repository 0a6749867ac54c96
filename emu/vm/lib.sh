# SPDX-License-Identifier: MIT
# Shared by the emu/vm scripts (sourced, not run).

# HOME may be unset (a service or CI runner's environment), which set -u
# would stop on: the cache then goes under the temporary folder.
VM_CACHE=${GDRLAB_VM_CACHE:-${XDG_CACHE_HOME:-${HOME:-${TMPDIR:-/tmp}}/.cache}/gdrlab/vm}

# Exit codes of emu/vm/run besides the command's own status.
VM_EXIT_SKIP=77      # neither host rxe nor qemu: the caller should report "skipped"
VM_EXIT_TIMEOUT=124  # the guest (or host command) ran past GDRLAB_VM_TIMEOUT
VM_EXIT_HARNESS=125  # the harness itself failed (fetch, boot, rxe set-up)

vm_say() { printf 'emu/vm: %s\n' "$*" >&2; }
vm_die() { printf 'emu/vm: error: %s\n' "$*" >&2; exit "$VM_EXIT_HARNESS"; }

# depmod, modprobe and ip live in sbin, which a user's PATH may lack.
PATH=$PATH:/usr/sbin:/sbin
