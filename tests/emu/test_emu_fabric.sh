#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# tests/emu/test_emu_fabric.sh GDRLAB: how the emu backend addresses the
# fabric (emu/ib_config.c, emu/verbs_path.c), on real SoftRoCE in one boot
# of the harness. Expected values come from the harness's own set-up
# (emu/vm/rxe-setup: rxe0 on veth va 10.3.0.1, rxe1 on vb 10.3.0.2, MTU
# 1500) and rxe's rules, not from gdrlab:
#   1. the run's JSON: port 1, the RoCEv2 GID of 10.3.0.1 at the index
#      rxe-setup finds by reading sysfs, path MTU 1024 (rxe's largest IB
#      MTU that fits a 1500-byte Ethernet frame: 1024 + 58 bytes of RoCEv2
#      headers; 2048 would not)
#   2. vb's MTU raised to 9000: rxe1's port goes to 4096, rxe0's stays at
#      1024, and veth drops frames longer than the receiver's MTU, so only
#      the smaller of both (exchanged at connect) moves data
#   3. --ib-gid-index of that GID works; an empty index is a clear error
#   4. --ib-tc / --ib-sl land in the JSON
#   5. NCCL_IB_HCA: a port the device lacks, a list that leaves nothing,
#      one that leaves out a device --devices names (said so, where the
#      error said "not found" of a device that is there); devices on two
#      networks (rxe0, rxe_lo): both GIDs named, not a bare "Connection
#      timed out"
#   6. chunks: not a whole number of elements, 4 GiB, more than rxe's
#      max_msg_sz (8 MiB, RXE_PORT_MAX_MSG_SZ): each refused before any
#      queue pair exists, naming the value
#   7. a plan larger than the guest's memory: refused before the ranks
#      start, with GDRLAB_VM_MEM named; also one of 8 EiB, whose sum of
#      memory wrapped past 2^64 to a few MiB and passed
#   8. RoCEv2 over IPv6 (NCCL_IB_ADDR_FAMILY=AF_INET6): the global GID,
#      not the link-local one, and the data across
#   9. the data path's latency (emu/pingpong.h): GDRLAB_EMU_PINGPONG=N
#      round trips between rank 0 and node 1's first rank give the JSON's
#      rdma.latency_us and latency_rounds N, and the table's rdma line,
#      on both paths, the data still verified; with 0, or one node (no
#      network between ranks), none
#  10. GDRLAB_EMU_TIMEOUT that is no number of seconds, or one above a
#      day: exit 2, one line (atof took "abc" for the default, and 3000000
#      s wrapped to a negative time-out that failed the first step); the
#      other GDRLAB_EMU_* counts alike (a bad one kept the default, unsaid:
#      GDRLAB_EMU_BIND=no bound the ranks, GDRLAB_EMU_CORRUPT=no spoiled
#      collective 0)
# Exit: 0 passed, 1 failed, 77 skipped.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"
bin=$(realpath "${1:?usage: test_emu_fabric.sh GDRLAB}")
in_vm "$0" "$bin"

out=$(mktemp -d)
trap 'ip link set vb mtu 1500 2>/dev/null; rm -rf "$out"' EXIT
A=$GDRLAB_RXE_A B=$GDRLAB_RXE_B
common=(--topology configs/emu-vm.yaml --trace traces/emu-small.jsonl
        --backend emu --devices "$A,$B" --path direct --quiet)
gid_a=$(emu/vm/rxe-setup gid "$A" "$GDRLAB_IP_A")

# field JSON KEY: the value of "KEY" in the run's "rdma" object
field() {
    python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["rdma"][sys.argv[2]])' "$1" "$2"
}
# expect_fail NAME PATTERN ARGS...: exit non-zero, one line matching PATTERN
expect_fail() {
    local name=$1 pat=$2 rc
    shift 2
    "$bin" run "$@" >/dev/null 2>"$out/err"
    rc=$?
    if [ $rc -ne 0 ] && [ "$(wc -l <"$out/err")" -eq 1 ] && grep -Eq "$pat" "$out/err"; then
        ok "$name: exit $rc: $(cat "$out/err")"
    else
        notok "$name: exit $rc, wanted /$pat/: $(head -3 "$out/err")"
    fi
}

# 1. what the JSON says
if "$bin" run "${common[@]}" --json "$out/run.json" >/dev/null 2>"$out/err"; then
    got="$(field "$out/run.json" port) $(field "$out/run.json" gid_type) $(field "$out/run.json" gid) $(field "$out/run.json" gid_index) $(field "$out/run.json" mtu)"
    want="1 RoCEv2 ::ffff:$GDRLAB_IP_A $gid_a 1024"
    [ "$got" = "$want" ] && ok "rdma in the JSON: $got" ||
        notok "rdma in the JSON: '$got', want '$want'"
else
    notok "run: exit $?: $(head -3 "$out/err")"
fi

# 2. different MTUs at the two ends
ip link set vb mtu 9000
mtu_b=
for _ in $(seq 50); do
    mtu_b=$(ibv_devinfo -d "$B" 2>/dev/null | awk '/active_mtu/ { print $2; exit }')
    [ "$mtu_b" = 4096 ] && break
    sleep 0.1
done
if [ "$mtu_b" != 4096 ]; then
    notok "MTU: $B's port did not go to 4096 with vb at 9000 (active_mtu '$mtu_b')"
elif GDRLAB_EMU_TIMEOUT=5 "$bin" run "${common[@]}" --json "$out/mtu.json" >/dev/null 2>"$out/err"; then
    check "MTU 1024 at $A, $mtu_b at $B" "$out/mtu.json" 2
    [ "$(field "$out/mtu.json" mtu)" = 1024 ] && ok "path MTU: the smaller, 1024" ||
        notok "path MTU: $(field "$out/mtu.json" mtu), want 1024"
else
    notok "MTU 1024 at $A, $mtu_b at $B: exit $?: $(head -3 "$out/err")"
fi
ip link set vb mtu 1500

# 3. GID index by hand
if "$bin" run "${common[@]}" --ib-gid-index "$gid_a" --json "$out/gid.json" >/dev/null 2>"$out/err" &&
    [ "$(field "$out/gid.json" gid_index)" = "$gid_a" ]; then
    ok "--ib-gid-index $gid_a"
else
    notok "--ib-gid-index $gid_a: $(head -3 "$out/err")"
fi
# rxe-setup gives each device one IPv4 address: the last entry is empty
expect_fail "an empty GID index" "GID index 255 \(NCCL_IB_GID_INDEX\) is empty or beyond its table" \
    "${common[@]}" --ib-gid-index 255

# 4. traffic class and service level
if "$bin" run "${common[@]}" --ib-tc 106 --ib-sl 3 --json "$out/tc.json" >/dev/null 2>"$out/err" &&
    [ "$(field "$out/tc.json" traffic_class) $(field "$out/tc.json" service_level)" = "106 3" ]; then
    check "--ib-tc 106 --ib-sl 3" "$out/tc.json" 2
else
    notok "--ib-tc 106 --ib-sl 3: $(head -3 "$out/err")"
fi

# 4b. PCIe relaxed ordering: on by default, as NCCL registers memory
# (net_ib/reg.cc); rxe ignores the optional flag, so the data arrives
# either way; NCCL's variable or --ib-relaxed-ordering 0 turns it off
if "$bin" run "${common[@]}" --json "$out/ro.json" >/dev/null 2>"$out/err" &&
    [ "$(field "$out/ro.json" relaxed_ordering)" = True ]; then
    check "relaxed ordering by default" "$out/ro.json" 2
else
    notok "relaxed ordering by default: $(head -3 "$out/err")"
fi
if NCCL_IB_PCI_RELAXED_ORDERING=0 "$bin" run "${common[@]}" --json "$out/ro0.json" >/dev/null 2>"$out/err" &&
    [ "$(field "$out/ro0.json" relaxed_ordering)" = False ]; then
    check "NCCL_IB_PCI_RELAXED_ORDERING=0" "$out/ro0.json" 2
else
    notok "NCCL_IB_PCI_RELAXED_ORDERING=0: $(head -3 "$out/err")"
fi

# 5. NCCL_IB_HCA
NCCL_IB_HCA="$A:2,$B:2" expect_fail "NCCL_IB_HCA port 2" "$A has 1 port, no port 2|$B has 1 port, no port 2" \
    "${common[@]}"
NCCL_IB_HCA=nosuch expect_fail "NCCL_IB_HCA=nosuch" "NCCL_IB_HCA=nosuch leaves none of the RDMA devices" \
    --topology configs/emu-vm.yaml --trace traces/emu-small.jsonl --backend emu --quiet
# two devices on different networks (rxe_lo is on lo): the pair named
expect_fail "devices on two networks" \
    "ibv_modify_qp\\(RTR, to rank 1\\): .*: $A \\(GID ::ffff:$GDRLAB_IP_A\\) cannot reach its GID ::ffff:127\\.0\\.0\\.1: are both devices on one network" \
    --topology configs/emu-vm.yaml --trace traces/emu-small.jsonl --backend emu \
    --devices "$A,$GDRLAB_RXE_LO" --quiet
# a --devices one that the list leaves out is there, not "not found"
NCCL_IB_HCA="=$A" expect_fail "NCCL_IB_HCA leaves out a --devices one" \
    "RDMA device '$B' is not among those NCCL_IB_HCA==$A leaves \\($A\\)\$" "${common[@]}"

# 6. chunks the data path cannot carry
expect_fail "a 6-byte chunk of fp32" "staging chunk of 6 bytes .* is not a whole number of fp32 elements \(4 bytes each\)" \
    "${common[@]}" --chunk 6B
expect_fail "a 4 GiB chunk" "staging chunk of 4294967296 bytes .* is 4 GiB or more" \
    "${common[@]}" --chunk 4GiB
expect_fail "a chunk above max_msg_sz" "a chunk of 16777216 bytes is more than .* carries in one message \(max_msg_sz 8388608\)" \
    "${common[@]}" --chunk 16MiB --buffers 1

# 7. a plan the guest's memory cannot hold: refused before any rank starts
echo '{"iteration": 0, "op": "allreduce", "bytes": 4294967296, "dtype": "fp32", "ready_us": 0}' >"$out/huge.jsonl"
expect_fail "a plan larger than memory" "emu: 2 ranks need about [0-9]+ MiB .* MiB is available; the VM guest has [0-9]+[GMK] of memory: GDRLAB_VM_MEM=" \
    --topology configs/emu-vm.yaml --trace "$out/huge.jsonl" --backend emu --devices "$A,$B" --quiet
echo '{"iteration": 0, "op": "allreduce", "bytes": 9223372036854775800, "dtype": "fp32", "ready_us": 0}' >"$out/exa.jsonl"
expect_fail "a plan of 8 EiB" "emu: 2 ranks need more than 16 EiB \(more than 16 EiB each: .* MiB is available; the VM guest has" \
    --topology configs/emu-vm.yaml --trace "$out/exa.jsonl" --backend emu --devices "$A,$B" --quiet

# 8. IPv6: a global address on each veth end, routed across it as
# rxe-setup routes the IPv4 ones (table 100 for traffic from lo), gives
# each device a RoCEv2 IPv6 GID beside its link-local fe80:: one, which
# NCCL's rule skips; NCCL_IB_ADDR_FAMILY=AF_INET6 picks the global one
if [ "$GDRLAB_RXE_MODE" = vm ]; then
    ip -6 -batch - <<'IP'
addr add fd00:3::1/64 dev va nodad
addr add fd00:3::2/64 dev vb nodad
rule add pref 10 iif lo lookup 100
rule add pref 20 lookup local
rule del pref 0 lookup local
route add fd00:3::2 dev va src fd00:3::1 table 100
route add fd00:3::1 dev vb src fd00:3::2 table 100
IP
    if NCCL_IB_ADDR_FAMILY=AF_INET6 "$bin" run "${common[@]}" --json "$out/v6.json" >/dev/null 2>"$out/err" &&
        [ "$(field "$out/v6.json" gid) $(field "$out/v6.json" gid_type)" = "fd00:3::1 RoCEv2" ]; then
        check "RoCEv2 over IPv6 (fd00:3::1 -> fd00:3::2)" "$out/v6.json" 2
    else
        notok "RoCEv2 over IPv6: $(head -3 "$out/err") $(grep -o '"gid": "[^"]*"' "$out/v6.json" 2>/dev/null)"
    fi
else
    n=$((n + 1))
    echo "ok $n - RoCEv2 over IPv6 # SKIP changes routing rules: in the VM guest only"
fi

# 9. the ping-pong before the first collective
lat() {
    python3 -c 'import json,sys; r=json.load(open(sys.argv[1])).get("rdma", {}); print(r.get("latency_rounds", "none"), "yes" if r.get("latency_us", 0) > 0 else "no")' "$1"
}
for path in direct staged; do
    if GDRLAB_EMU_PINGPONG=200 "$bin" run "${common[@]/direct/$path}" --json "$out/pp.json" >/dev/null 2>"$out/err" &&
        [ "$(lat "$out/pp.json")" = "200 yes" ]; then
        check "the $path path's latency, 200 round trips: $(python3 -c 'import json,sys; print(round(json.load(open(sys.argv[1]))["rdma"]["latency_us"], 1))' "$out/pp.json") us one-way" "$out/pp.json" 2
    else
        notok "the $path path's latency: $(lat "$out/pp.json" 2>&1) $(head -3 "$out/err")"
    fi
done
GDRLAB_EMU_PINGPONG=50 "$bin" run --topology configs/emu-vm.yaml --trace traces/emu-small.jsonl \
    --backend emu --devices "$A,$B" >"$out/pp.txt" 2>"$out/err"
grep -Eq '^rdma +rxe[0-9]+ port 1, RoCEv2 GID [0-9]+, MTU 1024, relaxed ordering; 8 B one-way [0-9.]+ us \(half the median of 50 round trips, as ib_write_lat\)$' "$out/pp.txt" &&
    ok "the table's rdma line: $(grep '^rdma' "$out/pp.txt")" ||
    notok "the table's rdma line: $(grep '^rdma' "$out/pp.txt") $(head -3 "$out/err")"
GDRLAB_EMU_PINGPONG=0 "$bin" run "${common[@]}" --json "$out/pp0.json" >/dev/null 2>&1
[ "$(lat "$out/pp0.json")" = "none no" ] && ok "GDRLAB_EMU_PINGPONG=0: no latency" ||
    notok "GDRLAB_EMU_PINGPONG=0: $(lat "$out/pp0.json" 2>&1)"
# one node of two "GPUs": both ranks on one device, no network between
sed 's/^  - { name: gpu0, \(.*\)}$/&\n  - { name: gpu1, \1}/' configs/emu-vm.yaml >"$out/one-node.yaml"
echo '{"iteration": 0, "op": "allreduce", "bytes": 65536, "dtype": "fp32", "ready_us": 0}' >"$out/one.jsonl"
if grep -q 'name: gpu1' "$out/one-node.yaml" &&
    "$bin" run --topology "$out/one-node.yaml" -n 1 --trace "$out/one.jsonl" --backend emu \
        --devices "$A,$B" --quiet --json "$out/pp1.json" >/dev/null 2>"$out/err"; then
    [ "$(lat "$out/pp1.json")" = "none no" ] && ok "one node: no latency (no network between its ranks)" ||
        notok "one node: $(lat "$out/pp1.json")"
else
    notok "one node: $(grep -c 'name: gpu1' "$out/one-node.yaml") $(head -3 "$out/err")"
fi
# 10. the no-progress time-out's variable
for v in abc 3000000; do
    GDRLAB_EMU_TIMEOUT=$v expect_fail "GDRLAB_EMU_TIMEOUT=$v" \
        "^gdrlab run: GDRLAB_EMU_TIMEOUT is '$v': seconds, more than 0 and at most 86400\$" "${common[@]}"
done
for v in GDRLAB_EMU_BIND=no GDRLAB_EMU_SPIN_US=-1 GDRLAB_EMU_PINGPONG=10x GDRLAB_EMU_CORRUPT=no; do
    export "${v?}"
    expect_fail "$v" "^gdrlab run: ${v%%=*} is '${v#*=}': expected a whole number from 0 to [0-9]+\$" \
        "${common[@]}"
    unset "${v%%=*}"
done
echo "1..$n"
exit $failed
