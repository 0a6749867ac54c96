#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# bench/bench_emu.sh GDRLAB: the emu backend against perftest on the same
# rxe devices in the same boot of the SoftRoCE harness (emu/vm/run), and
# emu against the analytic backend on the shipped small scenario. Prints
# figures; asserts nothing. Absolute numbers under qemu TCG mean little:
# read the ratios.
#   1. large transfers: ib_write_bw (100 writes of 1 MiB, its average)
#      vs emu send/recv on the direct path: 8 MiB in the config's slots
#      and in 8 x 1 MiB, and 64 MiB in 8 x 1 MiB (as many bytes a
#      collective as perftest moves in its run, less its ramp and end)
#   2. small: ib_write_lat (8 B, typical: half the median round trip of
#      1000) vs the emu data path timed the same way (the run's
#      rdma.latency_us with GDRLAB_EMU_PINGPONG=1000, emu/pingpong.h),
#      and the 8 B send/recv collective (median of 50: from each rank's
#      release from the barrier, so the release skew counts)
#   (each BENCH_EMU_ROUNDS times, default 3, interleaved (pass it with
#   GDRLAB_VM_ENV=BENCH_EMU_ROUNDS, and more GDRLAB_VM_TIMEOUT); the best of
#   each is compared, and for the large transfers and the ping-pong also
#   the median of each round's ratio, which a slow spell on the host
#   shared by qemu moves less)
#   3. NIC loopback on A: ib_write_bw with server and client on A
#      (1 MiB writes) vs gdrlab calibrate's loopback host -> host figure
#   4. traces/emu-small.jsonl: staged vs direct, emu vs analytic
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../tests/emu/lib.sh
. "$here/../tests/emu/lib.sh"
bin=$(realpath "${1:?usage: bench_emu.sh GDRLAB}")
in_vm "$0" "$bin"
A=$GDRLAB_RXE_A B=$GDRLAB_RXE_B
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
gid_a=$(emu/vm/rxe-setup gid "$A" "$GDRLAB_IP_A")
gid_b=$(emu/vm/rxe-setup gid "$B" "$GDRLAB_IP_B")

# on SERVER_DEV SERVER_GID CLIENT_DEV CLIENT_GID SERVER_IP TOOL ARGS...:
# perftest's server and client (perftest_pair); the client's output on stdout
on() {
    perftest_pair "$out" "$@"
    cat "$out/client"
}
# A -> B over the veth pair; A alone, to itself (loopback)
perftest() { on "$B" "$gid_b" "$A" "$gid_a" "$GDRLAB_IP_B" "$@"; }
perftest_loop() { on "$A" "$gid_a" "$A" "$gid_a" "$GDRLAB_IP_A" "$@"; }

# emu_sendrecv BYTES COUNT [run options]: median time (us) of COUNT send/recv
emu_sendrecv() {
    local bytes=$1 count=$2 i
    shift 2
    for i in $(seq 0 $((count - 1))); do
        echo "{\"iteration\": $i, \"op\": \"sendrecv\", \"bytes\": $bytes, \"dtype\": \"fp32\", \"src\": 0, \"dst\": 1, \"ready_us\": 0}"
    done >"$out/sr.jsonl"
    "$bin" run --backend emu --topology configs/emu-vm.yaml --trace "$out/sr.jsonl" \
        --devices "$A,$B" --path direct --quiet --json - "$@" |
        python3 -c 'import json,sys,statistics as s
d=json.load(sys.stdin); assert d["data_errors"] == 0
print(s.median(c["time_us"] for c in d["collectives"]))'
}
# emu_pingpong: the data path's 8 B one-way latency, 1000 round trips
emu_pingpong() {
    echo '{"iteration": 0, "op": "sendrecv", "bytes": 8, "dtype": "fp32", "src": 0, "dst": 1, "ready_us": 0}' >"$out/pp.jsonl"
    GDRLAB_EMU_PINGPONG=1000 "$bin" run --backend emu --topology configs/emu-vm.yaml \
        --trace "$out/pp.jsonl" --devices "$A,$B" --path direct --quiet --json - |
        python3 -c 'import json,sys; print(json.load(sys.stdin)["rdma"]["latency_us"])'
}

echo "# emu vs perftest on $A -> $B ($GDRLAB_RXE_MODE mode), $(date -u +%F)"
# Three rounds, each tool in turn, so that a burst of load on the host
# (qemu TCG shares its cores) hits both sides alike; best and all values.
bw=() e4=() e8=() e64=() lat=() pp=() es=()
for round in $(seq "${BENCH_EMU_ROUNDS:-3}"); do
    bw+=("$(perftest ib_write_bw -s 1048576 -n 100 -F | awk '$1 == 1048576 && NF >= 5 { print $4 }')")
    t=$(emu_sendrecv 8388608 5)
    e4+=("$(echo "8388608 / $t * 1000000 / 1048576" | bc -l)")
    t=$(emu_sendrecv 8388608 5 --chunk 1MiB --buffers 8)
    e8+=("$(echo "8388608 / $t * 1000000 / 1048576" | bc -l)")
    t=$(emu_sendrecv 67108864 3 --chunk 1MiB --buffers 8)
    e64+=("$(echo "67108864 / $t * 1000000 / 1048576" | bc -l)")
    # ib_write_lat busy-polls both sides (it has no event mode for WRITE):
    # on two vCPUs that can starve rxe's kernel work until the next tick.
    lat+=("$(perftest ib_write_lat -s 8 -n 1000 -F | awk '$1 == 8 && NF >= 5 { print $5 }')")
    pp+=("$(emu_pingpong)")
    es+=("$(emu_sendrecv 8 50)")
done
best() { printf '%s\n' "$@" | sort -g | sed -n "${BEST:-\$}p"; }
all() { printf '%.1f ' "$@"; }
b=$(best "${bw[@]}") b4=$(best "${e4[@]}") b8=$(best "${e8[@]}") b64=$(best "${e64[@]}")
l=$(BEST=1 best "${lat[@]}") lp=$(BEST=1 best "${pp[@]}") ls=$(BEST=1 best "${es[@]}")
printf 'large  ib_write_bw, 1 MiB writes        %7.1f MiB/s  (%s)\n' "$b" "$(all "${bw[@]}")"
printf 'large  emu direct 8 MiB, 4 x 256 KiB    %7.1f MiB/s  (%s) ratio %.2f\n' "$b4" "$(all "${e4[@]}")" "$(echo "$b4 / $b" | bc -l)"
printf 'large  emu direct 8 MiB, 8 x 1 MiB      %7.1f MiB/s  (%s) ratio %.2f\n' "$b8" "$(all "${e8[@]}")" "$(echo "$b8 / $b" | bc -l)"
printf 'large  emu direct 64 MiB, 8 x 1 MiB     %7.1f MiB/s  (%s) ratio %.2f\n' "$b64" "$(all "${e64[@]}")" "$(echo "$b64 / $b" | bc -l)"
paired() { # paired NUMERATORS DENOMINATORS: the median of ${!1}[i] / ${!2}[i]
    local -n num=$1 den=$2
    local i
    for i in "${!den[@]}"; do echo "${num[$i]} / ${den[$i]}" | bc -l; done |
        sort -g | awk '{ v[NR] = $1 } END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
printf 'large  each round'"'"'s ratio, median: 8 MiB 4 x 256 KiB %.2f, 8 x 1 MiB %.2f, 64 MiB %.2f\n' \
    "$(paired e4 bw)" "$(paired e8 bw)" "$(paired e64 bw)"
printf 'small  ib_write_lat 8 B, typical        %7.1f us     (%s)\n' "$l" "$(all "${lat[@]}")"
printf 'small  emu ping-pong 8 B, typical       %7.1f us     (%s) ratio %.2f\n' "$lp" "$(all "${pp[@]}")" "$(echo "$lp / $l" | bc -l)"
printf 'small  each round'"'"'s ratio, median: ping-pong %.2f\n' "$(paired pp lat)"
printf 'small  emu send/recv 8 B, median of 50  %7.1f us     (%s) ratio %.1f\n' "$ls" "$(all "${es[@]}")" "$(echo "$ls / $l" | bc -l)"

echo
echo "# gdrlab calibrate: this VM as a topology, analytic vs emu"
"$bin" calibrate --devices "$A,$B" -o "$out/calibrated.yaml" | tee "$out/cal.txt" | sed 's/^/  /'

# perftest prints MB/sec of 2^20 bytes; calibrate prints MB/s of 10^6.
lb=()
for round in 1 2 3; do
    lb+=("$(perftest_loop ib_write_bw -s 1048576 -n 100 -F | awk '$1 == 1048576 && NF >= 5 { print $4 }')")
done
g=$(sed -n 's/.*host -> host \([0-9.]*\) MB\/s.*/\1/p' "$out/cal.txt")
g=$(echo "${g:-0} * 1000000 / 1048576" | bc -l)
l=$(best "${lb[@]}")
echo
printf 'loopback  ib_write_bw on %s, 1 MiB writes   %7.1f MiB/s  (%s)\n' "$A" "$l" "$(all "${lb[@]}")"
printf 'loopback  gdrlab calibrate host -> host      %7.1f MiB/s  ratio %.2f\n' "$g" "$(echo "$g / $l" | bc -l)"

echo
echo "# traces/emu-small.jsonl on configs/emu-vm.yaml: communication time per iteration (us)"
for backend in emu analytic; do
    for path in staged direct; do
        "$bin" run --backend "$backend" --topology configs/emu-vm.yaml \
            --trace traces/emu-small.jsonl --devices "$A,$B" --path "$path" \
            --quiet --json "$out/$backend-$path.json" >/dev/null || echo "# $backend $path failed"
    done
done
python3 - "$out" <<'PY'
import json, sys
d = sys.argv[1]
r = {(b, p): json.load(open(f"{d}/{b}-{p}.json")) for b in ("emu", "analytic") for p in ("staged", "direct")}
print(f"{'backend':10} {'staged':>12} {'direct':>12} {'direct speedup':>15}")
for b in ("emu", "analytic"):
    s, t = r[(b, "staged")]["comm_time_us"], r[(b, "direct")]["comm_time_us"]
    print(f"{b:10} {s:12.0f} {t:12.0f} {s / t:14.2f}x")
for p in ("staged", "direct"):
    e = r[("emu", p)]
    print(f"emu {p}: {e['verified_bytes']} bytes verified, {e['data_errors']} errors")
PY
