#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# gdrlab sweep from the command line: exit statuses, errors, and each row
# equal to the same point run alone with 'gdrlab run'.
# usage: test_sweep.sh GDRLAB SOURCE_DIR
set -u
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

expect 0 "help" -- "$gdrlab" sweep --help
has "$tmp/out" "usage: gdrlab sweep"
expect 2 "no file" -- "$gdrlab" sweep
expect 2 "bad jobs" -- "$gdrlab" sweep -j 0 x.jsonl
printf '{"topology": "a.yaml", "trace": "b.jsonl", "colour": "red"}\n' >"$tmp/bad.jsonl"
expect 2 "unknown key" -- "$gdrlab" sweep "$tmp/bad.jsonl"
has "$tmp/err" "bad.jsonl:1: colour: unknown key (name, topology"
# whatever its value (a number was "foo: expected a string")
printf '{"name": "n", "topology": "a.yaml", "trace": "b.jsonl", "foo": 1}\n' >"$tmp/badnum.jsonl"
bad_usage_of sweep "unknown key, a number" "$tmp/badnum.jsonl:1: foo: unknown key (name, topology" -- "$tmp/badnum.jsonl"
# a key given twice is refused, as in a trace: it ran the last value
printf '{"topology": "%s", "trace": "%s", "nodes": 2, "nodes": 8}\n' \
    "$src/configs/a100-pcie4-200g.yaml" "$src/traces/resnet50-ddp.jsonl" >"$tmp/dup.jsonl"
bad_usage_of sweep "a key given twice" "$tmp/dup.jsonl:1:[0-9]*: json: duplicate object key near '\"nodes\"'" -- "$tmp/dup.jsonl"
printf '{"topology": "a.yaml", "trace": "b.jsonl", "nccl": "3.0"}\n' >"$tmp/badnccl.jsonl"
expect 2 "unknown NCCL" -- "$gdrlab" sweep "$tmp/badnccl.jsonl"
has "$tmp/err" "badnccl.jsonl:1: nccl: expected an NCCL 2 version from 2.7 on (2.18.5, 2.18), got '3.0'; this build has the tables of 2.30.7, 2.21.5, 2.19.3, 2.12.12, 2.8.4"
printf '{"topology": "a.yaml"}\n' >"$tmp/bad2.jsonl"
bad_usage_of sweep "missing trace" "$tmp/bad2.jsonl:1: trace: missing required key" -- "$tmp/bad2.jsonl"
# every error of a sweep file is file:line: key: problem (docs/cli.md), a
# column only for a JSON syntax error, as a trace's
printf '{"topology": "a.yaml", "trace": "b.jsonl", "path": "gpu"}\n' >"$tmp/badpath.jsonl"
bad_usage_of sweep "bad path" "$tmp/badpath.jsonl:1: path: expected auto, direct, staged or staged-memcpy, got 'gpu'" -- "$tmp/badpath.jsonl"
printf '{"topology": "a.yaml", "trace": "b.jsonl", "gdr_level": "far"}\n' >"$tmp/badgdr.jsonl"
bad_usage_of sweep "bad gdr_level" "$tmp/badgdr.jsonl:1: gdr_level: expected pix, pxb, p2c, phb, sys or NCCL's old numbers (1 pix, 2 pxb, 3 phb, 4 and above sys), got 'far'" -- "$tmp/badgdr.jsonl"
printf '{"topology": "a.yaml", "trace": "b.jsonl", "gdr_level": "0"}\n' >"$tmp/badgdr.jsonl"
bad_usage_of sweep "gdr_level 0" "$tmp/badgdr.jsonl:1: gdr_level: NCCL reads 0 as LOC, GPUDirect RDMA to no NIC; for that take path staged, got '0'" -- "$tmp/badgdr.jsonl"
printf '# a comment\n[1, 2]\n' >"$tmp/array.jsonl"
bad_usage_of sweep "not an object" "$tmp/array.jsonl:2: json: expected an object, got an array" -- "$tmp/array.jsonl"
printf '{"topology": "a.yaml", x}\r\n' >"$tmp/syntax.jsonl"
bad_usage_of sweep "JSON syntax" "$tmp/syntax.jsonl:1:24: json: string or '}' expected near 'x'" -- "$tmp/syntax.jsonl"
printf '{"name": "gone", "topology": "nope.yaml", "trace": "nope.jsonl"}\n' >"$tmp/gone.jsonl"
expect 1 "a point fails" -- "$gdrlab" sweep "$tmp/gone.jsonl"
has "$tmp/out" "gone .*error: .*nope.yaml"
# a point's unknown backend stops the sweep before anything runs, as a
# plan's does (it was a failed row, exit 1)
printf '{"name": "nb", "topology": "a.yaml", "trace": "b.jsonl", "backend": "nosuch"}\n' >"$tmp/nb.jsonl"
bad_usage_of sweep "unknown backend in a point" "$tmp/nb.jsonl:1: backend: unknown backend 'nosuch' (see 'gdrlab backends')" -- "$tmp/nb.jsonl"

# Three points, relative to the sweep file; run in parallel, printed in order.
mkdir -p "$tmp/s"
cat >"$tmp/s/points.jsonl" <<EOP
# comment
{"name": "p1", "topology": "$src/configs/a100-pcie4-200g.yaml", "trace": "$src/traces/resnet50-ddp.jsonl", "path": "staged"}
{"name": "p2", "topology": "$src/configs/a100-pcie4-200g.yaml", "trace": "$src/traces/resnet50-ddp.jsonl", "path": "direct", "nodes": 4}

{"name": "p3", "topology": "$src/configs/two-socket-commodity.yaml", "trace": "$src/traces/bert-large-ddp.jsonl", "gdr_level": "4", "path": "direct"}
{"name": "p4", "topology": "$src/configs/a100-pcie4-200g.yaml", "trace": "$src/traces/resnet50-ddp.jsonl", "nccl": "2.8.4"}
EOP
expect 0 "csv" -- "$gdrlab" sweep -j 3 --csv "$tmp/s/points.jsonl"
[ "$(cut -d, -f1 "$tmp/out" | tr '\n' ' ')" = 'point "p1" "p2" "p3" "p4" ' ] ||
    { echo "FAIL: rows out of order:"; cat "$tmp/out"; fail=1; }
cp "$tmp/out" "$tmp/sweep.csv"
check() { # check ROW run-args...: the row's iteration time is run's
    local row=$1 want got
    shift
    want=$("$gdrlab" run --quiet --json - "$@" |
           sed -n 's/^ *"iteration_time_us": \([0-9.]*\).*/\1/p' | head -1)
    got=$(sed -n "$((row + 1))p" "$tmp/sweep.csv" | cut -d, -f10)
    awk -v a="$want" -v b="$got" 'BEGIN { d = a - b; exit !(d < 0.01 && d > -0.01) }' ||
        { echo "FAIL: row $row: sweep $got, run $want"; fail=1; }
}
check 1 -t "$src/configs/a100-pcie4-200g.yaml" -T "$src/traces/resnet50-ddp.jsonl" -p staged
check 2 -t "$src/configs/a100-pcie4-200g.yaml" -T "$src/traces/resnet50-ddp.jsonl" -p direct -n 4
# NCCL_NET_GDR_LEVEL's old 4 is SYS (paths.cc levelsOldToNew), as -g sys
check 3 -t "$src/configs/two-socket-commodity.yaml" -T "$src/traces/bert-large-ddp.jsonl" -g sys -p direct
[ "$(sed -n 4p "$tmp/sweep.csv" | cut -d, -f9)" = SYS ] ||
    { echo "FAIL: gdr_level 4 is not SYS: $(sed -n 4p "$tmp/sweep.csv")"; fail=1; }
# "nccl" alone brings its release's GDR level (PXB), as --nccl does
check 4 -t "$src/configs/a100-pcie4-200g.yaml" -T "$src/traces/resnet50-ddp.jsonl" --nccl 2.8.4
[ "$(sed -n 5p "$tmp/sweep.csv" | cut -d, -f9)" = PXB ] ||
    { echo "FAIL: p4's GDR level: $(sed -n 5p "$tmp/sweep.csv")"; fail=1; }
expect 0 "json" -- "$gdrlab" sweep --json "$tmp/s/points.jsonl"
has "$tmp/out" '"path_used": "direct"'
expect 0 "table" -- "$gdrlab" sweep "$tmp/s/points.jsonl"
has "$tmp/out" "^p3 .*two-socket-commodity"
# Plans: a base and axes. 3 x 4 x 2 axes give 24 points, the first axis
# slowest, the last fastest.
mkdir -p "$tmp/plan"
cat >"$tmp/plan/p.yaml" <<EOP
# three axes, one of them a value of the topology file
base:
  topology: $src/configs/h100-pcie5-400g.yaml
  trace: $src/traces/resnet50-ddp.jsonl
axes:
  nodes: 2..8 x2
  nics.rate: { values: [100, 200, 400, 800], unit: Gbit/s }
  path: [direct, staged]
EOP
expect 0 "a plan of 3 x 4 x 2" -- "$gdrlab" sweep --csv "$tmp/plan/p.yaml"
want=""
for n in 2 4 8; do for r in 100 200 400 800; do for p in direct staged; do
    want="$want\"nodes=$n nics.rate=$r Gbit/s path=$p\" "
done; done; done
[ "$(sed 1d "$tmp/out" | cut -d, -f1 | tr '\n' ' ')" = "$want" ] ||
    { echo "FAIL: plan order: $(sed 1d "$tmp/out" | cut -d, -f1 | head -3)"; fail=1; }
# the axes after the columns, but those the row has (nodes, path): one
# column a name (they came twice until 2026-12-06)
has "$tmp/out" '^point,line,topology,nodes,gpus,backend,path,path_used,gdr_level,iteration_us,comm_us,exposed_us,wall_s,error,"nics.rate"$'

# An axis of the topology by hand: round-numbers' one NIC at 80 and 40
# Gbit/s (efficiency 1): a 64 MiB send takes NCCL's 8.4 + 14 us and S at
# 10 GB/s, then at 5 GB/s.
printf '{"iteration": 0, "op": "sendrecv", "bytes": 67108864, "dtype": "fp32", "src": 0, "dst": 1}\n' \
    >"$tmp/plan/send.jsonl"
cat >"$tmp/plan/nic.yaml" <<EOP
base: { topology: $src/tests/data/round-numbers.yaml, trace: send.jsonl, path: direct }
axes:
  nics.rate: [80 Gbit/s, 40 Gbit/s]
EOP
expect 0 "a topology axis" -- "$gdrlab" sweep --csv "$tmp/plan/nic.yaml"
got=$(sed 1d "$tmp/out" | cut -d, -f11 | tr '\n' ' ')
want=$(awk 'BEGIN { S = 67108864; printf "%.3f %.3f ", 22.4 + S / 10e3, 22.4 + S / 5e3 }')
[ "$got" = "$want" ] || { echo "FAIL: nics.rate axis: comm_us $got, by hand $want"; fail=1; }

# Questions by hand: a 256 MiB Ring/Simple all-reduce on round-numbers
# (one 10 GB/s NIC a node) is bound by its 2(n-1)/n S through the NIC, so
# the iteration at 2 nodes over that at n is (1/2) / ((n-1)/n): 0.667 at
# 4, 0.571 at 8; below 0.8 from 4 nodes. Direct and staged are alike
# there (NCCL's staging at the NIC's pace).
printf '{"iteration": 0, "op": "allreduce", "bytes": 268435456, "dtype": "fp32"}\n' >"$tmp/plan/ar.jsonl"
cat >"$tmp/plan/q.yaml" <<EOP
base: { topology: $src/tests/data/round-numbers.yaml, trace: ar.jsonl, algo: ring, proto: simple }
axes:
  path: [direct, staged]
  nodes: [2, 4, 8]
  fabric.switch_latency: [1 us, 2 us]
questions:
  scaling: { threshold: 0.8 }
  gdr_speedup: { rows: fabric.switch_latency, columns: nodes }
EOP
# a gen value with a line break (YAML keeps one from a quoted "\n" or a
# blank line in a plain scalar): refused, not split into two options
printf 'base: { preset: h100-pcie5-400g, gen: { model: "llama3-8b\\n" } }\naxes:\n  path: [direct, staged]\n' >"$tmp/plan/newline.yaml"
expect 2 "a line break in a gen value" -- "$gdrlab" sweep "$tmp/plan/newline.yaml"
has "$tmp/err" "a line break in a value of gen llm's"
expect 0 "a plan's questions" -- "$gdrlab" sweep "$tmp/plan/q.yaml"
row=$(grep '^path=direct fabric.switch_latency=1 us ' "$tmp/out")
# (the latencies, a few us of 27 ms, move the third digit at most)
echo "$row" | tr -d '*' | awk '{ e[1] = 1; e[2] = 0.5 / (3 / 4); e[3] = 0.5 / (7 / 8)
    for (k = 1; k <= 3; k++) if ($(k + 3) - e[k] > 0.002 || e[k] - $(k + 3) > 0.002) exit 1 }' ||
    { echo "FAIL: scaling efficiency: $row, by hand 1, 0.667, 0.571"; fail=1; }
echo "$row" | grep -q 'below from 4 nodes' || { echo "FAIL: crossing: $row"; fail=1; }
has "$tmp/out" "GPUDirect RDMA speedup, iteration time staged / direct (fabric.switch_latency down, nodes across)"
# a fourth axis: the heat map is its first value's, which the table, the
# JSON ("fixed"), the chart and the report name (the JSON, chart and
# report said nothing of it until 2026-12-06); each cell is staged over
# direct of the rows at that value, by awk
cat >"$tmp/plan/q4axes.yaml" <<EOP
base: { topology: $src/tests/data/round-numbers.yaml, trace: ar.jsonl, algo: ring, proto: simple }
axes:
  gpus.link.bandwidth: [20 GB/s, 4 GB/s]
  path: [direct, staged]
  nodes: [2, 4]
  nics.rate: [40 Gbit/s, 80 Gbit/s]
questions:
  gdr_speedup: { rows: nics.rate, columns: nodes }
EOP
expect 0 "a heat map of 4 axes" -- "$gdrlab" sweep --no-wall "$tmp/plan/q4axes.yaml"
has "$tmp/out" "^GPUDirect RDMA speedup, iteration time staged / direct (nics.rate down, nodes across; the other axes at their first values: gpus.link.bandwidth=20 GB/s)$"
awk '$1 == "gpus.link.bandwidth=20" && NF > 8 { t[$3 " " $4 " " $5] = $13 }
    /^(40|80) Gbit\/s  / { for (c = 1; c <= 2; c++) { k = "nodes=" (c == 1 ? 2 : 4) " nics.rate=" $1
        d = t["path=direct " k]; s = t["path=staged " k]; v = $(c + 2); sub(/x$/, "", v)
        if (!(d > 0 && s > 0) || v - s / d > 0.0005 || s / d - v > 0.0005) bad++; cells++ } }
    END { exit bad || cells != 4 }' "$tmp/out" ||
    { echo "FAIL: the heat map's cells are not staged / direct at gpus.link.bandwidth=20 GB/s:"; cat "$tmp/out"; fail=1; }
expect 0 "its JSON" -- "$gdrlab" sweep --json --no-wall "$tmp/plan/q4axes.yaml"
tr -d ' \n' <"$tmp/out" | grep -q '"fixed":{"gpus.link.bandwidth":"20GB/s"}' ||
    { echo "FAIL: the heat map's JSON does not name gpus.link.bandwidth=20 GB/s"; fail=1; }
# one node of 8 H100s: every call stays on NVLink, GPUDirect RDMA does not
# apply: "in node", not 1.000x (until 2026-12-06), and out of the JSON
printf 'base: { preset: h100-pcie5-400g, trace: resnet50-ddp }\naxes:\n  path: [direct, staged]\n  nodes: [1, 2]\n  nics.rate: { values: [400], unit: Gbit/s }\nquestions:\n  gdr_speedup: { rows: nics.rate, columns: nodes }\n' >"$tmp/plan/node1.yaml"
expect 0 "a speedup in one node" -- "$gdrlab" sweep "$tmp/plan/node1.yaml"
has "$tmp/out" "^400 Gbit/s  *in node  *[0-9.]*x$"
has "$tmp/out" "^(in node: no collective left its node, GPUDirect RDMA does not apply)$"
# and the JSON says why the cell has no value, for the report
expect 0 "a speedup in one node, JSON" -- "$gdrlab" sweep --json --no-wall "$tmp/plan/node1.yaml"
tr -d ' \n' <"$tmp/out" | grep -q '"no_value":\[\["innode",null\]\]' ||
    { echo "FAIL: the speedup JSON does not say why a cell has no value:"; cat "$tmp/out"; fail=1; }
# the shipped 32-rank Llama job on 4 and 8 nodes of 8 GPUs leaves 32 idle
# at 8: its efficiency there is said not to be the job's scaling (it read
# 1.000, never below, until 2026-12-06); q.yaml's calls of no group run
# on every rank, so it says nothing
printf 'base: { preset: h100-pcie5-400g, trace: llama3-8b-tp8-pp2-dp2 }\naxes:\n  nodes: [4, 8]\nquestions:\n  scaling: { threshold: 0.8 }\n' >"$tmp/plan/idle.yaml"
expect 0 "a fixed job on more nodes" -- "$gdrlab" sweep "$tmp/plan/idle.yaml"
has "$tmp/out" "^  from 8 nodes the trace's 32 ranks leave GPUs idle: not its job scaled$"
grep -q "leave GPUs idle" <(grep -v "^  from 8" "$tmp/out") && { echo "FAIL: idle said twice"; fail=1; }
# and in its JSON, for the report (which said nothing of it)
expect 0 "a fixed job on more nodes, JSON" -- "$gdrlab" sweep --json --no-wall "$tmp/plan/idle.yaml"
tr -d ' \n' <"$tmp/out" | grep -q '"failed":\[\],"idle_from":"8","trace_ranks":32' ||
    { echo "FAIL: the scaling JSON does not say where GPUs are idle:"; cat "$tmp/out"; fail=1; }
grep -q "leave GPUs idle" <("$gdrlab" sweep "$tmp/plan/q.yaml") && { echo "FAIL: q.yaml's world calls said idle"; fail=1; }
# node counts from the most to the fewest: 2 and 4 measured against 8
# read 1.749 and 1.167, "never below", where 8 against 2 is 0.571; refused
sed 's/nodes: \[2, 4, 8\]/nodes: [8, 4, 2]/' "$tmp/plan/q.yaml" >"$tmp/plan/qdown.yaml"
bad_usage_of sweep "scaling down" "$tmp/plan/qdown.yaml:7:3: scaling: the nodes axis must go from the fewest nodes to the most, the efficiency being against the first: '4' after '8'" -- "$tmp/plan/qdown.yaml"
expect 0 "questions in JSON" -- "$gdrlab" sweep --json "$tmp/plan/q.yaml"
json_ok "$tmp/out"
has "$tmp/out" '"below_from": "4"'
has "$tmp/out" '"column_values": \['
# Only the first node count fails (tests/data/scaling-first-fails.yaml).
# The points at 2 and 4 ran, so their cells are n/a (no reference), not
# errors, and the series says its reference failed rather than that its
# points did.
expect 1 "a plan whose first node count fails" -- "$gdrlab" sweep --no-wall \
    "$src/tests/data/scaling-first-fails.yaml"
has "$tmp/out" "^nodes=1  *error: .*group: rank 1 is outside the cluster of 1 rank"
has "$tmp/out" "^nodes=4  *round-numbers  *4 "
has "$tmp/out" "^all  *error  *n/a  *n/a  *no reference: its point at 1 node (the first node count) failed$"
if grep -q "no answer" "$tmp/out"; then echo "FAIL: a series whose points ran has no answer"; fail=1; fi
expect 1 "its JSON" -- "$gdrlab" sweep --json --no-wall "$src/tests/data/scaling-first-fails.yaml"
json_ok "$tmp/out"
tr -d ' \n' <"$tmp/out" | grep -q '"efficiency":\[null,null,null\],"below_from":null,"failed":\["1"\]' ||
    { echo "FAIL: the scaling JSON does not name the failed first node count:"; cat "$tmp/out"; fail=1; }
# nic_speed, breakdown and cost by hand: a 64 MiB ring all-reduce on 2
# round-numbers nodes moves S through each NIC; with 10 ms of compute it
# hides at S / B <= 10 ms, i.e. from B = 6.7 GB/s: of 20, 40, 60, 80 Gbit/s
# (2.5 .. 10 GB/s), 60 first. Its NIC stages are busy S / B; at 80 Gbit/s
# the iteration is the compute's 10 ms, so 2 GPUs at 2.5 and 2 NICs at
# 0.1 an hour cost 0.01 s x 5.2 / 3600.
printf '{"iteration": 0, "op": "allreduce", "bytes": 67108864, "dtype": "fp32", "compute_us": 10000}\n' \
    >"$tmp/plan/ar64.jsonl"
cat >"$tmp/plan/q2.yaml" <<EOP
base: { topology: $src/tests/data/round-numbers.yaml, trace: ar64.jsonl, algo: ring, proto: simple, path: direct }
axes:
  nics.rate: { values: [20, 40, 60, 80], unit: Gbit/s }
questions:
  nic_speed: { axis: nics.rate, exposed_share: 0 }
  breakdown: true
  cost: { gpu_hour: 2.5, nic_hour: 0.1, tokens_per_iteration: 4000000 }
EOP
expect 0 "nic_speed, breakdown, cost" -- "$gdrlab" sweep "$tmp/plan/q2.yaml"
has "$tmp/out" "^all  *60 Gbit/s (exposed 0.00%)"
read -r nic_read cost <<<"$(awk '/^nics.rate=80 Gbit\/s/ { if (NF == 8) r = $5; if (NF == 4) c = $3 } END { print r, c }' "$tmp/out")"
awk -v r="$nic_read" -v c="$cost" 'BEGIN { S = 67108864
    exit !(r - S / 10e3 < 0.1 && S / 10e3 - r < 0.1 && c / (0.01 * 5.2 / 3600) - 1 < 1e-3 && 1 - c / (0.01 * 5.2 / 3600) < 1e-3) }' ||
    { echo "FAIL: breakdown or cost at 80 Gbit/s: nic_read $nic_read, cost $cost"; fail=1; }

# the NIC axis out of order: 80 first answered 80 Gbit/s where 60 hides it
# too; refused, as the docs ask it ascending
sed 's/values: \[20, 40, 60, 80\]/values: [80, 20, 40, 60]/' "$tmp/plan/q2.yaml" >"$tmp/plan/q2order.yaml"
bad_usage_of sweep "the NIC axis out of order" "$tmp/plan/q2order.yaml:5:22: axis: nics.rate's values must go from the slowest to the fastest, the answer being the first that hides the communication: '20 Gbit/s' after '80 Gbit/s'" -- "$tmp/plan/q2order.yaml"
# a value before the answer failed (ranks 0 and 1 on 1 node of one GPU):
# the communication may hide there too, which the answer says (it named
# 2 as the first, unsaid); where none hid it, "where it ran"
printf '{"iteration": 0, "op": "allreduce", "bytes": 1048576, "dtype": "fp32", "group": [0, 1], "compute_us": 1000}\n' \
    >"$tmp/plan/pair.jsonl"
cat >"$tmp/plan/nicfail.yaml" <<EOP
base: { topology: $src/tests/data/round-numbers.yaml, trace: pair.jsonl }
axes:
  nics.rate: [100 Gbit/s]
  nodes: [1, 2, 4]
questions:
  nic_speed: { axis: nodes, exposed_share: 0.5 }
EOP
expect 1 "a NIC-speed value before the answer failed" -- "$gdrlab" sweep --no-wall "$tmp/plan/nicfail.yaml"
has "$tmp/out" "^nics.rate=100 Gbit/s  *2 (exposed 0.00%), or 1, whose point failed$"
expect 1 "its JSON" -- "$gdrlab" sweep --json --no-wall "$tmp/plan/nicfail.yaml"
tr -d ' \n' <"$tmp/out" | grep -q '"value":"2","exposed_share":0.0,"exposed":\[null,0.0,0.0\],"failed":\["1"\]' ||
    { echo "FAIL: the NIC-speed JSON does not name the failed value:"; cat "$tmp/out"; fail=1; }
sed 's/"compute_us": 1000/"compute_us": 0/' "$tmp/plan/pair.jsonl" >"$tmp/plan/pair0.jsonl"
sed 's/pair.jsonl/pair0.jsonl/' "$tmp/plan/nicfail.yaml" >"$tmp/plan/nicnone.yaml"
expect 1 "no value hides it where it ran" -- "$gdrlab" sweep --no-wall "$tmp/plan/nicnone.yaml"
has "$tmp/out" "^nics.rate=100 Gbit/s  *none of its values where it ran$"
# a share under 0.05%: the header said "at most 0.0%" (the report 0.04%)
sed 's/exposed_share: 0 }/exposed_share: 0.0004 }/' "$tmp/plan/q2.yaml" >"$tmp/plan/q2small.yaml"
expect 0 "a share under 0.05%" -- "$gdrlab" sweep "$tmp/plan/q2small.yaml"
has "$tmp/out" "^the first nics.rate at which exposed communication is at most 0.04% of the iteration$"
bad_question() { # bad_question MESSAGE QUESTION-LINE: at line 5 of the plan
    printf 'base: { topology: %s, trace: %s }\naxes:\n  path: [direct, staged]\nquestions:\n%s\n' \
        "$src/tests/data/round-numbers.yaml" "$tmp/plan/ar.jsonl" "$2" >"$tmp/plan/bq.yaml"
    bad_usage_of sweep "question: $2" "$tmp/plan/bq.yaml:$1" -- "$tmp/plan/bq.yaml"
}
# switch ports and tokens a GPU, by hand: at 80 Gbit/s the iteration is
# the 10 ms of compute whatever the hops (2 us more latency hides too). A
# NIC takes one leaf port, and 2 more a tier above (hops 3: leaf, spine,
# leaf; no oversubscription), none back to back (hops 0, once charged as
# 1): 2 GPUs at 2.5, 2 NICs at 0.1 and 0, 2 or 6 ports at 0.05 an hour
# cost 0.01 s x 5.2, 5.3 or 5.5 / 3600; 2 GPUs of 1000 tokens are 2000
# tokens an iteration.
cat >"$tmp/plan/q3.yaml" <<EOP
base: { topology: $src/tests/data/round-numbers.yaml, trace: ar64.jsonl, algo: ring, proto: simple, path: direct }
axes:
  nics.rate: { values: [80], unit: Gbit/s }
  fabric.hops: [0, 1, 3]
questions:
  cost: { gpu_hour: 2.5, nic_hour: 0.1, switch_port_hour: 0.05, tokens_per_gpu: 1000 }
EOP
expect 0 "switch ports and tokens a GPU" -- "$gdrlab" sweep "$tmp/plan/q3.yaml"
for hops in 0:5.2 1:5.3 3:5.5; do
    read -r c m <<<"$(awk -v h="fabric.hops=${hops%:*}" '$0 ~ "^nics.rate=80 Gbit/s " h " " && NF == 5 { print $4, $5 }' "$tmp/out")"
    awk -v c="$c" -v m="$m" -v p="${hops#*:}" 'BEGIN { want = 0.01 * p / 3600
        exit !(c / want - 1 < 1e-3 && 1 - c / want < 1e-3 && m / (want / 2000 * 1e6) - 1 < 1e-3 && 1 - m / (want / 2000 * 1e6) < 1e-3) }' ||
        { echo "FAIL: cost at ${hops%:*} hops: $c, per million tokens $m, by hand 0.01 x ${hops#*:} / 3600"; fail=1; }
done
# with switches named, every port of every switch the nodes need: 8 nodes
# of leaf-2to1 (one NIC each, 4 down and 4 up a leaf) take 2 leaves and 4
# spines of 8 ports, 48 ports; 4 nodes one leaf, 8 ports, no spine (their
# traffic stays in it: they paid for the 4 spines too until 2026-12-06).
# At 1 a port-hour and nothing else priced, an iteration's cost is its
# hours x its ports
cat >"$tmp/plan/q4.yaml" <<EOP
base: { topology: $src/tests/data/fabric/leaf-2to1.yaml, trace: ar64.jsonl, algo: ring, proto: simple }
axes:
  nodes: [4, 8]
questions:
  cost: { gpu_hour: 0, switch_port_hour: 1 }
EOP
expect 0 "switch ports of named switches" -- "$gdrlab" sweep "$tmp/plan/q4.yaml"
for np in 8:48 4:8; do
    awk -v n="nodes=${np%:*}" -v ports="${np#*:}" '$1 == n && NF > 4 { it = $9 } $1 == n && NF == 2 { c = $2 }
        END { want = it * 1e-6 / 3600 * ports; exit !(it > 0 && c / want - 1 < 1e-3 && 1 - c / want < 1e-3) }' \
        "$tmp/out" || { echo "FAIL: ${np%:*} nodes: ${np#*:} switch ports' cost:"; cat "$tmp/out"; fail=1; }
done
# the breakdown of a job whose calls run at once (the shipped tensor-,
# pipeline- and data-parallel Llama): a stage summed over them exceeds
# the iteration, which the table marks and says, as gdrlab run's does
printf 'base: { preset: h100-pcie5-400g, trace: llama3-8b-tp8-pp2-dp2, nodes: 4 }\naxes:\n  path: [direct, staged]\nquestions:\n  breakdown: true\n' >"$tmp/plan/conc.yaml"
expect 0 "a breakdown of calls at once" -- "$gdrlab" sweep --no-wall "$tmp/plan/conc.yaml"
awk '/^path=staged / && NF > 8 { it = $8 } /^path=staged / && NF == 8 && $8 == "*" { for (k = 2; k <= 7; k++) if ($k > m) m = $k }
    END { exit !(it > 0 && m > it) }' "$tmp/out" ||
    { echo "FAIL: no stage of the staged point marked and above its iteration:"; cat "$tmp/out"; fail=1; }
has "$tmp/out" "^(\*: calls ran at once, each stage's time summed over them: it can exceed the iteration)$"
grep -q "calls ran at once" <("$gdrlab" sweep --no-wall "$tmp/plan/q2.yaml" 2>/dev/null) &&
    { echo "FAIL: one all-reduce said to run at once with others"; fail=1; }
# tokens a GPU on a trace of fewer ranks than GPUs: the shipped 32-rank
# Llama job on 4 and 8 nodes of 8 H100s trains 32 x 1000 tokens an
# iteration at both, and pays for 32 and 64 GPUs: a million tokens cost
# twice as much at 8 (the same until 2026-12-06: 64 x 1000 counted)
printf 'base: { preset: h100-pcie5-400g, trace: llama3-8b-tp8-pp2-dp2 }\naxes:\n  nodes: [4, 8]\nquestions:\n  cost: { gpu_hour: 1, tokens_per_gpu: 1000 }\n' >"$tmp/plan/idlecost.yaml"
expect 0 "tokens a GPU with GPUs idle" -- "$gdrlab" sweep --no-wall "$tmp/plan/idlecost.yaml"
awk '/^nodes=[48] / && NF > 4 { it[$1] = $8; gpus[$1] = $4 } /^nodes=[48] / && NF == 3 { c[$1] = $2; m[$1] = $3 }
    END { for (p in it) { want = it[p] * 1e-6 / 3600 * gpus[p]; mwant = want / 32000 * 1e6; n++
              if (c[p] / want - 1 > 1e-3 || 1 - c[p] / want > 1e-3 || m[p] / mwant - 1 > 1e-3 || 1 - m[p] / mwant > 1e-3) exit 1 }
          exit n != 2 }' "$tmp/out" ||
    { echo "FAIL: a million tokens of a 32-rank job, by hand its cost / 32000 x 1e6:"; cat "$tmp/out"; fail=1; }
has "$tmp/out" "^(from nodes=8, the trace's 32 ranks leave GPUs idle: tokens are counted on its ranks, the cost on every GPU)$"
bad_question "5:49: tokens_per_gpu: give tokens_per_iteration or tokens_per_gpu, not both" \
    "  cost: { gpu_hour: 1, tokens_per_iteration: 5, tokens_per_gpu: 5 }"
bad_question "5:40: tokens_per_gpu: expected a number above 0, got '0'" \
    "  cost: { gpu_hour: 1, tokens_per_gpu: 0 }"

bad_question "5:3: scaling: needs a nodes axis" "  scaling: { threshold: 0.8 }"
bad_question "5:25: threshold: expected an efficiency in (0, 1], got '1.5'" "  scaling: { threshold: 1.5 }"
bad_question "5:39: columns: expected one of the plan's axes, got 'nodes'" "  gdr_speedup: { rows: path, columns: nodes }"
bad_question "5:24: rows: the heat map's axes cannot be the path" "  gdr_speedup: { rows: path, columns: path }"
bad_question "5:22: axis: expected one of the plan's axes, got 'nics.rate'" "  nic_speed: { axis: nics.rate, exposed_share: 0.1 }"
bad_question "5:14: breakdown: expected true or false, got 'yes'" "  breakdown: yes"

# Bad plans: file:line:col, the axis, exit 2, one line.
bad_plan() { # bad_plan MESSAGE AXIS-LINE
    printf 'base:\n  topology: %s\n  trace: %s\naxes:\n%s\n' "$src/configs/h100-pcie5-400g.yaml" \
        "$src/traces/resnet50-ddp.jsonl" "$2" >"$tmp/plan/bad.yaml"
    bad_usage_of sweep "plan: $2" "$1" -- "$tmp/plan/bad.yaml"
}
bad_plan "$tmp/plan/bad.yaml:5:17: nodes: expected a whole number from 1 to 65536, got 'zero'" "  nodes: [2, 4, zero]"
bad_plan "$tmp/plan/bad.yaml:5:14: nics.rat: '100 Gbit/s': $src/configs/h100-pcie5-400g.yaml: nics.rat: the topology has no 'nics.rat' to set" "  nics.rat: [100 Gbit/s]"
bad_plan "$tmp/plan/bad.yaml:5:15: nics.rate: 'fast': nics.rate=fast, set on $src/configs/h100-pcie5-400g.yaml: rate: expected a bandwidth" "  nics.rate: [fast]"
bad_plan "$tmp/plan/bad.yaml:5:3: nodez: not an axis" "  nodez: [1]"
# a value twice would be the same points twice, at its line (with a
# unit, as the axis writes its values)
bad_plan "$tmp/plan/bad.yaml:5:17: nodes: '4' twice (it is the axis's value 2 already)" "  nodes: [2, 4, 4]"
bad_plan "$tmp/plan/bad.yaml:5:30: nics.rate: '100 Gbit/s' twice (it is the axis's value 1 already)" "  nics.rate: { values: [100, 100], unit: Gbit/s }"
bad_plan "$tmp/plan/bad.yaml:5:10: nodes: expected a list, or a range" "  nodes: 8..2 x2"
bad_plan "$tmp/plan/bad.yaml:5:3: nics: not an axis" "  nics: [1]"
bad_plan "$tmp/plan/bad.yaml:5:3: staging: not an axis" "  staging: [1]"
bad_plan "$tmp/plan/bad.yaml:5:18: path: expected direct, staged, staged-memcpy or auto, got 'sideways'" "  path: [direct, sideways]"
bad_plan "$tmp/plan/bad.yaml:5:15: nics.link: 'x': $src/configs/h100-pcie5-400g.yaml: nics.link: 'nics.link' is a list or a mapping, not a value" "  nics.link: [x]"
# a second document after "---" is refused: its axes were never read,
# and the sweep ran the first's (exit 0)
printf 'base:\n  topology: %s\n  trace: %s\naxes:\n  nodes: [2]\n---\naxes:\n  nodes: [64]\n' \
    "$src/configs/h100-pcie5-400g.yaml" "$src/traces/resnet50-ddp.jsonl" >"$tmp/plan/two.yaml"
bad_usage_of sweep "a plan of two documents" \
    "$tmp/plan/two.yaml:6:1: syntax error: a second YAML document: the file must hold one" -- "$tmp/plan/two.yaml"
# presets: shipped topologies by name, in the base or as an axis
cat >"$tmp/plan/preset.yaml" <<EOP
base: { preset: h100-pcie5-400g, trace: $src/traces/resnet50-ddp.jsonl }
axes:
  preset: [a100-pcie4-200g, gh200-grace-hopper]
EOP
expect 0 "a preset axis" -- "$gdrlab" sweep --csv "$tmp/plan/preset.yaml"
has "$tmp/out" "^\"preset=a100-pcie4-200g\",3,\"a100-pcie4-200g\",2,16,"
has "$tmp/out" "^\"preset=gh200-grace-hopper\",3,\"gh200-grace-hopper\",2,2,"
# a topology and a trace by their shipped names, where no file beside the
# plan has them (as -t, -T and a sweep file's points take them)
printf 'base: { topology: two-socket-commodity, trace: resnet50-ddp }\naxes:\n  nodes: [2]\n' \
    >"$tmp/plan/named.yaml"
expect 0 "shipped names in a plan" -- "$gdrlab" sweep --csv "$tmp/plan/named.yaml"
has "$tmp/out" "^\"nodes=2\",3,\"two-socket-commodity\",2,4,"
printf 'base: { trace: %s }\naxes:\n  nodes: [1]\n' "$src/traces/resnet50-ddp.jsonl" >"$tmp/plan/np.yaml"
bad_usage_of sweep "no topology" "$tmp/plan/np.yaml:1:7: base: needs a topology file or a preset, one of them, or an axis of them" \
    -- "$tmp/plan/np.yaml"
# ... which an axis of them gives; a validation preset by name, as -t takes
# it (configs/validation/), with a topology path tried on the axis's first
printf 'base: { trace: resnet50-ddp }\naxes:\n  preset: [h100-pcie5-400g, dgx-a100-8x200g]\n  nics.rate: { values: [200], unit: Gbit/s }\n' \
    >"$tmp/plan/axis-only.yaml"
expect 0 "topologies from an axis alone" -- "$gdrlab" sweep --csv "$tmp/plan/axis-only.yaml"
has "$tmp/out" "^\"preset=h100-pcie5-400g nics.rate=200 Gbit/s\",3,\"h100-pcie5-400g\",2,16,"
has "$tmp/out" "^\"preset=dgx-a100-8x200g nics.rate=200 Gbit/s\",3,\"dgx-a100-8x200g\",2,16,"
printf 'base: { preset: a100-pcie4-200g, trace: %s }\naxes:\n  preset: [h100, ../configs/x]\n' \
    "$src/traces/resnet50-ddp.jsonl" >"$tmp/plan/bp.yaml"
bad_usage_of sweep "an unknown preset" "$tmp/plan/bp.yaml:3:12: preset: 'h100': no such shipped topology" \
    -- "$tmp/plan/bp.yaml"
# a generator's compute is the point's GPU's: Llama-3-8B TP 8 DP 2 on the
# A100 preset takes 989.5 / 312 the H100 preset's compute (iteration less
# exposed communication: their dense peaks, topology_yaml.c
# topo_gpu_tflops), and the same where the plan gives gpu_tflops
printf 'base:\n  gen: { model: llama3-8b, tp: 8, dp: 2 }\naxes:\n  preset: [a100-pcie4-200g, h100-pcie5-400g]\n' \
    >"$tmp/plan/gpus.yaml"
expect 0 "compute by the topology's GPU" -- "$gdrlab" sweep --csv --no-wall "$tmp/plan/gpus.yaml"
awk -F, 'NR == 2 { a = $10 - $12 } NR == 3 { h = $10 - $12 }
    END { r = a / h; if (r < 3.1714 * 0.9999 || r > 3.1714 * 1.0001) { print "FAIL: A100/H100 compute " r ", want 989.5/312"; exit 1 } }' \
    "$tmp/out" || fail=1
sed 's/dp: 2 }/dp: 2, gpu_tflops: 500 }/' "$tmp/plan/gpus.yaml" >"$tmp/plan/gpus500.yaml"
expect 0 "compute at the plan's gpu_tflops" -- "$gdrlab" sweep --csv --no-wall "$tmp/plan/gpus500.yaml"
awk -F, 'NR == 2 { a = $10 - $12 } NR == 3 { h = $10 - $12 }
    END { if (a - h > 1e-3 * a || h - a > 1e-3 * a) { print "FAIL: gpu_tflops 500: " a " and " h; exit 1 } }' \
    "$tmp/out" || fail=1
# a generator's points: gen llm makes each point's trace; its nodes are
# the ranks it fills (tp x pp x dp on round-numbers' one GPU a node: 2,
# 4), its tokens an iteration dp x micro-batches x sequences x tokens (2 x
# 2 x 1 x 1000 = 4000 at dp 2, 8000 at 4), so a million tokens cost an
# iteration's cost x 250 and x 125, whatever the iteration takes
cat >"$tmp/plan/gen.yaml" <<EOP
base: { topology: $src/tests/data/round-numbers.yaml, gen: { model: llama3-8b, micro_batches: 2, seq: 1000 } }
axes:
  gen.dp: [2, 4]
questions:
  cost: { gpu_hour: 1 }
EOP
expect 0 "a generator's points" -- "$gdrlab" sweep --no-wall "$tmp/plan/gen.yaml"
for row in "2 2 250" "4 4 125"; do
    read -r dp nodes per <<<"$row"
    awk -v dp="$dp" -v n="$nodes" '$1 == "gen.dp=" dp && NF > 4 { found = 1; exit !($3 == n && $4 == n) }
        END { exit !found }' "$tmp/out" || { echo "FAIL: gen.dp=$dp: not $nodes nodes and GPUs:"; cat "$tmp/out"; fail=1; }
    awk -v dp="$dp" -v per="$per" '$1 == "gen.dp=" dp && NF == 3 { found = 1; r = $3 / $2; exit !(r / per - 1 < 1e-3 && 1 - r / per < 1e-3) }
        END { exit !found }' "$tmp/out" || { echo "FAIL: gen.dp=$dp: a million tokens not $per iterations' cost"; fail=1; }
done
# the plan's own tokens on a generator's job: refused, the generator
# counts them (they stood in for its count unsaid: on a tp 8 x pp 2 Llama
# 3 8B job of 4 micro-batches of 8192 tokens, 32768, tokens_per_gpu 4096
# counted 4096 x 16 ranks, and a million tokens cost half what they do)
for t in "tokens_per_gpu: 4096:24" "tokens_per_iteration: 5:24"; do
    sed "s/cost: { gpu_hour: 1 }/cost: { gpu_hour: 1, ${t%:*} }/" "$tmp/plan/gen.yaml" >"$tmp/plan/gentok.yaml"
    bad_usage_of sweep "${t%%:*} on a generator's job" "$tmp/plan/gentok.yaml:5:${t##*:}: ${t%%:*}: the plan's generator makes the job and counts its tokens an iteration (dp x micro-batches x micro-batch size x sequence): leave it out" -- "$tmp/plan/gentok.yaml"
done
expect 0 "its JSON" -- "$gdrlab" sweep --json --no-wall "$tmp/plan/gen.yaml"
has "$tmp/out" '"gen": "gdrlab gen llm --model llama3-8b --micro-batches 2 --seq 1000 --dp 2 --gpu-tflops 312"'
# The row's gen command, run by hand, makes the trace the point ran: the
# point computes at its topology's GPU, an A100's 312 TFLOP/s (A100
# datasheet, docs/topology-format.md), where gen llm alone takes an
# H100's 989.5, so the command has to say it (it did not: an A100 point's
# command made a trace of a third of its compute)
printf 'base: { topology: %s, gen: { model: llama3-8b, seq: 1000, dp: 2 } }\naxes:\n  path: [direct]\n' "$src/configs/a100-pcie4-200g.yaml" \
    >"$tmp/plan/genhand.yaml"
expect 0 "a generator's point on A100s" -- "$gdrlab" sweep --json --no-wall "$tmp/plan/genhand.yaml"
has "$tmp/out" '"gen": "gdrlab gen llm --model llama3-8b --seq 1000 --dp 2 --gpu-tflops 312"'
num_of() { grep -o "\"$1\": [-0-9.e+]*" "$2" | head -n 1 | sed 's/.*: //'; }
point_us=$(num_of iteration_time_us "$tmp/out")
read -ra hand <<<"$(grep -o '"gen": "[^"]*"' "$tmp/out" | sed 's/^"gen": "gdrlab //; s/"$//')"
expect 0 "the row's gen command by hand" -- "$gdrlab" "${hand[@]}" -o "$tmp/genhand.jsonl"
expect 0 "its trace run alone" -- "$gdrlab" run -t "$src/configs/a100-pcie4-200g.yaml" -T "$tmp/genhand.jsonl" -n 1 -p direct --json -
hand_us=$(num_of iteration_time_us "$tmp/out")
awk -v a="$point_us" -v b="$hand_us" 'BEGIN { d = a - b; exit !(a > 0 && d * d <= 1e-12 * a * a) }' ||
    { echo "FAIL: the point's iteration $point_us us, its gen command's by hand $hand_us us"; fail=1; }
bad_gen() { # bad_gen MESSAGE BASE-GEN AXIS-LINE
    printf 'base: { topology: %s, %s }\naxes:\n%s\n' "$src/tests/data/round-numbers.yaml" "$2" "$3" \
        >"$tmp/plan/bg.yaml"
    bad_usage_of sweep "gen: $2 / $3" "$tmp/plan/bg.yaml:$1" -- "$tmp/plan/bg.yaml"
}
bad_gen "3:15: gen.tp: 'x': --tp: expected a whole number up to 1000000, got 'x'" \
    "gen: { model: llama3-8b }" "  gen.tp: [2, x]"
# a value no job has (0 GPUs a group) at its line, before any point runs
bad_gen "3:13: gen.vpp: '0': --vpp: expected 1 or more, got '0'" \
    "gen: { model: llama3-8b, pp: 2 }" "  gen.vpp: [0, 2]"
bad_gen "1:[0-9]*: foo: '1': --foo: not an option of gen llm" "gen: { model: llama3-8b, foo: 1 }" "  gen.dp: [1]"
bad_gen "1:[0-9]*: gen: --model: which model?" "gen: { tp: 2 }" "  gen.dp: [1]"
# a key with a newline in it (the fuzzer's find): one line all the same
bad_gen "1:[0-9]*: gen: 'a?b': not an option of gen llm" 'gen: { model: llama3-8b, "a\nb": 1 }' "  gen.dp: [1]"
bad_gen "1:[0-9]*: base: needs a trace file or a generator" \
    "trace: $src/traces/resnet50-ddp.jsonl, gen: { model: llama3-8b }" "  nodes: [1]"
bad_gen "3:12: gen.dp: the base has no gen to vary" "trace: $src/traces/resnet50-ddp.jsonl" "  gen.dp: [1]"

# A point's topology and trace by shipped name, where no file beside the
# sweep file has it: the row of the same files by path
mkdir -p "$tmp/named"
cat >"$tmp/named/p.jsonl" <<EOP
{"name": "n", "topology": "a100-pcie4-200g", "trace": "resnet50-ddp", "nodes": 4}
{"name": "n", "topology": "$src/configs/a100-pcie4-200g.yaml", "trace": "$src/traces/resnet50-ddp.jsonl", "nodes": 4}
EOP
expect 0 "points by shipped name" -- "$gdrlab" sweep --csv --no-wall "$tmp/named/p.jsonl"
[ "$(cut -d, -f1,3- "$tmp/out" | sed 1d | sort -u | wc -l)" = 1 ] ||
    { echo "FAIL: by name and by path differ:"; cat "$tmp/out"; fail=1; }
echo '{"name": "g", "topology": "no-such-preset", "trace": "resnet50-ddp"}' >"$tmp/named/g.jsonl"
expect 1 "a point's unknown name" -- "$gdrlab" sweep --csv "$tmp/named/g.jsonl"
has "$tmp/out" "named/no-such-preset: cannot read"
# CSV as RFC 4180 has it: a name's quote doubled inside quotes (its comma
# kept in the field), and a failed point's figures empty, not 0.000
cat >"$tmp/named/q.jsonl" <<EOP
{"name": "a\\"b,c", "topology": "a100-pcie4-200g", "trace": "resnet50-ddp"}
{"name": "gone", "topology": "no-such-preset", "trace": "resnet50-ddp"}
EOP
expect 1 "quotes and a failed point" -- "$gdrlab" sweep --csv --no-wall "$tmp/named/q.jsonl"
has "$tmp/out" '^"a""b,c",1,"a100-pcie4-200g",2,16,analytic,auto,direct,P2C,[0-9.]*,[0-9.]*,[0-9.]*,,""$'
has "$tmp/out" '^"gone",2,"",,,analytic,auto,,P2C,,,,,".*no-such-preset: cannot read.*"$'
# a name's newline and control bytes: one row of the table, '?' for each
printf '{"name": "a\\nb\\u0001c", "topology": "a100-pcie4-200g", "trace": "resnet50-ddp"}\n' \
    >"$tmp/named/ctl.jsonl"
expect 0 "a name with a newline" -- "$gdrlab" sweep --no-wall "$tmp/named/ctl.jsonl"
has "$tmp/out" '^a?b?c  *a100-pcie4-200g '
[ "$(wc -l <"$tmp/out")" -eq 2 ] || { echo "FAIL: the table is not a header and one row"; fail=1; }
# an axis no point reads (staging.* off staged-memcpy): said, and its
# values' rows alike; with a staged-memcpy point it is read, nothing said
mkdir -p "$tmp/unread"
for paths in "staged, direct" "staged, staged-memcpy"; do
    cat >"$tmp/unread/p.yaml" <<EOF
base:
  topology: $src/configs/h100-pcie5-400g.yaml
  trace: $src/traces/resnet50-ddp.jsonl
  nodes: 2
axes:
  path: [$paths]
  staging.copy_bandwidth: { values: [5, 50], unit: GB/s }
EOF
    expect 0 "an axis over $paths" -- "$gdrlab" sweep --no-wall "$tmp/unread/p.yaml"
    if [ "$paths" = "staged, direct" ]; then
        has "$tmp/err" "gdrlab sweep: note: axis staging.copy_bandwidth changes nothing any point computes: only the staged-memcpy path"
        [ "$(awk 'NR > 1 { print $(NF - 2), $(NF - 1), $NF }' "$tmp/out" | sort -u | wc -l)" -eq 2 ] ||
            { echo "FAIL: the unread axis's rows differ"; cat "$tmp/out"; fail=1; }
    else
        grep -q "note: axis" "$tmp/err" && { echo "FAIL: a read axis said unread"; fail=1; }
    fi
done
# a trace of communicators at once (tp and dp): each point's calls summed
# exceed its iteration, those in flight do not (comm_busy_us: counted once)
cat >"$tmp/unread/llm.yaml" <<EOF
base:
  topology: $src/configs/h100-pcie5-400g.yaml
  gen: { model: llama3-8b, tp: 8, dp: 2 }
axes:
  path: [staged, direct]
EOF
expect 0 "communicators at once" -- "$gdrlab" sweep --json "$tmp/unread/llm.yaml"
awk '{ gsub(/[",]/, "") } $1 == "iteration_time_us:" { it = $2 } $1 == "comm_time_us:" { sum = $2 }
    $1 == "comm_busy_us:" { n++; if (!(sum > it && $2 <= it && $2 > 0)) { print "FAIL: in flight " $2 ", summed " sum ", iteration " it; bad = 1 } }
    END { exit bad || n != 2 }' "$tmp/out" || fail=1
# a point's name is its row's label, whole: 63 bytes at most, a longer
# one refused (it was cut to 63, so rows could share a label, and a cut
# inside a character left the point out of --json, "[]", exit 0)
e40=$(printf 'é%.0s' $(seq 40))
for name in "$e40" "$(printf 'x%.0s' $(seq 63))"; do
    printf '{"name": "%s", "topology": "%s", "trace": "%s"}\n' "$name" \
        "$src/configs/a100-pcie4-200g.yaml" "$src/traces/resnet50-ddp.jsonl" >"$tmp/long.jsonl"
    if [ ${#name} = 63 ]; then
        expect 0 "a name of 63 bytes" -- "$gdrlab" sweep "$tmp/long.jsonl" --json -q
        has "$tmp/out" "\"point\": \"$name\""
    else
        expect 2 "a name of 80 bytes" -- "$gdrlab" sweep "$tmp/long.jsonl" --json -q
        has "$tmp/err" "^gdrlab sweep: $tmp/long.jsonl:1: name: longer than 63 bytes$"
        one_line "$tmp/err"
    fi
done
exit $fail
