#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# gdrlab probe from the command line: exit statuses, outputs, the fixtures.
# usage: test_probe.sh GDRLAB SOURCE_DIR
set -u
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
sys=$src/tests/data/sysfs

expect 0 "help" -- "$gdrlab" probe --help
has "$tmp/out" "usage: gdrlab probe"
expect 2 "unknown option" -- "$gdrlab" probe --frobnicate
has "$tmp/err" "gdrlab probe: unknown option '--frobnicate' (see 'gdrlab probe --help')"
expect 2 "missing dir" -- "$gdrlab" probe --sysfs "$tmp/nope"
has "$tmp/err" "gdrlab probe: $tmp/nope: No such file or directory"
expect 2 "not sysfs" -- "$gdrlab" probe --sysfs "$tmp"
has "$tmp/err" "not a sysfs tree"
expect 0 "this machine" -- "$gdrlab" probe
has "$tmp/out" "GPUs:"
expect 0 "dgx table" -- "$gdrlab" probe --sysfs "$sys/dgx-8gpu"
has "$tmp/out" "gpu4-mlx5_2      PXB  no    yes   yes   yes   yes"
# a captured tree: the drivers' facts are said to be unasked, not guessed
has "$tmp/out" "^NVLinks: not read (nvml: not asked (captured tree))$"
has "$tmp/out" "^cpu vendor: unknown (not asked (captured tree))$"
# GPU x GPU: gpu0 and gpu1 under one switch, peer to peer; gpu0 and gpu4 on
# two sockets, beyond 2.30.7's PXB (Intel's rule, the vendor unknown)
has "$tmp/out" "^GPU x GPU (NVL: NVLink"
has "$tmp/out" "by NCCL 2.30.7's rule; CPU vendor unknown, Intel's taken; NVLinks not read, PCIe taken):$"
has "$tmp/out" "^gpu0   X      PIX "
has "$tmp/out" "gpu0-gpu4.*: SYS is beyond NCCL 2.30.7's P2P level here, PXB (intel CPUs, 8 GPUs); NCCL_P2P_LEVEL=SYS would allow it$"
expect 0 "json to stdout" -- "$gdrlab" probe --sysfs "$sys/acs-redirect" --json -
has "$tmp/out" '"acs": "redirect"'
grep -q "GPUs:" "$tmp/out" && { echo "FAIL: table printed with --json -"; fail=1; }
expect 0 "emit" -- "$gdrlab" probe --sysfs "$sys/gh200-c2c" --emit-topology "$tmp/t.yaml" --json "$tmp/p.json"
has "$tmp/t.yaml" "name: probed-gh200-c2c"
has "$tmp/p.json" '"path": "P2C"'
# No driver asked, but the PCI id (GH200) names a Hopper, C2C a Grace (Arm).
has "$tmp/t.yaml" "^gpu_arch: hopper$"
has "$tmp/t.yaml" "^cpu_vendor: arm$"
grep -q "PLACEHOLDER.*\(compute capability\|CPU vendor\)\|intel CPUs" "$tmp/t.yaml" &&
    { echo "FAIL: C2C machine written with placeholders:"; cat "$tmp/t.yaml"; fail=1; }
expect 0 "C2C table" -- "$gdrlab" probe --sysfs "$sys/gh200-c2c"
has "$tmp/out" "^cpu vendor: arm (gpu0 reaches it over NVLink-C2C, which only NVIDIA's Arm Grace CPUs have)$"
has "$tmp/out" "PXB (arm CPUs, 2 GPUs)"
expect 0 "emitted topology runs" -- "$gdrlab" run --topology "$tmp/t.yaml" \
    --trace "$src/traces/resnet50-ddp.jsonl" --gdr-level phb --quiet
# The probe says P2C, nccl yes: the written file carries the GPUs' C2C link,
# so run goes direct at NCCL's default level as the probe said it would.
has "$tmp/t.yaml" "name: gpu0, parent: cpu0, link: { bandwidth: 450 GB/s, latency: 0.1 us, kind: c2c }"
expect 0 "emitted C2C topology goes direct" -- "$gdrlab" run --topology "$tmp/t.yaml" \
    --trace "$src/traces/resnet50-ddp.jsonl"
has "$tmp/out" "GDR level P2C"
has "$tmp/out" "^path       auto requested$"
grep -q "fell back to staged" "$tmp/out" && { echo "FAIL: C2C pairs staged:"; cat "$tmp/out"; fail=1; }
# ACS redirect denies gpu0-mlx5_0 GPUDirect: the file names the pair and,
# gpu0 having no other NIC in reach, says gdr: false, so run stages it.
expect 0 "emit ACS redirect" -- "$gdrlab" probe --sysfs "$sys/acs-redirect" --emit-topology "$tmp/acs.yaml"
has "$tmp/acs.yaml" "^# gpu0-mlx5_0: no GPUDirect RDMA: ACS redirect on bridge 0000:02:08.0"
has "$tmp/acs.yaml" "name: gpu0, parent: sw0, .*, gdr: false }"
expect 0 "ACS redirect topology runs" -- "$gdrlab" run --topology "$tmp/acs.yaml" \
    --trace "$src/traces/resnet50-ddp.jsonl"
grep -q " mixed$" "$tmp/out" && { echo "FAIL: gpu0-mlx5_0 taken as direct:"; cat "$tmp/out"; fail=1; }
# No GPU: nothing written, the probe says why, exit 1 (an output failed).
mkdir -p "$tmp/empty/bus/pci/devices"
expect 1 "emit without GPU" -- "$gdrlab" probe --sysfs "$tmp/empty" --emit-topology "$tmp/none.yaml"
has "$tmp/err" "no GPU found: a topology needs at least one GPU and one RDMA NIC"
[ ! -e "$tmp/none.yaml" ] || { echo "FAIL: none.yaml written"; fail=1; }
expect 0 "empty tree" -- "$gdrlab" probe --sysfs "$tmp/empty"
has "$tmp/out" "No GPU and no RDMA device here"
# a --sysfs folder whose name is not UTF-8 (a Linux name is any bytes):
# --json has it with U+FFFD (it failed, "out of memory"), and the
# topology written names it so too, for gdrlab's reader refused its raw
# bytes ("invalid trailing UTF-8 octet"), and --json's gpu_pairs was null
odd=$tmp/$'sys\xe9'
cp -r "$sys/dgx-8gpu" "$odd"
expect 0 "a folder not UTF-8" -- "$gdrlab" probe --sysfs "$odd" --json "$tmp/odd.json" \
    --emit-topology "$tmp/odd.yaml"
json_ok "$tmp/odd.json"
has "$tmp/odd.json" "\"sysfs\": *\"$tmp/"$'sys\xef\xbf\xbd'"\""
has "$tmp/odd.json" '"transport": "'
expect 0 "its topology read" -- "$gdrlab" busbw -t "$tmp/odd.yaml" -e 1K
exit $fail
