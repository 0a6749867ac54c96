#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# gdrlab busbw: nccl-tests' table predicted for a topology. The expected
# values come from nccl-tests' own rules (src/common.cu, src/<test>.cu,
# src/util.cu of 2.19), recomputed here with awk, not from gdrlab's code:
# the header lines, the sizes of -b/-e/-f/-i, the count and size per
# collective, busbw = algbw x the bus factor from the printed time, the
# average; then --json and --csv, and the usage errors.
# usage: test_busbw.sh GDRLAB SOURCE_DIR
set -u
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
abci=$src/configs/validation/abci-v100-2xedr.yaml  # 2 nodes x 4 GPUs: 8 ranks
h100=$src/configs/h100-pcie5-400g.yaml              # 8 GPUs a node

rows() { grep -v '^#' "$1"; }
# same WHAT GOT WANT: two files equal
same() {
    diff "$2" "$3" >"$tmp/diff" || { echo "FAIL: $1:"; cat "$tmp/diff"; fail=1; }
}

expect 0 "help" -- "$gdrlab" busbw --help
has "$tmp/out" "usage: gdrlab busbw --topology FILE"
has "$tmp/out" "f8e4m3"
expect 0 "in the command list" -- "$gdrlab" --help
has "$tmp/out" "busbw"

# --- the header: nccl-tests 2.19 util.cu writeResultHeader's formats
expect 0 "allreduce on abci" -- "$gdrlab" busbw -t "$abci" -b 8 -e 8G -f 2
cp "$tmp/out" "$tmp/ar.txt"
starts() { # starts FILE LINE: some line of FILE begins with LINE
    awk -v w="$2" 'index($0, w) == 1 { found = 1 } END { exit !found }' "$1" ||
        { echo "FAIL: no line starting '$2' in $1"; fail=1; }
}
starts "$tmp/ar.txt" "$(printf '# %10s  %12s  %8s  %6s  %6s           out-of-place                       in-place' '' '' '' '' '')"
starts "$tmp/ar.txt" "$(printf '# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s' \
    size count type redop root time algbw busbw '#wrong' time algbw busbw '#wrong')"
starts "$tmp/ar.txt" "$(printf '# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s' \
    '(B)' '(elements)' '' '' '' '(us)' '(GB/s)' '(GB/s)' '' '(us)' '(GB/s)' '(GB/s)')"
starts "$tmp/ar.txt" "# Avg bus bandwidth    : "
# nccl-tests' footer line before it (v2.19.6 src/util.cu writeResultFooter)
grep -B1 "^# Avg bus bandwidth" "$tmp/ar.txt" | head -1 | grep -qx "# Out of bounds values : 0 OK" ||
    { echo "FAIL: no '# Out of bounds values : 0 OK' before the average"; fail=1; }
has "$tmp/ar.txt" "#wrong  algo  *proto  *nch  nccl_est  path$"
has "$tmp/ar.txt" "2 nodes x 4 GPUs = 8 ranks"
# every row: 18 columns, the two halves the same, gdrlab's choice sane
rows "$tmp/ar.txt" | awk '
    NF != 18 { print "FAIL: " NF " columns: " $0; bad = 1 }
    $6 != $10 || $7 != $11 || $8 != $12 || $9 != "N/A" || $13 != "N/A" {
        print "FAIL: the halves differ: " $0; bad = 1 }
    $14 !~ /^(Tree|Ring|NVLS|NVLSTree|PAT|CollNetDirect|CollNetChain)$/ ||
    $15 !~ /^(LL|LL128|Simple)$/ || $16 !~ /^[1-9][0-9]*$/ || $17 !~ /^[0-9.]+$/ {
        print "FAIL: algo/proto/nch/nccl_est: " $0; bad = 1 }
    END { exit bad }' || fail=1

# --- the sizes of -b -e -f, and the defaults (-b 8 -e 8G -f 2); %.0f, as
# awk's %d stops at 2^31
awk 'BEGIN { for (s = 8; s <= 8 * 1024 * 1024 * 1024; s *= 2) printf "%.0f\n", s }' >"$tmp/want"
rows "$tmp/ar.txt" | awk '{ print $1 }' >"$tmp/got"
same "-b 8 -e 8G -f 2 sizes" "$tmp/got" "$tmp/want"
expect 0 "defaults" -- "$gdrlab" busbw -t "$abci"
rows "$tmp/out" | awk '{ print $1 }' >"$tmp/got"
same "default sizes" "$tmp/got" "$tmp/want"
# -i adds; K is 1024
expect 0 "-i" -- "$gdrlab" busbw -t "$abci" -b 1K -e 10K -i 3K
rows "$tmp/out" | awk '{ print $1, $2 }' >"$tmp/got"
printf '1024 256\n4096 1024\n7168 1792\n10240 2560\n' >"$tmp/want"
same "-b 1K -e 10K -i 3K" "$tmp/got" "$tmp/want"
# sizes that are not whole elements round down: 10, 30, 90 bytes of float
expect 0 "rounding" -- "$gdrlab" busbw -t "$abci" -b 10 -e 100 -f 3
rows "$tmp/out" | awk '{ print $1, $2 }' >"$tmp/got"
printf '8 2\n28 7\n88 22\n' >"$tmp/want"
same "-b 10 -e 100 -f 3" "$tmp/got" "$tmp/want"
# fractions, and a type of 8 bytes: 1536, 1792, 2048 bytes of double
expect 0 "fraction" -- "$gdrlab" busbw -t "$abci" -b 1.5K -e 2K -i 0.25K -d double
rows "$tmp/out" | awk '{ print $1, $2, $3 }' >"$tmp/got"
printf '1536 192 double\n1792 224 double\n2048 256 double\n' >"$tmp/want"
same "-b 1.5K -e 2K -i 0.25K -d double" "$tmp/got" "$tmp/want"

# --- per op: count, size, redop, root as nccl-tests prints them, and
# busbw = algbw x its factor, recomputed from the printed time. 8 ranks.
# check_op OP TYPE TSIZE PER_RANK REDOP ROOT FACTOR
check_op() {
    local op=$1 type=$2 tsize=$3 per_rank=$4 redop=$5 root=$6 factor=$7
    expect 0 "$op $type" -- "$gdrlab" busbw -t "$abci" --op "$op" -d "$type" -b 1000 -e 100M -f 10
    awk -v t="$tsize" -v pr="$per_rank" -v ty="$type" -v ro="$redop" -v rt="$root" '
        BEGIN { for (s = 1000; s <= 100 * 1024 * 1024; s *= 10) {
            c = int(s / t)
            if (pr) { c = int(c / 8); c -= c % (16 / t); printf "%.0f %.0f", c * 8 * t, c }
            else printf "%.0f %.0f", c * t, c
            printf " %s %s %s\n", ty, ro, rt } }' >"$tmp/want"
    rows "$tmp/out" | awk '{ print $1, $2, $3, $4, $5 }' >"$tmp/got"
    same "$op $type: size count type redop root" "$tmp/got" "$tmp/want"
    rows "$tmp/out" | awk -v f="$factor" -v op="$op" '
        function off(x, y) { return x - y > 0.006 + 0.002 * y || y - x > 0.006 + 0.002 * y }
        $6 == "N/A" { next }
        { alg = $1 / $6 / 1000; bus = alg * f
          if (off($7, alg) || off($8, bus)) {
              printf "FAIL: %s: algbw %s busbw %s, from the time %s: %.4f %.4f\n", op, $7, $8, $6, alg, bus
              bad = 1 } }
        END { exit bad }' || fail=1
}
check_op allreduce float 4 0 sum -1 1.75
check_op all_reduce half 2 0 sum -1 1.75
check_op all_gather float 4 1 none -1 0.875
check_op reduce_scatter bfloat16 2 1 sum -1 0.875
check_op alltoall int8 1 1 none -1 0.875
check_op broadcast double 8 0 none 0 1
check_op sendrecv int32 4 0 sum -1 1
# -o: NVLS reduces what ncclNvlsSupported lets it (include/device.h): a
# sum of any 16- to 64-bit type, a min or max of half or bfloat16, never
# a product or an average (a sum after a multiplication); one node of 8
# H100 with NVLink SHARP picks NVLS for 1 GiB where it may, else the ring
# check_redop REDOP TYPE ALGO
check_redop() {
    expect 0 "-o $1 -d $2" -- "$gdrlab" busbw -t h100-superpod-ib -n 1 -b 1G -e 1G -o "$1" -d "$2"
    rows "$tmp/out" | awk -v r="$1" -v a="$3" '$4 != r || $14 != a { print "FAIL: -o " r ": " $0; bad = 1 }
        END { exit bad }' || fail=1
}
check_redop sum float NVLS
check_redop sum bfloat16 NVLS
check_redop prod float Ring
check_redop avg float Ring
check_redop avg half Ring
check_redop max float Ring
check_redop min double Ring
check_redop max half NVLS
check_redop min bfloat16 NVLS
# PAT, at one GPU a node, reduce-scatters no average: NCCL skips it for
# ncclDevPreMulSum and ncclDevSumPostDiv, which ncclAvg of any type is
# ("Tree reduceScatter doesn't support scaling yet", enqueue.cc); a sum
# or a product keeps it (8 nodes of one H100, 64K)
for o in sum prod avg; do
    expect 0 "PAT -o $o" -- "$gdrlab" busbw -t "$h100" -n 8 --gpus 0 --op reduce_scatter -o "$o" -b 64K -e 64K
    rows "$tmp/out" | awk -v o="$o" '(o == "avg") != ($14 != "PAT") { print "FAIL: reduce_scatter -o " o ": " $0; bad = 1 }
        END { exit bad }' || fail=1
done
expect 2 "-o on a gather" -- "$gdrlab" busbw -t "$abci" --op all_gather -o max
has "$tmp/err" "gdrlab busbw: --redop: all_gather reduces nothing"
one_line "$tmp/err"
expect 2 "-o unknown" -- "$gdrlab" busbw -t "$abci" -o mean
has "$tmp/err" "gdrlab busbw: --redop: expected sum, prod, min, max or avg, got 'mean'"
one_line "$tmp/err"
# NCCL_NET_GDR_LEVEL's old numbers, as paths.cc ncclGetLevel maps them
# (levelsOldToNew, v2.8.4-1 to v2.30.7-1: 1 PIX, 2 PXB, 3 PHB, 4+ SYS)
for lv in "1 PIX" "2 PXB" "3 PHB" "4 SYS" "7 SYS"; do
    for rel in 2.8.4 2.30.7; do
        expect 0 "-g ${lv% *} --nccl $rel" -- "$gdrlab" busbw -t "$abci" -g "${lv% *}" --nccl "$rel" -b 8 -e 8
        has "$tmp/out" "^# path auto, GDR level ${lv#* }, NCCL $rel$"
    done
done
bad_usage_of busbw "-g 0" "--gdr-level: NCCL reads 0 as LOC, GPUDirect RDMA to no NIC; for that run --path staged" -- -t "$abci" -g 0
bad_usage_of busbw "-g 2x" "--gdr-level: expected pix, pxb, p2c, phb, sys or NCCL's old numbers" -- -t "$abci" -g 2x
# what nccl-tests built against the release asked for runs on these GPUs:
# it lists bfloat16 and avg from NCCL 2.10 (ncclBfloat16, ncclAvg in
# v2.10.3-1's nccl.h.in), fp8 from 2.24 (v2.24.3-1) and on compute
# capability 9.0 and later alone (common.cu main: minCudaArch < 900),
# char and int against NCCL 1 alone; a name it does not list it runs as
# float or sum (common.h ncclstringtotype), not what was asked; alltoall
# and sendrecv need ncclSend (v2.7.3-1)
expect 2 "bfloat16 before 2.10" -- "$gdrlab" busbw -t "$h100" --nccl 2.8.4 -d bfloat16
has "$tmp/err" "gdrlab busbw: bfloat16 needs NCCL 2.10 or later, not 2.8 (--nccl)"
one_line "$tmp/err"
expect 2 "avg before 2.10" -- "$gdrlab" busbw -t "$h100" --nccl 2.8.4 -o avg
has "$tmp/err" "gdrlab busbw: avg needs NCCL 2.10 or later (ncclAvg), not 2.8 (--nccl)"
one_line "$tmp/err"
expect 2 "fp8 before 2.24" -- "$gdrlab" busbw -t "$h100" --nccl 2.21.5 -d f8e4m3
has "$tmp/err" "gdrlab busbw: f8e4m3 needs NCCL 2.24 or later, not 2.21 (--nccl)"
one_line "$tmp/err"
expect 2 "fp8 on Ampere" -- "$gdrlab" busbw -t a100-pcie4-200g --op all_gather -d f8e5m2
has "$tmp/err" "gdrlab busbw: f8e5m2 needs GPUs of compute capability 9.0 or later; the topology's are 8.0"
one_line "$tmp/err"
expect 2 "NCCL 1's char" -- "$gdrlab" busbw -t "$h100" -d char
has "$tmp/err" "gdrlab busbw: char is nccl-tests' name against NCCL 1; against NCCL 2 it is int8"
one_line "$tmp/err"
# before 2.7 (no send and receive, no LL128 before 2.5, no tree before
# 2.4) no table stands for the release: 2.0's minor once read as "the
# table's own" and let anything through
for v in 2.6 2.0; do
    expect 2 "NCCL $v" -- "$gdrlab" busbw -t "$h100" --nccl "$v" --op alltoall
    has "$tmp/err" "gdrlab busbw: --nccl: expected an NCCL 2 version from 2.7 on (2.18.5, 2.18), got '$v'"
    one_line "$tmp/err"
done
# the first releases that have them
expect 0 "bfloat16 and avg from 2.10" -- "$gdrlab" busbw -t "$h100" --nccl 2.10 -d bfloat16 -o avg -b 1M -e 1M
expect 0 "fp8 on Hopper from 2.24" -- "$gdrlab" busbw -t "$h100" --nccl 2.24 -d f8e4m3 -b 1M -e 1M
expect 0 "sendrecv from 2.7" -- "$gdrlab" busbw -t "$h100" --nccl 2.7 --op sendrecv -b 1M -e 1M
# fp8 on more than 8 ranks: NCCL 2.24 on multiplies the ring's entry of
# its table by 1024 (enqueue.cc "Relegate fp8 reduction trees", v2.24.3-1
# :1606-1611), so 16 H100 reduce 512M of fp8 by the tree where int8 takes
# the ring; 8 ranks keep the ring; an all-gather that has the ring alone
# keeps it, NCCL's estimate 1024 times int8's
fp8_row() { # fp8_row TYPE ARGS...: the CSV row of 512M
    local t=$1
    shift
    expect 0 "512M of $t $*" -- "$gdrlab" busbw -t "$h100" -q -b 512M -e 512M -d "$t" --csv - "$@"
    sed -n 2p "$tmp/out" >"$tmp/row.$t"
}
fp8_row int8
fp8_row f8e4m3
awk -F, '{ print $9 }' "$tmp/row.int8" | grep -qx Ring || { echo "FAIL: int8 of 16 ranks not Ring:"; cat "$tmp/row.int8"; fail=1; }
awk -F, '{ print $9 }' "$tmp/row.f8e4m3" | grep -qx Tree || { echo "FAIL: fp8 of 16 ranks not Tree:"; cat "$tmp/row.f8e4m3"; fail=1; }
fp8_row f8e5m2 -n 1
awk -F, '{ print $9 }' "$tmp/row.f8e5m2" | grep -qx Ring || { echo "FAIL: fp8 of 8 ranks not Ring:"; cat "$tmp/row.f8e5m2"; fail=1; }
fp8_row int8 --op all_gather
fp8_row f8e4m3 --op all_gather
paste -d, "$tmp/row.int8" "$tmp/row.f8e4m3" | awk -F, '
    $9 != "Ring" || $22 != "Ring" || $6 != $19 { print "FAIL: fp8 all_gather: " $0; exit 1 }
    { r = $25 / $12; if (r < 1023.9 || r > 1024.1) { print "FAIL: fp8 estimate " $25 " / " $12 " = " r ", not 1024"; exit 1 } }' || fail=1
# p2p: no NCCL estimate; the pair crosses the nodes
expect 0 "sendrecv" -- "$gdrlab" busbw -t "$abci" --op sendrecv -b 1M -e 1M
rows "$tmp/out" | awk '$14 != "P2P" || $17 != "N/A" || $18 == "intra_node" { print "FAIL: " $0; bad = 1 } END { exit bad }' || fail=1
# sendrecv_perf's ring (sendrecv.cu: rank r sends to r + 1, all at once)
# goes at its slowest pair's pace. One node of h100-nvl-pcie-pairs: 0-1,
# 2-3, ... are NVLink bridges, but 1 -> 2 crosses GPU 1's PCIe Gen5 x16
# link (16 x 3.938 GB/s x 0.8 = 50.4 GB/s), so no ring of it beats 50.4
# at 256M, whatever a bridge does alone
expect 0 "sendrecv ring, one node" -- "$gdrlab" busbw -t h100-nvl-pcie-pairs -n 1 --op sendrecv -b 256M -e 256M
rows "$tmp/out" | awk '$8 > 50.4 || $8 < 40 { print "FAIL: sendrecv ring of PCIe-bridged pairs at busbw " $8 ", not under the 50.4 GB/s of a PCIe hop: " $0; bad = 1 }
    END { exit bad }' || fail=1
# --algo / --proto on NCCL's p2p path: said to have no effect, rows as without
expect 0 "alltoall --algo" -- "$gdrlab" busbw -t "$abci" --op alltoall --algo ring --proto LL -b 1M -e 1M
has "$tmp/out" "^# NCCL_ALGO and NCCL_PROTO do not steer NCCL's p2p path (alltoall)"
rows "$tmp/out" >"$tmp/with"
expect 0 "alltoall" -- "$gdrlab" busbw -t "$abci" --op alltoall -b 1M -e 1M
rows "$tmp/out" | cmp -s - "$tmp/with" || { echo "FAIL: --algo moved an alltoall's rows"; fail=1; }
# -p direct where the NIC is across the sockets from every GPU
# (two-socket-commodity: SYS, beyond GDR level P2C): staged, and why
expect 0 "fallback" -- "$gdrlab" busbw -t two-socket-commodity --op alltoall -p direct -b 1M -e 2M
has "$tmp/out" "^# staged on 2 of 2 sizes: gpu0-nic0 path is SYS (across CPU sockets), beyond GDR level P2C"
# 16 ranks: the factor follows the cluster (2 x 15 / 16)
expect 0 "h100 -n 2" -- "$gdrlab" busbw -t "$h100" -n 2 -b 1M -e 1G -f 4
has "$tmp/out" "2 nodes x 8 GPUs = 16 ranks"
rows "$tmp/out" | awk '{ alg = $1 / $6 / 1000; bus = alg * 1.875
    if ($8 - bus > 0.006 + 0.002 * bus || bus - $8 > 0.006 + 0.002 * bus) { print "FAIL: " $0; bad = 1 } }
    END { exit bad }' || fail=1

# --- rows rounded to nothing: all_gather of 8..64 B over 8 ranks (16 B
# a rank at least), printed as 0-byte rows, not predicted; the average
# counts them, as nccl-tests' does
expect 0 "empty rows" -- "$gdrlab" busbw -t "$abci" --op all_gather -b 8 -e 256
rows "$tmp/out" | awk '{ print $1, $2, $6, $8 }' >"$tmp/got"
head -4 "$tmp/got" >"$tmp/empty"
printf '0 0 N/A 0.00\n0 0 N/A 0.00\n0 0 N/A 0.00\n0 0 N/A 0.00\n' >"$tmp/want"
same "0-byte rows" "$tmp/empty" "$tmp/want"
awk 'NR > 4 { print $1, $2 }' "$tmp/got" >"$tmp/rest"
printf '128 4\n256 8\n' >"$tmp/want"
same "all_gather 128, 256" "$tmp/rest" "$tmp/want"

# --- the average: the mean of the printed busbw (nccl-tests: of every half)
awk '!/^#/ { sum += $8 + $12; n += 2 }
    /^# Avg bus bandwidth/ { avg = $NF }
    END { m = sum / n; if (avg - m > 0.006 + 1e-5 * m || m - avg > 0.006 + 1e-5 * m) {
        print "FAIL: Avg bus bandwidth " avg ", mean of the rows " m; exit 1 } }' "$tmp/ar.txt" || fail=1

# --- --algo/--proto/--channels reach the tuner
expect 0 "forced" -- "$gdrlab" busbw -t "$abci" -b 1K -e 1G -f 32 --algo ring --proto Simple --channels 2
rows "$tmp/out" | awk '$14 != "Ring" || $15 != "Simple" || $16 != 2 { print "FAIL: " $0; bad = 1 } END { exit bad }' || fail=1
has "$tmp/out" "NCCL_ALGO ring, NCCL_PROTO Simple"

# --- NCCL's graphs: what NCCL's own search.cc gives, run on these layouts
# (v2.19.3-1 and v2.30.7-1 outside the tree, 2026-12-04): the A100
# preset's ring 4 channels at 24/24 GB/s, its tree's bwIntra raised to 48;
# ABCI under 2.8.4 (v2.8.4-1's search.cc too; test_nccl_release.c by hand):
# one channel a 12.5 GB/s EDR NIC at speedArray's 9, PHB from the GPUs
# through an Intel root complex (12/9 of the speed on its PCI links), and
# on 2 nodes a simple tree at 7, bwIntra raised to 15
expect 0 "graphs" -- "$gdrlab" busbw -t a100-pcie4-200g -n 2 -b 8 -e 8
has "$tmp/out" "^# NCCL's graphs (NCCL_DEBUG_SUBSYS=GRAPH; bw GB/s a channel): ring 4 channels, bw 24.0/24.0, type NVL/PIX; tree 4 channels, bw 48.0/24.0, type NVL/PIX; communicator 8 channels$"
# staged, NCCL routes a GPU's NIC path through its CPU (paths.cc): PHB
expect 0 "graphs, staged" -- "$gdrlab" busbw -t a100-pcie4-200g -n 2 -p staged -b 8 -e 8
has "$tmp/out" "ring 4 channels, bw 24.0/24.0, type NVL/PHB;"
expect 0 "graphs, 2.8.4" -- "$gdrlab" busbw -t "$abci" --nccl 2.8.4 -b 8 -e 8
has "$tmp/out" "ring 2 channels, bw 9.0/9.0, type NVL/PHB; tree 2 channels, bw 15.0/7.0, type NVL/PHB, pattern TREE;"
expect 0 "graphs, json" -- "$gdrlab" busbw -t a100-pcie4-200g -n 2 -b 8 -e 8 --json -
tr -d ' \n' <"$tmp/out" >"$tmp/flat"
has "$tmp/flat" '"ring":{"channels":4,"bw_intra_gbps":24.0,"bw_inter_gbps":24.0,"intra":"NVL","inter":"PIX","pxn":false,"pattern":"RING"}'
has "$tmp/flat" '"tree":{"channels":4,"bw_intra_gbps":48.0,"bw_inter_gbps":24.0,"intra":"NVL","inter":"PIX","pxn":false,"pattern":"BALANCED_TREE"}'
has "$tmp/flat" '"comm_channels":8'

# --- --p2p-level loc (NCCL_P2P_DISABLE=1) on the A100 preset's node: every
# ring hop goes up to the receiver's CPU and down (paths.cc addInterStep),
# so each PCIe switch's uplink carries its two GPUs' sends up and their
# receives down: 2 speeds each way on NCCL's 24 GB/s for Gen4 x16, one
# channel at 12 (speedArrayIntra's). The data takes the same way: 25.2 GB/s
# (Gen4 x16 at the loader's 0.8) over two flows, busbw 12.6 less the
# latency. typeIntra is PCI: no LL128 (tuning.cc enables it at NVB at most).
expect 0 "--p2p-level loc" -- "$gdrlab" busbw -t a100-pcie4-200g -n 1 -b 1G -e 1G --p2p-level loc --algo ring --proto simple
has "$tmp/out" "NCCL_PROTO simple, NCCL_P2P_LEVEL LOC$"
has "$tmp/out" "ring 1 channel, bw 12.0/12.0, type PCI;"
rows "$tmp/out" | awk '$8 < 12.0 || $8 > 12.6 { print "FAIL: --p2p-level loc busbw " $8 ", not 12.6 less the latency"; bad = 1 } END { exit bad }' || fail=1
expect 0 "LL128 over NVLink" -- "$gdrlab" busbw -t a100-pcie4-200g -n 1 -b 8 -e 1G
rows "$tmp/out" | grep -q ' LL128 ' || { echo "FAIL: no LL128 row over NVLink"; fail=1; }
expect 0 "no LL128 without P2P" -- "$gdrlab" busbw -t a100-pcie4-200g -n 1 -b 8 -e 1G --p2p-level LOC --json -
has "$tmp/out" '"p2p_level": "LOC"'
grep -q '"proto": "LL128"' "$tmp/out" && { echo "FAIL: LL128 chosen with P2P disabled"; fail=1; }
expect 2 "--p2p-level bad" -- "$gdrlab" busbw -t a100-pcie4-200g --p2p-level nvlink
one_line "$tmp/err"
has "$tmp/err" "--p2p-level: expected loc, nvl, nvb, pix, pxb, phb, sys or NCCL's old numbers (0 loc, 1 pix, 2 pxb, 3 phb, 4 and above sys), got 'nvlink'"

# --- --gpus: some GPUs of each node, as nccl-tests with that many ranks a
# node. gpu3 of h100-pcie5-400g alone (its switch holds gpu2, gpu3, nic2,
# nic3): NCCL 2.30.7's own search of that GPU alone (tools/nccl-oracle) finds
# one ring channel at 48 GB/s, the GPU's link, copied at 24, both on nic2,
# and the tree at 48/24. The ring's 1 GiB all-reduce over 2 ranks sends
# 2 (n - 1) / n x 1 GiB = 1 GiB out of nic2 at 400 Gbit/s x .95 = 47.5
# GB/s: busbw 47.5 less the latency (under 0.5% at 1 GiB).
expect 0 "--gpus 3" -- "$gdrlab" busbw -t "$h100" -n 2 --gpus 3 -b 1G -e 1G --algo ring --proto simple
has "$tmp/out" "2 nodes x 1 of 8 GPUs (3) = 2 ranks"
has "$tmp/out" "ring 2 channels, bw 24.0/24.0, type PCI/PIX; tree 2 channels, bw 48.0/24.0, type PCI/PIX, pattern TREE;"
rows "$tmp/out" | awk '$8 < 47.26 || $8 > 47.5 { print "FAIL: --gpus 3 busbw " $8 ", not 47.5 less the latency"; bad = 1 } END { exit bad }' || fail=1
expect 0 "--gpus, json" -- "$gdrlab" busbw -t "$h100" -n 2 --gpus 0,2-3 -b 8 -e 8 --json -
tr -d ' \n' <"$tmp/out" >"$tmp/flat"
has "$tmp/flat" '"gpus":\[0,2,3\]'
has "$tmp/flat" '"ranks":6'
for bad in 8 1,1 3-1 x 0-; do
    expect 2 "--gpus $bad" -- "$gdrlab" busbw -t "$h100" --gpus "$bad"
    one_line "$tmp/err"
done
has "$tmp/err" "--gpus: expected a node's GPUs as indices and ranges (3, 0-3, 0,2,4-7), got '0-'"

# --- JSON: parses; the same rows; exact relations in full precision
expect 0 "json" -- "$gdrlab" busbw -t "$abci" --json "$tmp/ar.json"
json_ok "$tmp/ar.json"
same "json to a file keeps the table" "$tmp/out" "$tmp/ar.txt"
expect 0 "json -" -- "$gdrlab" busbw -t "$abci" --json -
json_ok "$tmp/out"
grep -q '^#' "$tmp/out" && { echo "FAIL: --json - printed the table too"; fail=1; }
has "$tmp/ar.json" '"ranks": 8'
has "$tmp/ar.json" '"test": "all_reduce_perf"'
awk '{ gsub(/[",]/, "") }
    $1 == "size:" { s = $2 } $1 == "count:" { c = $2 } $1 == "time_us:" { t = $2 }
    $1 == "algbw_gbps:" { a = $2 }
    $1 == "busbw_gbps:" { b = $2; n++; sum += b; print s, c
        if (a - s / t / 1000 > 1e-6 * a || s / t / 1000 - a > 1e-6 * a ||
            b - a * 1.75 > 1e-6 * b || a * 1.75 - b > 1e-6 * b) { print "FAIL: json row " s ": " t " " a " " b > "/dev/stderr"; bad = 1 } }
    $1 == "avg_busbw_gbps:" { avg = $2 }
    END { if (avg - sum / n > 1e-6 * avg || sum / n - avg > 1e-6 * avg) { print "FAIL: json avg" > "/dev/stderr"; bad = 1 }
          exit bad }' "$tmp/ar.json" >"$tmp/got" || fail=1
rows "$tmp/ar.txt" | awk '{ print $1, $2 }' >"$tmp/want"
same "json rows = table rows" "$tmp/got" "$tmp/want"

# --- CSV
expect 0 "csv" -- "$gdrlab" busbw -t "$abci" -b 1M -e 8M --csv -
head -1 "$tmp/out" >"$tmp/got"
echo "size,count,type,redop,root,time_us,algbw_gbps,busbw_gbps,algo,proto,channels,nccl_estimate_us,path" >"$tmp/want"
same "csv header" "$tmp/got" "$tmp/want"
awk -F, 'NR > 1 { print $1 }' "$tmp/out" >"$tmp/got"
printf '1048576\n2097152\n4194304\n8388608\n' >"$tmp/want"
same "csv rows" "$tmp/got" "$tmp/want"

# --- one rank (one node of one GPU): NCCL copies the buffer and runs no
# tuner (enqueue.cc, nRanks == 1), so there is no estimate of NCCL's: N/A
# in the table, null in JSON, empty in CSV, as for p2p; two ranks have
# one. -b 8 -e 64M -f 64: 8, 512, 32768, 2097152 bytes, four rows.
one=$src/tests/data/one-gpu-two-nics.yaml
expect 0 "one rank" -- "$gdrlab" busbw -t "$one" -n 1 -b 8 -e 64M -f 64
has "$tmp/out" "1 node x 1 GPU = 1 rank"
has "$tmp/out" "^# one rank: NCCL copies the buffer on its GPU (src/device/onerank.cu), which gdrlab does not time"
rows "$tmp/out" | awk 'NF != 18 || $17 != "N/A" { print "FAIL: one rank, nccl_est: " $0; bad = 1 }
    END { if (NR != 4) { print "FAIL: one rank: " NR " rows, want 4"; bad = 1 }; exit bad }' || fail=1
expect 0 "one rank json" -- "$gdrlab" busbw -t "$one" -n 1 -b 8 -e 64M -f 64 --json -
json_ok "$tmp/out"
[ "$(grep -c '"nccl_estimate_us": null,$' "$tmp/out")" = 4 ] && ! grep -q '"nccl_estimate_us": [0-9]' "$tmp/out" ||
    { echo "FAIL: one rank: nccl_estimate_us not null in every row:"; cat "$tmp/out"; fail=1; }
# time, algbw and busbw 0, as the table and `run --json` give them (null
# from 2026-12-06 to 12-07, where run said 0): nothing crosses a link,
# and nccl-tests' busbw is algbw x 2(n-1)/n (src/all_reduce.cu
# AllReduceGetBw; doc/PERFORMANCE.md), 0 for n = 1 whatever the time
for k in time_us algbw_gbps busbw_gbps; do
    [ "$(grep -c "\"$k\": 0.0,\$" "$tmp/out")" = 4 ] ||
        { echo "FAIL: one rank: $k not 0 in every row:"; cat "$tmp/out"; fail=1; }
done
expect 0 "one rank csv" -- "$gdrlab" busbw -t "$one" -n 1 -b 8 -e 64M -f 64 --csv -
awk -F, 'NR > 1 && (NF != 13 || $12 != "" || $6 != 0 || $7 != 0 || $8 != 0) { print "FAIL: one rank, csv: " $0; bad = 1 }
    END { exit bad }' "$tmp/out" || fail=1
# run --json of the same one-rank call: the same three 0s
printf '{"iteration": 0, "op": "allreduce", "bytes": 2097152}\n' >"$tmp/one.jsonl"
expect 0 "one rank run" -- "$gdrlab" run -t "$one" -n 1 -T "$tmp/one.jsonl" --json -
for k in time_us algbw_gbps busbw_gbps; do
    has "$tmp/out" "^      \"$k\": 0.0,$"
done
expect 0 "two ranks" -- "$gdrlab" busbw -t "$one" -n 2 -b 8 -e 64M -f 64
rows "$tmp/out" | awk '$17 !~ /^[0-9.]+$/ { print "FAIL: two ranks, nccl_est: " $0; bad = 1 } END { exit bad }' ||
    fail=1

# --chunk is the bounce buffer of emu's and real's own ring, which busbw's
# timing backends do not run (they copy NCCL's slices), and --buffers only
# staged-memcpy's: the table is the one without them, and a note says so
expect 0 "plain, for --chunk" -- "$gdrlab" busbw -t a100-pcie4-200g -q -b 64M -e 64M
cp "$tmp/out" "$tmp/plain.txt"
expect 0 "--chunk" -- "$gdrlab" busbw -t a100-pcie4-200g -q -b 64M -e 64M --chunk 64K
same "--chunk: the table without it" "$tmp/out" "$tmp/plain.txt"
has "$tmp/err" "gdrlab busbw: note: --chunk changes nothing here: only emu's and real's own ring copies by it"
expect 0 "--buffers off staged-memcpy" -- "$gdrlab" busbw -t a100-pcie4-200g -q -b 64M -e 64M --buffers 1
same "--buffers off staged-memcpy: the table without it" "$tmp/out" "$tmp/plain.txt"
has "$tmp/err" "gdrlab busbw: note: --buffers changes nothing here: only the staged-memcpy path"
expect 0 "--buffers on staged-memcpy" -- "$gdrlab" busbw -t a100-pcie4-200g -q -b 64M -e 64M --buffers 1 -p staged-memcpy
[ -s "$tmp/err" ] && { echo "FAIL: a note for --buffers on staged-memcpy:"; cat "$tmp/err"; fail=1; }

# --- usage errors: exit 2, one line
bad_usage() { bad_usage_of busbw "$@"; } # bad_usage WHAT MESSAGE -- args...
bad_usage "no topology" "--topology is required" -- -b 8
bad_usage "bad -b" "--minbytes: expected a size like 8, 1K, 8M or 8G (powers of 1024; 8MB and 8MiB are 8M)" -- -t "$abci" -b 8X
# strtod's hexadecimal and exponents are no sizes the help offers (0x10
# was 16, 1e3 1000)
for v in 0x10 1e3 1.2.3 .; do
    bad_usage "-b $v" "--minbytes: expected a size like 8, 1K, 8M or 8G (powers of 1024; 8MB and 8MiB are 8M) (at most 1024G), got '$v'" -- -t "$abci" -b "$v"
done
bad_usage "negative -e" "--maxbytes: expected a size" -- -t "$abci" -e -8
bad_usage "huge -e" "--maxbytes: expected a size" -- -t "$abci" -e 2000G
bad_usage "huge -e, the file's way" "--maxbytes: expected a size" -- -t "$abci" -e 2000GiB
# nccl-tests reads a size's letter alone: 1MiB and 1MB are 1M (1048576),
# and "1 MiB", as a topology file writes it, too
expect 0 "-b 1MiB -e 1MB" -- "$gdrlab" busbw -t "$abci" -b 1MiB -e 1MB
has "$tmp/out" "^ *1048576 "
[ "$(grep -vc '^#' "$tmp/out")" -eq 1 ] || { echo "FAIL: 1MiB to 1MB is not one size"; fail=1; }
expect 0 "-b '1 MiB'" -- "$gdrlab" busbw -t "$abci" -b "1 MiB" -e 1M
has "$tmp/out" "^ *1048576 "
bad_usage "-f 0" "--stepfactor: expected a whole number from 1 to 1024, got '0'" -- -t "$abci" -f 0
bad_usage "-i 0" "--stepbytes: expected a size above 0" -- -t "$abci" -i 0
bad_usage "-f and -i" "--stepfactor and --stepbytes exclude each other" -- -t "$abci" -f 2 -i 1M
# -f 1 -i: nccl-tests' own way of asking for steps of -i
expect 0 "-f 1 -i" -- "$gdrlab" busbw -t "$abci" -f 1 -i 4K -b 4K -e 12K
[ "$(rows "$tmp/out" | awk '{ printf "%s ", $1 }')" = "4096 8192 12288 " ] || { echo "FAIL: -f 1 -i 4K"; fail=1; }
bad_usage "-b above -e" "--minbytes 2147483648 is above --maxbytes 1073741824" -- -t "$abci" -b 2G -e 1G
bad_usage "-b 0 -f 2" "--minbytes 0 with --stepfactor" -- -t "$abci" -b 0
bad_usage "too many sizes" "--minbytes 1 to --maxbytes 1073741824 in steps of 1 makes more than 65536 sizes" -- -t "$abci" -b 1 -e 1G -i 1
bad_usage "unknown op" "--op: expected allreduce, all_gather" -- -t "$abci" --op reduce
bad_usage "unknown type" "--datatype: expected float, half" -- -t "$abci" -d float8
bad_usage "unknown option" "unknown option '--frobnicate'" -- -t "$abci" --frobnicate
bad_usage "missing value" "-b needs a value" -- -t "$abci" -b
bad_usage "stray argument" "unexpected argument 'extra'" -- -t "$abci" extra
# two documents on stdout would run into each other
bad_usage "two outputs on stdout" "--json - and --csv -: one output on stdout at most" -- -t "$abci" --json - --csv -
bad_usage_of run "two outputs on stdout" "--json - and --timeline -: one output on stdout at most" -- \
    -t "$abci" -T "$src/traces/resnet50-ddp.jsonl" --json - --timeline -
bad_usage_of compare "two outputs on stdout" "--json - and --csv -: one output on stdout at most" -- \
    -t "$abci" -T "$src/traces/resnet50-ddp.jsonl" --json - --csv -
bad_usage "bad nodes" "--nodes: expected a whole number" -- -t "$abci" -n 0
bad_usage "bad path" "--path: expected" -- -t "$abci" -p sideways
bad_usage "bad algo" "" -- -t "$abci" --algo sideways
bad_usage "unknown backend" "--backend: unknown backend 'nope'" -- -t "$abci" --backend nope
# NCCL's MAXCHANNELS: 32 until 2.24 (src/device.h), 64 from 2.25
bad_usage "too many channels" "--channels: 40 is more than NCCL 2.19.3's 32" -- -t "$abci" --nccl 2.19.3 --channels 40
bad_usage "too many channels, newest" "--channels: expected a whole number from 1 to 64" -- -t "$abci" --channels 65
bad_usage "one rank's sendrecv" "sendrecv needs 2 ranks, the cluster has 1 (give --nodes)" -- -t h100-superpod-ib -n 1 --op sendrecv --gpus 3
bad_usage "not an NCCL version" "--nccl: expected an NCCL 2 version from 2.7 on (2.18.5, 2.18), got '3.0'; this build has the tables of 2.30.7, 2.21.5, 2.19.3, 2.12.12, 2.8.4" -- -t "$abci" --nccl 3.0
# another release: the tables that stand for it (2.17 - 2.20: 2.19.3's), said,
# and the header names the release asked for (validate reads it back)
expect 0 "--nccl 2.18.5" -- "$gdrlab" busbw -t "$abci" --nccl 2.18.5 -b 1M -e 1M
has "$tmp/err" "^gdrlab busbw: --nccl 2.18.5: NCCL 2.19.3's tables, which stand for 2.17 to 2.20$"
has "$tmp/out" "^# path auto, GDR level PXB, NCCL 2.18.5 (2.19.3's tables)$"
# what the tables cannot tell follows the release asked for: GDR's
# default PXB before 2.27 (2.30.7's tables stand for 2.25 on), p2p LL
# on one node from 2.14 (2.12.12's stand for 2.10 - 2.16)
expect 0 "--nccl 2.26" -- "$gdrlab" busbw -t gh200-grace-hopper --nccl 2.26 -b 1M -e 1M
has "$tmp/out" "GDR level PXB, NCCL 2.26 (2.30.7's tables)$"
expect 0 "--nccl 2.27" -- "$gdrlab" busbw -t gh200-grace-hopper --nccl 2.27 -b 1M -e 1M
has "$tmp/out" "GDR level P2C, NCCL 2.27 (2.30.7's tables)$"
# and the search's constants of the release asked for (nccl_release_exact):
# 2.17's NVLink is 22 GB/s a link (v2.17.1-1 topo.h:16), 2.18's 20, so an
# A100's 12 links carry 13 ring channels at 20 GB/s (264 / 20), not 12
for v in 2.17:13 2.18:12; do
    expect 0 "--nccl ${v%:*} NVLink" -- "$gdrlab" busbw -t a100-pcie4-200g -n 1 --nccl "${v%:*}" -b 1M -e 1M
    has "$tmp/out" "ring ${v#*:} channels, bw 20.0/20.0, type NVL;"
done
for v in 2.12.12:Simple 2.14:LL; do
    expect 0 "--nccl ${v%:*} sendrecv" -- "$gdrlab" busbw -t h100-superpod-ib -n 1 --op sendrecv --nccl "${v%:*}" -b 1K -e 1K
    rows "$tmp/out" | awk -v p="${v#*:}" '$15 != p { print "FAIL: " $0; bad = 1 } END { exit bad }' || fail=1
done

# --- --nccl: the release in the header and the JSON; 2.8.4's GDR level
# default (PXB) unless -g says otherwise, before or after it
expect 0 "nccl default" -- "$gdrlab" busbw -t "$abci" -b 1M -e 1M
has "$tmp/out" "^# path auto, GDR level P2C, NCCL 2.30.7$"
expect 0 "nccl 2.8.4" -- "$gdrlab" busbw -t "$abci" -b 1M -e 1M --nccl 2.8.4
has "$tmp/out" "^# path auto, GDR level PXB, NCCL 2.8.4$"
expect 0 "-g before --nccl" -- "$gdrlab" busbw -t "$abci" -b 1M -e 1M -g phb --nccl v2.8.4-1
has "$tmp/out" "^# path auto, GDR level PHB, NCCL 2.8.4$"
expect 0 "-g after --nccl" -- "$gdrlab" busbw -t "$abci" -b 1M -e 1M --nccl 2.8.4 -g sys --json -
json_ok "$tmp/out"
has "$tmp/out" '"nccl": "2.8.4"'
has "$tmp/out" '"gdr_level": "SYS"'
if ! "$gdrlab" backends | grep -q '^emu  *absent'; then
    bad_usage "a measuring backend" "--backend: 'emu' measures, it does not predict" -- -t "$abci" --backend emu
fi
bad_usage "no algorithm left, and why" "size 8: --algo/--proto allow no algorithm and protocol that can run allreduce here (NVLS/Simple: needs NVSwitches with NVLink SHARP" -- -t "$abci" --algo nvls
# --- a shipped topology by name: configs/NAME.yaml, then
# configs/validation/; a file of that name here comes first
expect 0 "by path" -- "$gdrlab" busbw -t "$src/configs/validation/abci-v100-2xedr.yaml" -b 1M -e 4M
cp "$tmp/out" "$tmp/by_path.txt"
expect 0 "by name" -- "$gdrlab" busbw -t abci-v100-2xedr -b 1M -e 4M
same "shipped by name" "$tmp/out" "$tmp/by_path.txt"
expect 0 "by name with its extension" -- "$gdrlab" busbw -t abci-v100-2xedr.yaml -b 1M -e 4M
same "shipped by name.yaml" "$tmp/out" "$tmp/by_path.txt"
has "$tmp/out" "^# topology abci-v100-2xedr ($src/configs/validation/abci-v100-2xedr.yaml)"
mkdir "$tmp/here"
cp "$src/configs/h100-pcie5-400g.yaml" "$tmp/here/abci-v100-2xedr.yaml"
(cd "$tmp/here" && "$gdrlab" busbw -t abci-v100-2xedr.yaml -b 1M -e 1M) >"$tmp/out" 2>"$tmp/err" ||
    { echo "FAIL: a file here named like a preset"; cat "$tmp/err"; fail=1; }
has "$tmp/out" "^# topology h100-pcie5-400g (abci-v100-2xedr.yaml)"
# a name that is none: every shipped name, sorted, from both folders; a
# part of names: those it is part of, in any case
bad_usage "unknown shipped name" "--topology: 'no-such-preset': no such file, nor a shipped topology of that name (shipped: a100-1gpu-hdr, a100-pcie4-200g, abci-v100-2xedr, dgx-a100-8x200g, dgx1-v100-4xedr, " -- -t no-such-preset
has "$tmp/err" ", two-socket-commodity) (see"
bad_usage "part of a name" "--topology: 'ABCI': no such file, nor a shipped topology of that name; did you mean abci-v100-2xedr? (see" -- -t ABCI
bad_usage "part of names" "--topology: 'h100': no such file, nor a shipped topology of that name; did you mean h100-4x400g-roce, h100-nic-per-gpu, h100-nvl-pcie-pairs, h100-pcie5-400g, h100-roce-clos, h100-superpod-ib? (see" -- -t h100
GDRLAB_DATA_DIR=$tmp/here bad_usage "data folder moved" "--topology: 'abci-v100-2xedr': no such file, nor a shipped topology of that name (none shipped in $tmp/here/configs)" -- -t abci-v100-2xedr
expect 2 "missing topology file" -- "$gdrlab" busbw -t "$tmp/none.yaml" --json "$tmp/no.json"
has "$tmp/err" "none.yaml"
one_line "$tmp/err"
[ ! -e "$tmp/no.json" ] || { echo "FAIL: no.json written"; fail=1; }
# a folder that is not there: said before the run, bad input (2)
expect 2 "unwritable json" -- "$gdrlab" busbw -t "$abci" -e 1K --json "$tmp/no/dir.json"
has "$tmp/err" "gdrlab busbw: $tmp/no/dir.json: cannot create: No such file or directory"
one_line "$tmp/err"

# --- --json into what is not a regular file: written in place or through
# a link, never replaced by a regular file (engine/output_file.c)
echo old >"$tmp/target.txt"
ln -s target.txt "$tmp/link.json"
expect 0 "json through a symlink" -- "$gdrlab" busbw -t "$abci" -e 1K --json "$tmp/link.json"
[ -L "$tmp/link.json" ] || { echo "FAIL: link.json is no longer a symlink"; fail=1; }
json_ok "$tmp/target.txt"
mkfifo "$tmp/f.json"
timeout 10 cat "$tmp/f.json" >"$tmp/fifo.out" &
reader=$!
expect 0 "json into a FIFO" -- timeout 10 "$gdrlab" busbw -t "$abci" -e 1K --json "$tmp/f.json"
wait "$reader" || { echo "FAIL: the FIFO's reader got no end of file"; fail=1; }
json_ok "$tmp/fifo.out"
[ -p "$tmp/f.json" ] || { echo "FAIL: the FIFO was replaced"; fail=1; }
# A full device, as root: first one of our own, so that a gdrlab that
# replaces devices fails there and never gets to touch /dev/full.
full_device() { # full_device WHAT PATH: 0 when it failed as it should
    local got
    "$gdrlab" busbw -t "$abci" -e 1K --json "$2" >"$tmp/out" 2>"$tmp/err"; got=$?
    if [ "$got" = 1 ] && [ -c "$2" ] && [ "$(wc -l <"$tmp/err")" = 1 ] &&
       grep -q "^gdrlab busbw: $2: .*No space left on device$" "$tmp/err"; then
        return 0
    fi
    echo "FAIL: $1: exit $got, want 1 and one line naming $2 and ENOSPC:"
    cat "$tmp/err"
    [ -c "$2" ] || echo "FAIL: $2 is no longer a character device"
    fail=1
    return 1
}
if [ "$(id -u)" = 0 ] && mknod "$tmp/full" c 1 7 2>/dev/null &&
   (head -c 1 /dev/zero >"$tmp/full") 2>&1 | grep -q "No space" &&
   full_device "json to our full device" "$tmp/full" && [ -c /dev/full ]; then
    full_device "json to /dev/full" /dev/full
fi
# stdout that cannot take the table (a full disk, /dev/full): a failure,
# exit 1, one line, on every command (cli/main.c); it was exit 0, and
# --json - said only "Input/output error"
if [ -c /dev/full ]; then
    for args in "busbw -t $abci -e 1K" "busbw -t $abci -e 1K --json -" \
        "run -t $src/configs/a100-pcie4-200g.yaml -T $src/traces/llama2-7b-ddp.jsonl -n 64 --json -"; do
        # shellcheck disable=SC2086 # the arguments are words
        "$gdrlab" $args >/dev/full 2>"$tmp/err"; got=$?
        [ "$got" = 1 ] || { echo "FAIL: $args > /dev/full: exit $got, want 1"; fail=1; }
        has "$tmp/err" "^gdrlab ${args%% *}: stdout: No space left on device$"
        one_line "$tmp/err"
    done
fi
exit $fail
