#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# gdrlab validate --nccl-tests: a real nccl-tests output (ABCI, 2 nodes x 4
# V100, tests/data/nccl-tests/all_reduce_2nodes.txt) against its validation
# topology. Every size of the file, with the file's time; the prediction
# the same as `gdrlab busbw` prints; the error and the regimes recomputed
# here; the cluster taken from the file and checked against the topology;
# every bad file refused with the reader's one line, and no output file.
# usage: test_validate_nccl_tests.sh GDRLAB SOURCE_DIR
set -u
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
data=$src/tests/data/nccl-tests
file=$data/all_reduce_2nodes.txt
abci=$src/configs/validation/abci-v100-2xedr.yaml

same() {
    diff "$2" "$3" >"$tmp/diff" || { echo "FAIL: $1:"; cat "$tmp/diff"; fail=1; }
}
# the rows of validate's table: lines that start with a size
vrows() { awk '$1 ~ /^[0-9]+$/' "$1"; }

expect 0 "help" -- "$gdrlab" validate --help
has "$tmp/out" "usage: gdrlab validate --backend emu|real"
has "$tmp/out" "usage: gdrlab validate --nccl-tests FILE --topology FILE"

# The file (nccl-tests of 2021) does not name its collective: --op.
expect 2 "no --op" -- "$gdrlab" validate --nccl-tests "$file" -t "$abci"
has "$tmp/err" "all_reduce_2nodes.txt: collective: the file does not name its collective"
one_line "$tmp/err"

# A topology that says 8 nodes: the file's 2 hosts win.
sed 's/^nodes: 2$/nodes: 8/' "$abci" >"$tmp/abci8.yaml"
grep -q '^nodes: 8$' "$tmp/abci8.yaml" || { echo "FAIL: could not make abci8.yaml"; fail=1; }
expect 0 "all_reduce 2 nodes" -- "$gdrlab" validate --nccl-tests "$file" -t "$tmp/abci8.yaml" --op allreduce
cp "$tmp/out" "$tmp/v.txt"
has "$tmp/v.txt" "8 ranks on 2 hosts"
has "$tmp/v.txt" ": 2 nodes x 4 GPUs"

# Every size of the file, in order, with its out-of-place time (the
# 2021 layout: size count type redop time algbw busbw error ...).
awk '/^ *[0-9]/ { printf "%s %.2f %.2f\n", $1, $5, $7 }' "$file" >"$tmp/want"
[ "$(wc -l <"$tmp/want")" -eq 24 ] || { echo "FAIL: not the 24 rows of the file"; fail=1; }
vrows "$tmp/v.txt" | awk '{ printf "%s %.2f %.2f\n", $1, $2, $5 }' >"$tmp/got"
same "sizes and measured times and busbw" "$tmp/got" "$tmp/want"

# The predicted time is busbw's for the same sizes, op and nodes.
expect 0 "busbw of the same" -- "$gdrlab" busbw -t "$abci" -n 2 -b 4 -e 32M -f 2
awk '!/^#/ { print $1, $6, $8, $14, $15 }' "$tmp/out" >"$tmp/want"
vrows "$tmp/v.txt" | awk '{ print $1, $3, $6, $7, $8 }' >"$tmp/got"
same "predicted = busbw's (size time busbw algo proto)" "$tmp/got" "$tmp/want"

# error = (measured - predicted) / predicted, from the printed columns
vrows "$tmp/v.txt" | awk '{
    e = $4; sub(/%$/, "", e); want = 100 * ($2 - $3) / $3
    if (e - want > 0.15 || want - e > 0.15) { print "FAIL: error " $4 " for " $2 " vs " $3 ": " want; bad = 1 } }
    END { exit bad }' || fail=1

# busbw's run options that change nothing here are said so, as busbw
# says them (validate took --chunk, --buffers and --set staging.* in
# silence), and its prediction is the one without them
expect 0 "the table to hold against" -- "$gdrlab" validate --nccl-tests "$file" -t "$abci" --op allreduce
cp "$tmp/out" "$tmp/plain.txt"
expect 0 "--chunk, --buffers, --set staging.*" -- "$gdrlab" validate --nccl-tests "$file" -t "$abci" \
    --op allreduce --chunk 64K --buffers 2 --set staging.copy_bandwidth=1GB/s
has "$tmp/err" "gdrlab validate: note: --chunk changes nothing here: only emu's and real's own ring copies by it"
has "$tmp/err" "gdrlab validate: note: --buffers changes nothing here: only the staged-memcpy path"
has "$tmp/err" "gdrlab validate: note: --set staging.copy_bandwidth changes nothing here: only the staged-memcpy path"
grep -v "^--set\|^# --set" "$tmp/out" | diff - "$tmp/plain.txt" >/dev/null ||
    { echo "FAIL: --chunk, --buffers, --set staging.* moved the prediction:"; diff "$tmp/out" "$tmp/plain.txt"; fail=1; }

# JSON: parses; the regimes and verdicts follow the rule from the sizes
expect 0 "json" -- "$gdrlab" validate --nccl-tests "$file" -t "$abci" --op all_reduce --json "$tmp/v.json"
json_ok "$tmp/v.json"
has "$tmp/v.json" '"nodes": 2'
has "$tmp/v.json" '"hosts": 2'
has "$tmp/v.json" '"tolerance_pct": 15'
awk -v tol=15 '{ gsub(/[",]/, "") }
    $1 == "size:" { s = $2 } $1 == "measured_us:" { m = $2 } $1 == "predicted_us:" { p = $2 }
    $1 == "error_pct:" { e = $2 } $1 == "predicted_busbw_gbps:" { b[++n] = $2 }
    $1 == "regime:" { r[n] = $2; want = 100 * (m - p) / p
        if (e - want > 1e-6 || want - e > 1e-6) { print "FAIL: error_pct " e " of " s; bad = 1 }
        err[n] = e }
    $1 == "size:" && $2 > largest { largest = $2 }
    $1 == "peak_predicted_busbw_gbps:" { peak = $2 } $1 == "peak_predicted_size:" { psize = $2 }
    $1 == "latency:" || $1 == "bandwidth:" { k = $1; sub(/:/, "", k) }
    $1 == "mean_error_pct:" { mean[k] = $2 } $1 == "verdict:" { verdict[k] = $2 }
    $1 == "mean_abs_error_pct:" { amean[k] = $2 }
    END {
        for (i = 1; i <= n; i++) {
            if (b[i] > top) top = b[i]
        }
        # the rows stop at 32 MiB: the peak is 256 MiB`s, at least theirs
        if (psize != 268435456 || largest >= psize || peak < top) {
            print "FAIL: peak " peak " at " psize ", rows to " largest " reach " top; bad = 1 }
        for (i = 1; i <= n; i++) {
            g = b[i] < peak / 2 ? "latency" : "bandwidth"
            if (r[i] != g) { print "FAIL: row " i " is " r[i ] ", busbw " b[i] " of " peak " says " g; bad = 1 }
            sum[g] += err[i]; cnt[g]++; asum[g] += err[i] < 0 ? -err[i] : err[i]
        }
        for (g in cnt) {
            m = sum[g] / cnt[g]; a = asum[g] / cnt[g]
            # sizes off both ways cancel in the mean: mixed
            v = m > tol ? "slower" : m < -tol ? "faster" : a > tol ? "mixed" : "normal"
            if (mean[g] - m > 1e-6 || m - mean[g] > 1e-6 || amean[g] - a > 1e-6 || a - amean[g] > 1e-6 ||
                verdict[g] != v) {
                print "FAIL: " g ": mean " mean[g] " |" amean[g] "| verdict " verdict[g] ", recomputed " m " |" a "| " v
                bad = 1 }
        }
        # this file: its latency sizes -21% to +16% (mean -7.1%, |15.7%|)
        if (verdict["latency"] != "mixed") { print "FAIL: 2 nodes latency not mixed"; bad = 1 }
        if (!cnt["latency"] || !cnt["bandwidth"]) { print "FAIL: a regime has no sizes"; bad = 1 }
        exit bad }' "$tmp/v.json" || fail=1
# the table says the same verdicts
awk '{ gsub(/[",]/, "") } $1 == "latency:" || $1 == "bandwidth:" { k = $1; sub(/:/, "", k) }
    $1 == "verdict:" { w = $2 == "normal" || $2 == "mixed" ? $2 : $2 " than expected"; print k, w }' \
    "$tmp/v.json" >"$tmp/want"
awk '$1 == "latency" || $1 == "bandwidth" { v = $0; sub(/.*: /, "", v); sub(/ \((tolerance|mean ).*/, "", v); print $1, v }' \
    "$tmp/v.txt" >"$tmp/got"
same "verdicts in the table" "$tmp/got" "$tmp/want"
# a tolerance wide enough calls everything normal
expect 0 "wide tolerance" -- "$gdrlab" validate --nccl-tests "$file" -t "$abci" --op allreduce --tolerance 1000
[ "$(grep -c ': normal (tolerance 1000%)' "$tmp/out")" -eq 2 ] || { echo "FAIL: not normal at 1000%:"; cat "$tmp/out"; fail=1; }
expect 0 "json -" -- "$gdrlab" validate --nccl-tests "$file" -t "$abci" --op allreduce --json -
json_ok "$tmp/out"

# A file whose ranks per host are not the topology's GPUs per node.
expect 2 "8 ranks a host on a 4-GPU node" -- "$gdrlab" validate \
    --nccl-tests "$data/all_reduce_a100_2nodes.txt" -t "$abci" --json "$tmp/m.json"
has "$tmp/err" "all_reduce_a100_2nodes.txt: devices: 8 ranks per host (16 on 2 hosts), but $abci has 4 GPUs per node"
one_line "$tmp/err"
[ ! -e "$tmp/m.json" ] || { echo "FAIL: m.json written"; fail=1; }
# One rank a host on 8-GPU nodes (-g 1, one process a node; nccl-tests#150's
# 8 B): --gpus names the GPUs they ran on, and NCCL searches that GPU alone
# with every NIC of its node (docs/model.md §2). 2.30.7's Ring/LL over two
# ranks on two nodes: baseLat 6.6 us and 2 (nNodes - 1) network hops of LL's
# 5 us (tuning.cc), 16.6 us, against the measured 19.9.
one=$data/all_reduce_1gpu_2nodes.txt
dgx=$src/configs/validation/dgx-a100-8x200g.yaml
# the file's device lines give them (device 0 on each host)
expect 0 "1 rank a host, devices from the file" -- "$gdrlab" validate --nccl-tests "$one" -t "$dgx" --nccl 2.30.7
has "$tmp/out" "2 nodes x 1 of 8 GPUs (0) (the file's devices), path auto"
# its one 8-byte row is latency-bound: the peak is the prediction's at
# 256 MiB, not the file's own at 8 B (bandwidth-bound against 0.00 GB/s
# until 2026-12-06)
has "$tmp/out" "^regimes (latency-bound: predicted busbw below half its peak, [0-9.]* GB/s at 268435456 bytes):$"
has "$tmp/out" "^  latency    1 size, 8 to 8 bytes: "
has "$tmp/out" "^  bandwidth  no sizes$"
# where the hosts' devices differ, gdrlab cannot model it: --gpus says which
expect 2 "1 rank a host, devices differ" -- "$gdrlab" validate \
    --nccl-tests "$data/all_reduce_1gpu_2nodes_devices_differ.txt" -t "$dgx"
has "$tmp/err" "1 rank per host (2 on 2 hosts), but $dgx has 8 GPUs per node: give --gpus with the GPUs they ran on"
one_line "$tmp/err"
expect 2 "--gpus: two for one rank a host" -- "$gdrlab" validate --nccl-tests "$one" -t "$dgx" --gpus 0-1
has "$tmp/err" "1 rank per host (2 on 2 hosts), but --gpus gives 2 GPUs a node: give the ones they ran on"
one_line "$tmp/err"
expect 2 "--gpus: no such GPU" -- "$gdrlab" validate --nccl-tests "$one" -t "$dgx" --gpus 8
has "$tmp/err" "--gpus: GPU 8, but dgx-a100-8x200g has 8 GPUs a node (0-7), got '8'"
one_line "$tmp/err"
expect 0 "--gpus 0" -- "$gdrlab" validate --nccl-tests "$one" -t "$dgx" --gpus 0 --nccl 2.30.7 --json "$tmp/one.json"
has "$tmp/out" "2 nodes x 1 of 8 GPUs (0), path auto"
json_ok "$tmp/one.json"
tr -d ' \n' <"$tmp/one.json" >"$tmp/flat"
has "$tmp/flat" '"gpus":\[0\]'
awk '$1 == 8 && $2 == "19.90" { if ($3 != "16.60" || $7 != "Ring" || $8 != "LL") bad = 1; n++ }
    END { exit bad || n != 1 }' <(grep -v '^[a-z]' "$tmp/out") ||
    { echo "FAIL: not 19.90 measured, 16.60 predicted, Ring/LL:"; cat "$tmp/out"; fail=1; }

# --op against a file that names its collective
expect 2 "--op disagrees" -- "$gdrlab" validate --nccl-tests "$data/all_reduce_a100_2nodes.txt" \
    -t "$src/configs/a100-pcie4-200g.yaml" --op all_gather
has "$tmp/err" "the file is all_reduce_perf, --op says all_gather"
one_line "$tmp/err"
# --op whose sizes are not the file's: all_gather's are count x ranks
expect 2 "--op of other sizes" -- "$gdrlab" validate --nccl-tests "$file" -t "$abci" --op all_gather
first=$(awk '/^ *[0-9]/ { print NR; exit }' "$file")
has "$tmp/err" "all_reduce_2nodes.txt:$first: size: 4 bytes for count 1 x 4-byte float is not all_gather_perf's 32 (count x ranks)"
one_line "$tmp/err"
# the NCCL the file ran with (nccl-library=22703: 2.27.3) picks the table
# that stands for it, said so; --nccl overrides it, and its GDR default
expect 0 "the file's NCCL" -- "$gdrlab" validate --nccl-tests "$data/all_reduce_a100_2nodes.txt" \
    -t "$src/configs/a100-pcie4-200g.yaml" --json "$tmp/v.json"
has "$tmp/out" "GDR level P2C, NCCL 2.30.7 (the file ran 2.27.3: the table that stands for it)$"
has "$tmp/v.json" '"nccl_file": "2.27.3"'
expect 0 "--nccl over the file's" -- "$gdrlab" validate --nccl-tests "$data/all_reduce_a100_2nodes.txt" \
    -t "$src/configs/a100-pcie4-200g.yaml" --nccl 2.8.4
has "$tmp/out" "GDR level PXB, NCCL 2.8.4$"
# rows nccl-tests' data check found wrong (#wrong: every element of the
# 2 MiB row's in-place half, twice the 1 MiB row's out-of-place one) are
# no measure of the hardware: that regime's verdict says so, whatever its
# times (it was "normal" until 2026-12-06); the other's stands
awk '$1 == 1048576 { $9 = 524288 } $1 == 2097152 { $13 = 524288 } { print }' \
    "$data/all_reduce_a100_2nodes.txt" >"$tmp/wrong.txt"
expect 0 "wrong elements" -- "$gdrlab" validate --nccl-tests "$tmp/wrong.txt" \
    -t "$src/configs/a100-pcie4-200g.yaml" --json "$tmp/w.json"
has "$tmp/out" "^  latency .*: data corrupted (nccl-tests' #wrong: 1048576 elements in 2 of its sizes): its times say nothing of the hardware until that is fixed$"
has "$tmp/out" "^  bandwidth .*(tolerance 15%)$"
has "$tmp/w.json" '"wrong_elements": 1048576,'
has "$tmp/w.json" '"verdict": "data_corrupted"'
# -a 4: four calls a group launch share its host cost, which the
# prediction counts a call: said, as -G is; a file that names no NCCL is
# predicted under the newest's tables, said
sed 's/agg iters: 1/agg iters: 4/' "$data/all_reduce_a100_2nodes.txt" >"$tmp/agg.txt"
expect 0 "-a 4" -- "$gdrlab" validate --nccl-tests "$tmp/agg.txt" -t "$src/configs/a100-pcie4-200g.yaml" \
    --json "$tmp/agg.json"
has "$tmp/out" "^note: the run launched 4 calls a group (-a 4), their time over 4"
has "$tmp/agg.json" '"agg_iters": 4'
expect 0 "no NCCL named" -- "$gdrlab" validate --nccl-tests "$file" -t "$abci" --op allreduce
has "$tmp/out" "NCCL 2.30.7 (the file does not say which NCCL ran: --nccl for another)$"
# -z 1 and 2: the host waits for each call (1 with a barrier), which the
# times hold and the prediction does not count: said; -z 3 times the
# calls by events, nothing said; the JSON's flag, its mode unsaid
sed '/# nThread/a # Blocking Enabled: wait and barrier after each inner iteration (-m) ' \
    "$data/all_reduce_a100_2nodes.txt" >"$tmp/z1.txt"
expect 0 "-z 1" -- "$gdrlab" validate --nccl-tests "$tmp/z1.txt" -t "$src/configs/a100-pcie4-200g.yaml" \
    --json "$tmp/z1.json"
has "$tmp/out" "^note: the run waited on the host for each call (-z 1): its times hold that wait and a barrier"
has "$tmp/z1.json" '"blocking": true'
sed '/# nThread/a # Blocking Enabled: wait and barrier after each outer iteration (-n); time excludes barrier ' \
    "$data/all_reduce_a100_2nodes.txt" >"$tmp/z3.txt"
expect 0 "-z 3" -- "$gdrlab" validate --nccl-tests "$tmp/z3.txt" -t "$src/configs/a100-pcie4-200g.yaml"
grep -q "waited on the host" "$tmp/out" && { echo "FAIL: -z 3 said to wait a call"; fail=1; }
sed 's/"blocking_collectives":"false"/"blocking_collectives":"true"/' "$data/all_reduce_a100_2nodes.json" >"$tmp/z.json"
expect 0 "-z in JSON" -- "$gdrlab" validate --nccl-tests "$tmp/z.json" -t "$src/configs/a100-pcie4-200g.yaml"
has "$tmp/out" "^note: the run waited on the host for each call (-z): its times hold that wait, which"
# a file of 2.17-2.20 takes 2.19.3's tables (its GDR default PXB), of
# 2.21-2.24 2.21.5's, of 2.10-2.16 2.12.12's
for v in 21805:2.18.5:2.19.3 22203:2.22.3:2.21.5 21403:2.14.3:2.12.12; do
    IFS=: read -r code name table <<<"$v"
    sed "s/nccl-library=22703/nccl-library=$code/" "$data/all_reduce_a100_2nodes.txt" > "$tmp/ar.txt"
    expect 0 "a $name file" -- "$gdrlab" validate --nccl-tests "$tmp/ar.txt" \
        -t "$src/configs/a100-pcie4-200g.yaml"
    has "$tmp/out" "GDR level PXB, NCCL $table (the file ran $name: the table that stands for it)$"
done
expect 0 "--nccl 2.19.3" -- "$gdrlab" validate --nccl-tests "$data/all_reduce_a100_2nodes.txt" \
    -t "$src/configs/a100-pcie4-200g.yaml" --nccl v2.19.3-1
has "$tmp/out" "GDR level PXB, NCCL 2.19.3$"
# --nccl 2.17.1 predicts with 2.17.1's own search constants on 2.19.3's
# tables (22 GB/s NVLinks, v2.17.1-1 topo.h): the header names it as
# busbw's does for the same release, not 2.19.3 alone, and the times
# are busbw's at that release
expect 0 "busbw --nccl 2.17.1" -- "$gdrlab" busbw -t "$src/configs/validation/dgx-a100-8x200g.yaml" \
    -n 2 --nccl 2.17.1 -b 1M -e 1M
busbw_nccl=$(sed -n 's/^# path auto, GDR level PXB, NCCL \(.*\)$/\1/p' "$tmp/out")
busbw_us=$(awk '$1 == 1048576 { print $6 }' "$tmp/out")
[ "$busbw_nccl" = "2.17.1 (2.19.3's tables)" ] || { echo "FAIL: busbw --nccl 2.17.1 names '$busbw_nccl'"; fail=1; }
expect 0 "--nccl 2.17.1" -- "$gdrlab" validate --nccl-tests "$data/all_reduce_a100_2nodes.txt" \
    -t "$src/configs/validation/dgx-a100-8x200g.yaml" --nccl 2.17.1
has "$tmp/out" "GDR level PXB, NCCL $busbw_nccl$"
[ "$(awk '$1 == 1048576 { print $3 }' "$tmp/out")" = "$busbw_us" ] ||
    { echo "FAIL: validate --nccl 2.17.1 at 1M is not busbw's $busbw_us us"; fail=1; }
# the -J JSON of nccl-tests, and a collective it names
expect 0 "a -J file" -- "$gdrlab" validate --nccl-tests "$data/all_reduce_a100_2nodes.json" \
    -t "$src/configs/a100-pcie4-200g.yaml"
[ "$(vrows "$tmp/out" | wc -l)" -eq 11 ] || { echo "FAIL: not 11 sizes:"; cat "$tmp/out"; fail=1; }

# Each release's format (tests/data/nccl-tests/README.md) through validate.
two=$src/tests/data/two-gpus-one-nic.yaml
# v1.0.0 prints ms: the measured column is its time x 1000 (0.118 -> 118.00)
v1=$data/v1.0.0_all_reduce.txt
expect 0 "a v1.0.0 file" -- "$gdrlab" validate --nccl-tests "$v1" -t "$two" --op allreduce
has "$tmp/out" "(all_reduce_perf, float, 4 ranks on 2 hosts)"
awk '$1 ~ /^[0-9]+$/ && NF == 12 { printf "%s %.2f %.2f\n", $1, 1000 * $5, $7 }' "$v1" >"$tmp/want"
[ "$(wc -l <"$tmp/want")" -eq 9 ] || { echo "FAIL: not the 9 rows of $v1"; fail=1; }
vrows "$tmp/out" | awk '{ printf "%s %.2f %.2f\n", $1, $2, $5 }' >"$tmp/got"
same "v1.0.0: sizes, times in us, busbw" "$tmp/got" "$tmp/want"
# -J lists one device per process: 2 processes x -g 2 are 4 ranks, 2 a host
expect 0 "a -J file of -g 2" -- "$gdrlab" validate --nccl-tests "$data/all_gather_2procs_g2.json" -t "$two"
has "$tmp/out" "(all_gather_perf, float, 4 ranks on 2 hosts)"
[ "$(vrows "$tmp/out" | wc -l)" -eq 7 ] || { echo "FAIL: not 7 sizes:"; cat "$tmp/out"; fail=1; }
# groups that ran at once (NCCL_TESTS_SPLIT) are no collective alone
expect 2 "split groups" -- "$gdrlab" validate --nccl-tests "$data/split_all_gather.txt" -t "$two"
has "$tmp/err" "split_all_gather.txt: devices: 2 groups of ranks ran at once (NCCL_TESTS_SPLIT)"
one_line "$tmp/err"
# sendrecv_perf's ring (rank r to r + 1) with the ranks spread over the
# hosts leaves a host at every rank: not the one pair across nodes the
# prediction times, refused (was predicted as that pair, 2x too fast)
expect 2 "sendrecv spread over hosts" -- "$gdrlab" validate --nccl-tests "$data/sendrecv_spread_hosts.txt" -t "$abci"
has "$tmp/err" "sendrecv_spread_hosts.txt: devices: the ranks are spread over the hosts, not listed a host at a time"
one_line "$tmp/err"
# 8 ranks on one host and 4 on the other (the last four device lines
# left out): uneven, said so (was "6 ranks per host (12 on 2 hosts)")
grep -v '^# *Rank *1[2-5] ' "$data/all_reduce_a100_2nodes.txt" >"$tmp/uneven.txt"
expect 2 "uneven hosts" -- "$gdrlab" validate --nccl-tests "$tmp/uneven.txt" -t a100-pcie4-200g
has "$tmp/err" "uneven.txt: devices: 12 ranks on 2 hosts, 4 to 8 a host: not as many on every host, which gdrlab cannot model"
one_line "$tmp/err"
# -n that is not the file's: 16 ranks in its device lines, 8 predicted:
# refused, not judged +191% (until 2026-12-06); without device lines the
# rows' bus factor tells: busbw's own table of 8 ranks (busbw / algbw
# 1.750) against 16 predicted (1.875), refused at the row read
expect 2 "-n against the devices" -- "$gdrlab" validate --nccl-tests "$data/all_reduce_a100_2nodes.txt" \
    -t a100-pcie4-200g -n 1
has "$tmp/err" "all_reduce_a100_2nodes.txt: devices: the file ran 16 ranks, the prediction takes 8: give -n and --gpus as they ran"
one_line "$tmp/err"
expect 0 "busbw's table of 8 ranks" -- "$gdrlab" busbw -t "$abci" -n 2 -b 1M -e 64M -f 4
cp "$tmp/out" "$tmp/own8.txt"
expect 2 "-n against the rows" -- "$gdrlab" validate --nccl-tests "$tmp/own8.txt" -t "$abci" -n 4
has "$tmp/err" "own8.txt:[0-9]*: busbw: [0-9.]* / [0-9.]* GB/s: a bus factor of 1.750, where 16 ranks give 1.875"
one_line "$tmp/err"
# 32 ranks against 64: the factor is read to the printed 0.01 GB/s of
# either figure (1.938 against 1.969), not to 5%, which let it through
# until 2026-12-06
expect 0 "busbw's table of 32 ranks" -- "$gdrlab" busbw -t dgx-a100-8x200g -n 4 -b 1M -e 64M -f 4
cp "$tmp/out" "$tmp/own32.txt"
expect 0 "its own ranks" -- "$gdrlab" validate --nccl-tests "$tmp/own32.txt" -t dgx-a100-8x200g -n 4
expect 2 "64 ranks against 32" -- "$gdrlab" validate --nccl-tests "$tmp/own32.txt" -t dgx-a100-8x200g -n 8
has "$tmp/err" "own32.txt:[0-9]*: busbw: [0-9.]* / [0-9.]* GB/s: a bus factor of 1.93[78], where 64 ranks give 1.969"
one_line "$tmp/err"
# the file's reduction is predicted: a product is no NVLS reduction
# (ncclNvlsSupported), so busbw's own -o prod table on one NVLink SHARP
# node, on the ring, reads back normal and on the ring
expect 0 "busbw -o prod" -- "$gdrlab" busbw -t h100-superpod-ib -n 1 -b 16M -e 1G -f 4 -o prod
cp "$tmp/out" "$tmp/prod.txt"
expect 0 "a product validated" -- "$gdrlab" validate --nccl-tests "$tmp/prod.txt" -t h100-superpod-ib -n 1 \
    --json "$tmp/prod.json"
has "$tmp/out" "+0.0%"
grep -q '"algo": *"NVLS"' "$tmp/prod.json" && { echo "FAIL: a product predicted on NVLS"; fail=1; }
grep -q '"algo": *"Ring"' "$tmp/prod.json" || { echo "FAIL: a product not predicted on the ring"; cat "$tmp/prod.json"; fail=1; }
sed 's/  prod  /  mean  /' "$tmp/prod.txt" >"$tmp/mean.txt"
expect 2 "an unknown reduction" -- "$gdrlab" validate --nccl-tests "$tmp/mean.txt" -t h100-superpod-ib -n 1
has "$tmp/err" "mean.txt:[0-9]*: redop: 'mean': not a reduction nccl-tests runs"
one_line "$tmp/err"
# one rank: NCCL copies the buffer on the GPU, nothing to predict (it said
# "+0.0%: normal" against a prediction of 0 us until 2026-12-06)
expect 2 "one rank" -- "$gdrlab" validate --nccl-tests "$data/all_reduce_1gpu.txt" -t a100-pcie4-200g
has "$tmp/err" "all_reduce_1gpu.txt: devices: one rank: NCCL moves nothing between GPUs there"
one_line "$tmp/err"
# --op for a file that names no collective, against its redop and root
expect 2 "broadcast rows, --op allreduce" -- "$gdrlab" validate --nccl-tests "$data/v2.13.0_broadcast.txt" \
    -t "$src/tests/data/eight-gpus-one-socket.yaml" --op allreduce
has "$tmp/err" "v2.13.0_broadcast.txt:16: redop: '': the rows reduce nothing, all_reduce_perf's reduce: is --op right?"
one_line "$tmp/err"
expect 0 "broadcast rows, --op broadcast" -- "$gdrlab" validate --nccl-tests "$data/v2.13.0_broadcast.txt" \
    -t "$src/tests/data/eight-gpus-one-socket.yaml" --op broadcast
[ "$(vrows "$tmp/out" | wc -l)" -eq 13 ] || { echo "FAIL: not 13 sizes:"; cat "$tmp/out"; fail=1; }
expect 2 "all_reduce rows, --op broadcast" -- "$gdrlab" validate --nccl-tests "$file" -t "$abci" --op broadcast
has "$tmp/err" "all_reduce_2nodes.txt:$first: redop: 'sum': the rows reduce, broadcast_perf's do not: is --op right?"
one_line "$tmp/err"
expect 2 "v1.0.0 broadcast, --op sendrecv" -- "$gdrlab" validate --nccl-tests "$data/v1.0.0_broadcast_nocheck.txt" \
    -t "$src/tests/data/eight-gpus-one-socket.yaml" --op sendrecv -n 1
one_line "$tmp/err"

# Every bad file: exit 2, one line naming the file and (where there is
# one: a file with no table has none) the line; no output file.
for bad in "$data"/bad/*; do
    name=${bad##*/}
    rm -f "$tmp/bad.json"
    expect 2 "bad file $name" -- "$gdrlab" validate --nccl-tests "$bad" -t "$abci" \
        --op allreduce --json "$tmp/bad.json"
    one_line "$tmp/err"
    has "$tmp/err" "^gdrlab validate: $bad:"
    [ "$name" = no-table.txt ] || has "$tmp/err" "^gdrlab validate: $bad:[0-9][0-9]*:"
    [ ! -e "$tmp/bad.json" ] || { echo "FAIL: $name: bad.json written"; fail=1; }
    [ ! -s "$tmp/out" ] || { echo "FAIL: $name: a table on stdout"; fail=1; }
done
[ -e "$data/bad/no-table.txt" ] || { echo "FAIL: no bad files"; fail=1; }

# usage
expect 2 "no topology" -- "$gdrlab" validate --nccl-tests "$file" --op allreduce
has "$tmp/err" "gdrlab validate: --topology is required"
one_line "$tmp/err"
expect 2 "missing file" -- "$gdrlab" validate --nccl-tests "$tmp/none.txt" -t "$abci" --op allreduce
has "$tmp/err" "none.txt"
one_line "$tmp/err"
expect 2 "bad tolerance" -- "$gdrlab" validate --nccl-tests "$file" -t "$abci" --tolerance 0
one_line "$tmp/err"
expect 2 "bad op" -- "$gdrlab" validate --nccl-tests "$file" -t "$abci" --op reduce
has "$tmp/err" "--op: expected allreduce"
one_line "$tmp/err"
expect 2 "two predictors" -- "$gdrlab" validate --nccl-tests "$file" -t "$abci" -b analytic -P model
one_line "$tmp/err"
# busbw's own table read back (its columns after nccl-tests' read past, its
# rows of nothing to move left out, its test named by nccl-tests' line):
# measured = predicted, every size normal, for every test
for op in allreduce all_gather reduce_scatter broadcast alltoall sendrecv; do
    expect 0 "busbw --op $op" -- "$gdrlab" busbw -t "$abci" -b 8 -e 64M -f 8 --op "$op"
    cp "$tmp/out" "$tmp/own.txt"
    expect 0 "its table validated" -- "$gdrlab" validate --nccl-tests "$tmp/own.txt" -t "$abci" -n 2
    has "$tmp/out" "^validate: $tmp/own.txt (${op/allreduce/all_reduce}_perf, float, devices not listed)"
    awk '$1 ~ /^[0-9]+$/ && NF >= 8 { e = $4; sub(/%/, "", e); if (e + 0 > 0.06 || e + 0 < -0.06) bad = 1 }
        END { exit bad }' "$tmp/out" || { echo "FAIL: $op: busbw's own table off its prediction"; fail=1; }
done
if ! "$gdrlab" backends | grep -q '^emu  *absent'; then
    expect 2 "a measuring backend" -- "$gdrlab" validate --nccl-tests "$file" -t "$abci" --backend emu
    has "$tmp/err" "'emu' measures, it does not predict"
    one_line "$tmp/err"
fi
# A table gdrlab busbw printed, read back: the release, GDR level and path
# its "# path ..., GDR level ..., NCCL ..." line names are the prediction's,
# so every row's measured time and busbw are the predicted ones to the
# printed digit (busbw --nccl 2.8.4 read back as 2.30.7 was 12% off at
# 8 bytes); --nccl 2.15 is 2.12.12's tables with p2p LL (from 2.14), 2.26
# 2.30.7's with GDR level PXB (P2C from 2.27)
for args in "--nccl 2.8.4" "-g phb --nccl 2.21.5" "-p staged" \
            "--nccl 2.15 --op sendrecv" "--nccl 2.26" "--nccl 2.12 -p direct -g sys" \
            "--nccl 2.17.1" "--nccl 2.18"; do
    # shellcheck disable=SC2086
    expect 0 "busbw $args" -- "$gdrlab" busbw -t "$abci" -b 8 -e 64M -f 8 $args
    cp "$tmp/out" "$tmp/self.txt"
    expect 0 "validate busbw $args" -- "$gdrlab" validate --nccl-tests "$tmp/self.txt" -t "$abci" -n 2
    [ "$(vrows "$tmp/out" | wc -l)" = 8 ] || { echo "FAIL: busbw $args: not 8 rows"; cat "$tmp/out"; fail=1; }
    vrows "$tmp/out" | awk -v a="$args" '$2 != $3 || $5 != $6 { print "FAIL: busbw " a " read back: " $0; bad = 1 } END { exit bad }' || fail=1
done
"$gdrlab" busbw -t "$abci" -b 8 -e 8 --nccl 2.8.4 >"$tmp/self.txt"
expect 0 "busbw 2.8.4's release" -- "$gdrlab" validate --nccl-tests "$tmp/self.txt" -t "$abci" -n 2
has "$tmp/out" "path auto, GDR level PXB, NCCL 2.8.4 (the file's)$"
expect 0 "--nccl over the table's" -- "$gdrlab" validate --nccl-tests "$tmp/self.txt" -t "$abci" -n 2 --nccl 2.30.7
has "$tmp/out" "path auto, GDR level P2C, NCCL 2.30.7$"
sed 's/GDR level PXB/GDR level PXQ/' "$tmp/self.txt" >"$tmp/edited.txt"
expect 2 "an edited busbw line" -- "$gdrlab" validate --nccl-tests "$tmp/edited.txt" -t "$abci" -n 2
has "$tmp/err" "edited.txt:5: path: 'path auto, GDR level PXQ, NCCL 2.8.4' is not what gdrlab busbw writes"
one_line "$tmp/err"
# ... and the cluster its "# topology" line names, where --nodes and
# --gpus do not: 4 nodes of GPUs 0 and 1 (8 ranks) read back alone
# agree with themselves; given, the options win (GPUs 0 and 2: as many
# ranks, another pair; other nodes would be other ranks, which the rows'
# bus factor refuses)
"$gdrlab" busbw -t a100-pcie4-200g -n 4 --gpus 0,1 -b 1M -e 16M -f 4 >"$tmp/self.txt"
expect 0 "busbw's nodes and GPUs read back" -- "$gdrlab" validate --nccl-tests "$tmp/self.txt" -t a100-pcie4-200g
has "$tmp/out" ": 4 nodes x 2 of 8 GPUs (0-1), path auto"
[ "$(vrows "$tmp/out" | wc -l)" = 3 ] || { echo "FAIL: busbw's cluster: not 3 rows"; cat "$tmp/out"; fail=1; }
vrows "$tmp/out" | awk '$2 != $3 || $5 != $6 { print "FAIL: busbw cluster read back: " $0; bad = 1 } END { exit bad }' || fail=1
expect 0 "--gpus over the table's" -- "$gdrlab" validate --nccl-tests "$tmp/self.txt" -t a100-pcie4-200g --gpus 0,2
has "$tmp/out" ": 4 nodes x 2 of 8 GPUs (0,2), path auto"
# a topology without the table's GPUs: its line named
"$gdrlab" busbw -t a100-pcie4-200g -n 2 --gpus 6,7 -b 1M -e 1M >"$tmp/self.txt"
expect 2 "GPUs the topology lacks" -- "$gdrlab" validate --nccl-tests "$tmp/self.txt" -t "$abci"
has "$tmp/err" "self.txt:[0-9]*: topology: .*this topology does not have the GPUs the table was predicted on (give --gpus)"
one_line "$tmp/err"
exit $fail
