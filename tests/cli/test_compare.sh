#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# gdrlab compare's table names what NCCL's tuner chose on each path, not
# direct's for all three: the JSON's algorithm/protocol of every
# collective of a path is on that path's line, and the staged lines have
# no LL128 (NCCL enables it only with GPUDirect RDMA on every network
# side; staging has none). ResNet-50 on 2 A100 nodes, where direct runs
# LL128.
#   usage: test_compare.sh GDRLAB SOURCE_DIR
set -u
. "$(dirname "$0")/lib.sh"
expect 0 "compare" -- "$gdrlab" compare -t "$src/configs/a100-pcie4-200g.yaml" \
    -T "$src/traces/resnet50-ddp.jsonl" --json "$tmp/c.json"
cp "$tmp/out" "$tmp/table"
json_ok "$tmp/c.json"

# path NAME: that path's line of the table's algorithm block
line_of() {
    awk -v p="$1" '$1 == "algorithm" { on = 1; $1 = "" }
        on && NF == 0 { on = 0 }
        on { sub(/^ +/, ""); if ($1 == p) { print; exit } }' "$tmp/table"
}
# uses NAME: each "algo/proto" its collectives ran in the JSON, one a line
uses() {
    awk -v p="\"$1\": {" 'index($0, p) == 3 { on = 1; next }
        /^  "[a-z_]+": / { on = 0 }
        on && /"algo": / { gsub(/[",]/, "", $2); a = $2 }
        on && /"proto": / { gsub(/[",]/, "", $2); print a "/" $2 }' "$tmp/c.json" | sort -u
}
for p in direct staged staged-memcpy; do
    l=$(line_of "$p")
    [ -n "$l" ] || { echo "FAIL: no '$p' line in the algorithm block:"; cat "$tmp/table"; fail=1; continue; }
    n=0
    while read -r u; do
        n=$((n + 1))
        case " $l" in *" $u x"*) ;; *) echo "FAIL: $p ran $u (JSON) but its line says: $l"; fail=1 ;; esac
    done < <(uses "${p/-/_}")
    [ "$n" -gt 0 ] || { echo "FAIL: no collectives of $p in the JSON"; fail=1; }
    case "$p:$l" in staged*LL128*) echo "FAIL: $p without GPUDirect on LL128: $l"; fail=1 ;; esac
done
case "$(line_of direct)" in *LL128*) ;; *) echo "FAIL: direct's line has no LL128: $(line_of direct)"; fail=1 ;; esac

# The shipped topology and trace by name (configs/NAME.yaml,
# traces/NAME.jsonl): the same run, the same files named in its JSON
expect 0 "compare by name" -- "$gdrlab" compare -t a100-pcie4-200g -T resnet50-ddp --json "$tmp/n.json"
diff <(grep -v '_file"' "$tmp/c.json") <(grep -v '_file"' "$tmp/n.json") >"$tmp/diff" ||
    { echo "FAIL: compare by name differs from by path:"; cat "$tmp/diff"; fail=1; }
has "$tmp/n.json" "\"topology_file\": \"$src/configs/a100-pcie4-200g.yaml\""
has "$tmp/n.json" "\"trace_file\": \"$src/traces/resnet50-ddp.jsonl\""
expect 2 "unknown trace name" -- "$gdrlab" compare -t a100-pcie4-200g -T no-such-trace
has "$tmp/err" "gdrlab compare: --trace: 'no-such-trace': no such file, nor a shipped trace of that name"
one_line "$tmp/err"
# Collectives of one rank move nothing, on any path: speedups undefined
# ("n/a", JSON null: 0/0), the verdict says so, and the report's page and
# the collectives chart say why there is no chart (a log scale has no 0;
# the page's chart once failed with an empty message, 0.00x printed)
printf '{"iteration": 0, "op": "allreduce", "bytes": 4096, "group": [0]}\n' >"$tmp/one.jsonl"
expect 0 "one-rank compare" -- "$gdrlab" compare -t a100-pcie4-200g -T "$tmp/one.jsonl" --json "$tmp/one.json"
has "$tmp/out" "^  communication  *n/a  *n/a$"
has "$tmp/out" "^verdict: no collective here moves data between GPUs (each is on one rank): the paths cost the same$"
json_ok "$tmp/one.json"
has "$tmp/one.json" '^  "speedup": null,$'
has "$tmp/one.json" '^      "communication": null,$'
# nor does NCCL tune them (a local copy): no estimate of its own, on any path
[ "$(grep -c '"nccl_estimate_us": null,$' "$tmp/one.json")" = 3 ] ||
    { echo "FAIL: a one-rank collective has an NCCL estimate:"; grep nccl_estimate "$tmp/one.json"; fail=1; }
# One node: every collective stays on NVLink, all three paths alike, and
# the verdict says GPUDirect RDMA does not apply (it said "1.00x faster");
# so are the speedups, n/a and null, as a sweep's "in node" (they were
# 1.00x and 1.0, a GPUDirect RDMA that buys nothing)
expect 0 "one-node compare" -- "$gdrlab" compare -t h100-pcie5-400g -T resnet50-ddp --nodes 1 \
    --json "$tmp/node.json"
has "$tmp/out" "^  communication  *n/a  *n/a$"
has "$tmp/node.json" '^  "speedup": null,$'
has "$tmp/node.json" '^      "communication": null,$'
has "$tmp/out" "^verdict: no collective here leaves its node (NVLink or PCIe inside it): GPUDirect RDMA$"
has "$tmp/out" "^         does not apply, and the paths cost the same$"
[ "$(grep -c '"path": "intra_node"' "$tmp/node.json")" = 30 ] ||
    { echo "FAIL: not every collective of the three paths stayed in its node"; fail=1; }
grep -q '"shm": "' "$tmp/node.json" && { echo "FAIL: an NVSwitch pair through host memory"; fail=1; }
# Every GPU's NIC beyond the GDR level (two-socket-commodity: gpu1's NIC
# across the sockets, SYS): "direct" falls back to staging everywhere, so
# there is no GPUDirect RDMA to measure: speedups n/a (JSON null) and the
# verdict says why (it said "as fast as NCCL's host staging" until
# 2026-12-06, two staged runs compared)
expect 0 "never direct" -- "$gdrlab" compare -t two-socket-commodity -T resnet50-ddp \
    --json "$tmp/never.json"
has "$tmp/out" "^  communication  *n/a  *n/a$"
has "$tmp/out" "^verdict: GPUDirect RDMA cannot be used here: every collective that leaves its node falls back$"
has "$tmp/out" "^         to host staging (gpu1-nic0 path is SYS (across CPU sockets), beyond GDR level P2C), so the paths cost the same$"
json_ok "$tmp/never.json"
has "$tmp/never.json" '^  "speedup": null,$'
has "$tmp/never.json" '^      "communication": null,$'
# --gdr-level sys lets it go direct: a speedup again
expect 0 "direct at sys" -- "$gdrlab" compare -t two-socket-commodity -T resnet50-ddp -g sys
grep -q "cannot be used here" "$tmp/out" && { echo "FAIL: -g sys: no GPUDirect RDMA said"; fail=1; }
has "$tmp/out" "^  communication  *[0-9.]*x  *[0-9.]*x$"
# -g p2c on a release before 2.27, which has no P2C level: NCCL ignores
# NCCL_NET_GDR_LEVEL=P2C for its default, PXB (paths.cc v2.26.2-1
# ncclGetLevel), so the run is 2.21's default one, and says so
expect 0 "2.21 default" -- "$gdrlab" run -t gh200-grace-hopper -T bert-large-ddp --nccl 2.21.5 --path direct
grep "communication time" "$tmp/out" >"$tmp/p2c-default"
expect 0 "2.21 -g p2c" -- "$gdrlab" run -t gh200-grace-hopper -T bert-large-ddp --nccl 2.21.5 -g p2c --path direct
has "$tmp/err" "note: -g p2c: NCCL 2.21 has no P2C level (from 2.27): it ignores NCCL_NET_GDR_LEVEL=P2C for its default, PXB, which this run takes"
has "$tmp/out" "GDR level PXB$"
grep "communication time" "$tmp/out" | cmp -s - "$tmp/p2c-default" || { echo "FAIL: -g p2c on 2.21 is not 2.21's default run"; fail=1; }
# Two GPUs on an Intel CPU's root ports (PHB): beyond 2.30.7's P2P level
# (PXB), so NCCL copies between them through host memory; --p2p-level phb
# lets them copy peer to peer
expect 0 "one node through host memory" -- "$gdrlab" run -t two-socket-commodity -T resnet50-ddp \
    --nodes 1 --json "$tmp/shm.json"
has "$tmp/out" "^shm        10 collectives copy between GPUs through host memory (NCCL's SHM), gpu0-gpu1: PHB is beyond NCCL 2.30.7's P2P level here, PXB (intel CPUs, 2 GPUs); NCCL_P2P_LEVEL=PHB would allow it$"
[ "$(grep -c '"shm": "gpu0-gpu1: PHB is beyond' "$tmp/shm.json")" = 10 ] ||
    { echo "FAIL: not every collective says it went through host memory"; fail=1; }
expect 0 "--p2p-level phb" -- "$gdrlab" run -t two-socket-commodity -T resnet50-ddp --nodes 1 \
    --p2p-level phb --json "$tmp/p2p.json"
grep -q "^shm" "$tmp/out" && { echo "FAIL: shm line with --p2p-level phb"; fail=1; }
[ "$(grep -c '"shm": null' "$tmp/p2p.json")" = 10 ] ||
    { echo "FAIL: --p2p-level phb: a collective through host memory"; fail=1; }
# Direct slower because NCCL's tuner gives it another protocol: a 32 MiB
# all-gather on 16 Grace Hoppers runs Ring/LL128 direct, Ring/Simple
# staged (LL128 needs GPUDirect RDMA on every network side), as busbw's
# choice columns say; the verdict names the choice, and with --proto
# simple both run Simple and direct is no slower. No compute in the
# trace: the iteration line says so.
printf '{"iteration": 0, "op": "all_gather", "bytes": 33554432, "dtype": "fp32"}\n' > "$tmp/ag.jsonl"
for p in direct staged; do
    expect 0 "busbw $p" -- "$gdrlab" busbw -t gh200-grace-hopper -n 16 --op all_gather -b 32M -e 32M -p $p
    grep -q "^ *33554432 .* Ring *$([ $p = direct ] && echo LL128 || echo Simple) " "$tmp/out" ||
        { echo "FAIL: busbw -p $p: not the choice this test reads"; cat "$tmp/out"; fail=1; }
done
expect 0 "compare, another protocol direct" -- "$gdrlab" compare -t gh200-grace-hopper -n 16 -T "$tmp/ag.jsonl"
has "$tmp/out" "slower than NCCL's host staging"
has "$tmp/out" "^         1 of the 1 calls direct takes longer run another choice of NCCL's tuner$"
has "$tmp/out" "^         (Ring/LL128 where staged runs Ring/Simple): its estimates, not the data path;$"
has "$tmp/out" "with no compute in the trace, the iteration is"
expect 0 "compare --proto simple" -- "$gdrlab" compare -t gh200-grace-hopper -n 16 -T "$tmp/ag.jsonl" --proto simple
grep -q "another choice" "$tmp/out" && { echo "FAIL: a choice note with one protocol"; fail=1; }
grep -q "slower than NCCL's host staging" "$tmp/out" && { echo "FAIL: direct slower on Simple"; fail=1; }
# --csv: each row says which of the three runs it is, also where direct
# fell back to staging (two-socket-commodity: its NIC across the sockets)
expect 0 "compare --csv" -- "$gdrlab" compare -t two-socket-commodity -T resnet50-ddp --csv "$tmp/fb.csv"
has "$tmp/fb.csv" "^backend,iteration,index,op,bytes,ranks,ready_us,start_us,end_us,time_us,algbw_gbps,busbw_gbps,requested_path,path,fallback,"
for p in staged direct staged-memcpy; do
    [ "$(grep -c "^analytic,[^,]*,[^,]*,allreduce,[^,]*,[^,]*,[^,]*,[^,]*,[^,]*,[^,]*,[^,]*,[^,]*,$p," "$tmp/fb.csv")" = 10 ] ||
        { echo "FAIL: not 10 rows of the $p run"; fail=1; }
done
grep -q ",direct,staged,\"gpu1-nic0 path is SYS" "$tmp/fb.csv" ||
    { echo "FAIL: direct's fallback rows"; fail=1; }
if "$gdrlab" backends >/dev/null && command -v gnuplot >/dev/null; then
    expect 0 "one-node report" -- "$gdrlab" report "$tmp/node.json" -o "$tmp/node.html"
    has "$tmp/node.html" "No collective here leaves its node (NVLink or PCIe inside it): GPUDirect RDMA does not apply"
    expect 0 "report through host memory" -- "$gdrlab" report "$tmp/shm.json" -o "$tmp/shm.html"
    has "$tmp/shm.html" "10 collectives copy between GPUs of a node through host memory (NCCL&#39;s SHM transport), gpu0-gpu1: PHB is beyond"
    expect 0 "one-rank report" -- "$gdrlab" report "$tmp/one.json" -o "$tmp/one.html"
    has "$tmp/one.html" "No collective here moves data between GPUs"
    has "$tmp/one.html" "No chart: every collective took 0 us (one rank each: nothing moves), which a log scale cannot show."
    expect 1 "one-rank chart" -- "$gdrlab" plot "$tmp/one.json" --kind collectives -o "$tmp/one.svg"
    has "$tmp/err" "gdrlab plot: $tmp/one.json: nothing to draw: every collective took 0 us"
    one_line "$tmp/err"
else
    echo "skip: one-rank report (no gnuplot)"
fi
# Communicators that run at once: the sum of every call's time exceeds
# the iteration (Llama 3 8B, tp 8 x dp 2: ten communicators), so each
# path also gives its communication in flight, calls at once counted
# once: within the iteration, and at least its exposed part. The page
# and the paths chart show that (test_report.sh, test_plot.sh).
expect 0 "gen llm" -- "$gdrlab" gen llm --model llama3-8b --tp 8 --dp 2 -o "$tmp/tpdp.jsonl"
expect 0 "compare, communicators at once" -- "$gdrlab" compare -q -t h100-pcie5-400g -T "$tmp/tpdp.jsonl" \
    -n 2 --json "$tmp/tpdp.json"
has "$tmp/out" "^comm in flight (us) "
has "$tmp/out" "^(communication: every call's, summed: calls may run at once; in flight: calls at once counted once)$"
has "$tmp/out" "^stage busy time of the bottleneck connection (us per iteration, summed over calls at once)$"
# key JSON: a path's top-level value of key, in path order
key() { sed -n "s/^    \"$1\": \([0-9.e+]*\),*$/\1/p" "$2"; }
paste <(key iteration_time_us "$tmp/tpdp.json") <(key comm_time_us "$tmp/tpdp.json") \
    <(key comm_busy_us "$tmp/tpdp.json") <(key exposed_comm_us "$tmp/tpdp.json") >"$tmp/figs"
[ "$(wc -l <"$tmp/figs")" -eq 3 ] || { echo "FAIL: not three paths' figures:"; cat "$tmp/figs"; fail=1; }
awk '$2 <= $1 { print "FAIL: summed communication " $2 " within the iteration " $1 ": no overlap to show" }
     $3 > $1 * 1.000001 || $3 < $4 * 0.999999 {
         print "FAIL: in flight " $3 " not between exposed " $4 " and the iteration " $1 }' \
    "$tmp/figs" | grep . && fail=1
# The algorithms line gives the channels its calls ran, as --json has
# them per call: Llama 3 8B's tensor-parallel rings inside a node and its
# data-parallel rings across them both run Ring/Simple, the ones on more
# channels than the others, and the line said "(24 ch)" for them all
expect 0 "run, rings of two channel counts" -- "$gdrlab" run -q -t h100-pcie5-400g \
    -T llama3-8b-tp8-pp2-dp2 -n 4 --json "$tmp/rings.json"
chs=$(awk '/"algo": "Ring"/ { ring = 1 } /"algo": "P2P"/ { ring = 0 }
           ring && /"channels": / { gsub(/[^0-9]/, ""); c[$0] = 1 }
           END { min = ""; for (k in c) { if (min == "" || k + 0 < min) min = k + 0; if (k + 0 > max) max = k + 0 }
                 print min "-" max }' "$tmp/rings.json")
case $chs in
    [0-9]*-[0-9]*) [ "${chs%-*}" != "${chs#*-}" ] || { echo "FAIL: the rings ran one channel count, $chs"; fail=1; } ;;
    *) echo "FAIL: no ring's channels in the JSON"; fail=1 ;;
esac
has "$tmp/out" "^algorithms  *Ring/Simple x[0-9]* ($chs ch)"
# NCCL's choice forced (--algo, --proto, --channels, --pxn off): the
# JSON records it under busbw --json's keys, the table's header says it,
# so "algorithms Ring/LL128 x10" is not read as the tuner's pick; none
# forced: null, null, null, true and no such line
forced=(--algo ring --proto LL128 --channels 4 --pxn off)
for cmd in run compare; do
    expect 0 "$cmd, the choice forced" -- "$gdrlab" "$cmd" -q -t h100-pcie5-400g -T resnet50-ddp -n 2 \
        "${forced[@]}" --json "$tmp/forced.json"
    has "$tmp/out" "^forced     NCCL_ALGO=ring NCCL_PROTO=LL128 --channels 4 NCCL_PXN_DISABLE=1 (not NCCL's own choice)$"
    n=$(grep -c '^ *"nccl_algo": "ring",$' "$tmp/forced.json")
    [ "$n" -eq "$([ $cmd = run ] && echo 1 || echo 3)" ] || { echo "FAIL: $cmd: $n runs record nccl_algo ring"; fail=1; }
    has "$tmp/forced.json" '"nccl_proto": "LL128",$'
    has "$tmp/forced.json" '"nchannels": 4,$'
    has "$tmp/forced.json" '"pxn": false,$'
    expect 0 "$cmd, nothing forced" -- "$gdrlab" "$cmd" -q -t h100-pcie5-400g -T resnet50-ddp -n 2 \
        --json "$tmp/free.json"
    grep -q '^forced' "$tmp/out" && { echo "FAIL: $cmd: a forced line with nothing forced"; fail=1; }
    for k in '"nccl_algo": null' '"nccl_proto": null' '"nchannels": null' '"pxn": true'; do
        has "$tmp/free.json" "$k,$"
    done
done
exit $fail
