#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# gdrlab plot: a sweep plan's answers drawn by the real gnuplot. The
# scaling chart has one line per series of the plan, the heat map is a
# PNG; bad input is one line, exit 2, no chart left.
#   usage: test_plot.sh GDRLAB SOURCE_DIR
set -u
. "$(dirname "$0")/lib.sh"

command -v gnuplot >/dev/null || { echo "SKIP: gnuplot not installed (Debian: gnuplot-nox)"; exit 77; }

printf '{"iteration": 0, "op": "allreduce", "bytes": 268435456, "dtype": "fp32"}\n' >"$tmp/ar.jsonl"
cat >"$tmp/plan.yaml" <<EOP
base: { topology: $src/tests/data/round-numbers.yaml, trace: ar.jsonl, algo: ring, proto: simple }
axes:
  path: [direct, staged]
  nodes: [2, 4, 8]
  fabric.switch_latency: [1 us, 2 us, 4 us]
questions:
  scaling: { threshold: 0.8 }
  gdr_speedup: { rows: fabric.switch_latency, columns: nodes }
EOP
expect 0 "the plan's results" -- "$gdrlab" sweep --json --no-wall "$tmp/plan.yaml"
cp "$tmp/out" "$tmp/results.json"

# path x switch latency: 6 series, each a plot of gnuplot's SVG
expect 0 "scaling chart" -- "$gdrlab" plot "$tmp/results.json" --kind scaling -o "$tmp/scaling.svg"
n=$(grep -c 'id="gnuplot_plot_[0-9]*"' "$tmp/scaling.svg")
[ "$n" -eq 6 ] || { echo "FAIL: scaling chart has $n series, want 6"; fail=1; }
has "$tmp/scaling.svg" "path=staged fabric.switch_latency=4 us"
expect 0 "speedup heat map" -- "$gdrlab" plot "$tmp/results.json" --kind speedup -o "$tmp/speedup.png"
[ "$(head -c 8 "$tmp/speedup.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] ||
    { echo "FAIL: speedup.png is not a PNG"; fail=1; }

# the heat map as SVG: each cell a shape, not one bitmap a browser blurs
# when it scales the page; colours that diverge from 1.0 over at least
# 0.9 to 1.1 (direct 3.1% to 4.8% faster here: pale red, none at the
# palette's end, which an auto range from 1.031 to 1.048 gave the
# largest; a 0.2% speedup was full red so)
expect 0 "speedup heat map, SVG" -- "$gdrlab" plot "$tmp/results.json" --kind speedup -o "$tmp/speedup.svg"
grep -q '<image' "$tmp/speedup.svg" && { echo "FAIL: the heat map's cells are a bitmap"; fail=1; }
n=$(grep -c "<polygon fill = 'rgb(" "$tmp/speedup.svg")
[ "$n" -ge 9 ] || { echo "FAIL: $n shapes for a 3 x 3 heat map"; fail=1; }
has "$tmp/speedup.svg" "<text> 0.9</text>"
has "$tmp/speedup.svg" "<text> 1.1</text>"
# the cells first, row by row: each a red paler than the end of the scale
# (178, 24, 43), more so the smaller its speedup (1.031 at 2 nodes)
grep -o "<polygon fill = 'rgb([ 0-9,]*)'" "$tmp/speedup.svg" | head -9 | tr -d "<a-z =')(" |
    awk -F, '$1 < 200 || $2 < 100 || !($1 > $2 && $1 > $3) { print "FAIL: a cell " $0 " not pale red" }
        NR == 1 { g = $2 } NR == 3 && $2 >= g { print "FAIL: 1.048x no deeper than 1.031x" }' | grep . && fail=1
# a heat map of one row, and one whose cell (three ranks on 2 nodes of one
# GPU) failed where its row and column ran: a coloured box for each cell
# the table gives a value, as many as its "N.NNNx" (gnuplot's image
# paints only a whole grid of 2 x 2 or more: both had labels and no
# colour, exit 0)
printf '{"iteration": 0, "op": "allreduce", "bytes": 1048576, "dtype": "fp32", "group": [0, 1, 2]}\n' \
    >"$tmp/three-ranks.jsonl"
for grid in "nodes: [2, 3, 4]:nics.rate" "trace: [$src/tests/data/two-ranks.jsonl, $tmp/three-ranks.jsonl]
  nodes: [2, 3]:trace"; do
    printf 'base: { topology: %s, trace: %s }\naxes:\n  %s\n  nics.rate: [40 Gbit/s]\n  path: [direct, staged]\nquestions:\n  gdr_speedup: { rows: %s, columns: nodes }\n' \
        "$src/tests/data/round-numbers.yaml" "$src/tests/data/two-ranks.jsonl" "${grid%:*}" "${grid##*:}" >"$tmp/grid.yaml"
    "$gdrlab" sweep --no-wall "$tmp/grid.yaml" >"$tmp/grid.txt" 2>/dev/null
    "$gdrlab" sweep --json --no-wall "$tmp/grid.yaml" >"$tmp/grid.json" 2>/dev/null
    expect 0 "heat map of ${grid##*:} by nodes" -- "$gdrlab" plot "$tmp/grid.json" --kind speedup -o "$tmp/grid.svg"
    want=$(sed -n '/^GPUDirect RDMA speedup/,$p' "$tmp/grid.txt" | grep -o ' [0-9.]*x' | wc -l)
    got=$(awk '/id="gnuplot_plot_1"/ { on = 1 } /id="gnuplot_plot_2"/ { on = 0 } on && /<polygon fill = .rgb\(/' "$tmp/grid.svg" | wc -l)
    [ "$want" -gt 0 ] && [ "$got" -eq "$want" ] ||
        { echo "FAIL: heat map of ${grid##*:} by nodes: $got coloured cells, the table's values $want"; fail=1; }
done
# a fourth axis: the heat map's title names the value it holds
sed 's/^axes:$/axes:\n  gpus.link.bandwidth: [20 GB\/s, 4 GB\/s]/' "$tmp/plan.yaml" >"$tmp/fourth.yaml"
"$gdrlab" sweep --json --no-wall "$tmp/fourth.yaml" >"$tmp/fourth.json" 2>/dev/null
expect 0 "a heat map of four axes" -- "$gdrlab" plot "$tmp/fourth.json" --kind speedup -o "$tmp/fourth.svg"
has "$tmp/fourth.svg" "<text>GPUDirect RDMA speedup: iteration time staged / direct at gpus.link.bandwidth=20 GB/s</text>"
# the other questions: exposed share against the NIC axis (one series),
# the stages side by side (six), the cost (one)
printf '{"iteration": 0, "op": "allreduce", "bytes": 67108864, "dtype": "fp32", "compute_us": 10000}\n' \
    >"$tmp/ar64.jsonl"
cat >"$tmp/plan2.yaml" <<EOP
base: { topology: $src/tests/data/round-numbers.yaml, trace: ar64.jsonl, algo: ring, proto: simple }
axes:
  nics.rate: { values: [20, 40, 60, 80], unit: Gbit/s }
questions:
  nic_speed: { axis: nics.rate, exposed_share: 0 }
  breakdown: true
  cost: { gpu_hour: 2.5 }
EOP
expect 0 "the second plan's results" -- "$gdrlab" sweep --json --no-wall "$tmp/plan2.yaml"
cp "$tmp/out" "$tmp/results2.json"
for kind in nic_speed:1 breakdown:6 cost:1; do
    expect 0 "$kind chart" -- "$gdrlab" plot "$tmp/results2.json" --kind "${kind%:*}" -o "$tmp/${kind%:*}.svg"
    n=$(grep -c 'id="gnuplot_plot_[0-9]*"' "$tmp/${kind%:*}.svg")
    [ "$n" -eq "${kind#*:}" ] || { echo "FAIL: ${kind%:*} chart has $n series, want ${kind#*:}"; fail=1; }
done
has "$tmp/breakdown.svg" "nic_read"
# costs a few parts in 10,000 apart (a switch's latency of 1 or 5 us on
# a 27 ms iteration): bars from 0, as bars are read; an automatic range
# from the smallest drew the difference as most of the bar
cat >"$tmp/near.yaml" <<EOP
base: { topology: $src/tests/data/round-numbers.yaml, trace: ar64.jsonl, algo: ring, proto: simple, nodes: 4 }
axes:
  nics.rate: [20 Gbit/s]
  fabric.switch_latency: [1 us, 5 us]
questions:
  cost: { gpu_hour: 2.5 }
EOP
"$gdrlab" sweep --json --no-wall "$tmp/near.yaml" >"$tmp/near.json" 2>/dev/null
expect 0 "costs close together" -- "$gdrlab" plot "$tmp/near.json" --kind cost -o "$tmp/near.svg"
low=$(grep -o '<text>[-0-9.e]*</text>' "$tmp/near.svg" | sed 's/<[^>]*>//g' | sort -g | head -1)
[ "$low" = 0 ] || { echo "FAIL: the cost bars start at $low, not 0"; fail=1; }
# tokens given: the bars are a million tokens' cost, the answer the table
# and the report lead with, not an iteration's (4 nodes' iteration costs
# twice 2 nodes' and trains twice the tokens: its bar stood twice as high)
sed 's/nodes: 4 }/nodes: 2 }/; s/fabric.switch_latency: \[1 us, 5 us\]/nodes: [2, 4]/; s/cost: { gpu_hour: 2.5 }/cost: { gpu_hour: 2.5, tokens_per_gpu: 1000 }/' \
    "$tmp/near.yaml" >"$tmp/pertoken.yaml"
"$gdrlab" sweep --no-wall "$tmp/pertoken.yaml" >"$tmp/pertoken.txt" 2>/dev/null
"$gdrlab" sweep --json --no-wall "$tmp/pertoken.yaml" >"$tmp/pertoken.json" 2>/dev/null
expect 0 "cost a million tokens" -- "$gdrlab" plot "$tmp/pertoken.json" --kind cost -o "$tmp/pertoken.svg"
has "$tmp/pertoken.svg" "<text>Cost of a million tokens</text>"
most=$(sed -n '/^cost at/,$p' "$tmp/pertoken.txt" | awk '$1 ~ /^nics.rate=/ && NF == 5 && $5 + 0 > m { m = $5 + 0 } END { print m + 0 }')
top=$(grep -o '<text>[-0-9.e]*</text>' "$tmp/pertoken.svg" | sed 's/<[^>]*>//g' | sort -g | tail -1)
awk -v m="$most" -v t="$top" 'BEGIN { exit !(m > 0 && t >= m && t < 2 * m) }' ||
    { echo "FAIL: the cost chart's top $top, the largest cost a million tokens $most"; fail=1; }
# the stages side by side, not stacked: a pipelined transfer's nic_read,
# wire and nic_write are each busy the whole 26.8 ms at 20 Gbit/s (the
# table's largest), and the chart's top is that, not their 80 ms sum
"$gdrlab" sweep --no-wall "$tmp/plan2.yaml" >"$tmp/plan2.txt" 2>/dev/null
most=$(sed -n '/^stage busy time/,/^$/p' "$tmp/plan2.txt" | awk 'NR > 2 && NF > 6 { for (k = NF - 5; k <= NF; k++) if ($k + 0 > m) m = $k + 0 } END { print m + 0 }')
top=$(grep -o '<text>[0-9.]*</text>' "$tmp/breakdown.svg" | tr -dc '0-9.\n' | sort -g | tail -1)
awk -v m="$most" -v t="$top" 'BEGIN { exit !(m > 0 && t >= m && t < 2 * m) }' ||
    { echo "FAIL: the breakdown chart's top tic $top, its largest stage $most: stacked?"; fail=1; }
has "$tmp/plan2.txt" "^stage busy time of the bottleneck connections, us an iteration (stages overlap when pipelined: not a sum)$"

# shares over decades on a log scale, the last 0: 62.8% at 20 Gbit/s,
# 0.6% at 53.5 (a 10 ms compute over 10.06 ms of all-reduce), all of it
# hidden at 60, the table's answer. Each point has its mark, the key one
# more; the 0 stands at the axis's bottom, labelled 0 (gnuplot dropped
# it: the line stopped at 0.6%, above the 0.2% asked, as if none hid it)
cat >"$tmp/zero.yaml" <<EOP
base: { topology: $src/tests/data/round-numbers.yaml, trace: ar64.jsonl, algo: ring, proto: simple, path: direct }
axes:
  nics.rate: { values: [20, 53.5, 60], unit: Gbit/s }
questions:
  nic_speed: { axis: nics.rate, exposed_share: 0.002 }
EOP
"$gdrlab" sweep --no-wall "$tmp/zero.yaml" >"$tmp/zero.txt" 2>/dev/null
has "$tmp/zero.txt" "^all  *60 Gbit/s (exposed 0.00%)$"
"$gdrlab" sweep --json --no-wall "$tmp/zero.yaml" >"$tmp/zero.json" 2>/dev/null
expect 0 "a share of 0 among decades" -- "$gdrlab" plot "$tmp/zero.json" --kind nic_speed -o "$tmp/zero.svg"
want=$(( $(grep -c '^nics.rate=.*round-numbers' "$tmp/zero.txt") + 1 ))
got=$(grep -o "<use xlink:href='#gpPt0' transform='translate(" "$tmp/zero.svg" | wc -l)
[ "$got" -eq "$want" ] || { echo "FAIL: $got marks, want $want (one a point, one the key's): a share of 0 dropped?"; fail=1; }
has "$tmp/zero.svg" "<text>0</text>"

# only the first node count fails: the points at 2 and 4 ran, but no
# efficiency has a reference
expect 1 "a plan whose first node count fails" -- "$gdrlab" sweep --json --no-wall \
    "$src/tests/data/scaling-first-fails.yaml"
cp "$tmp/out" "$tmp/noref.json"
expect 1 "its scaling chart" -- "$gdrlab" plot "$tmp/noref.json" --kind scaling -o "$tmp/noref.svg"
has "$tmp/err" "gdrlab plot: $tmp/noref.json: nothing to draw: no efficiency has a reference: the points at 1 node (the first node count) failed$"
one_line "$tmp/err"
[ ! -e "$tmp/noref.svg" ] || { echo "FAIL: a chart of nothing was left"; fail=1; }

# a NIC-speed series whose points all fail (1 node) before one that ran:
# each line keeps its own title (an empty data block, which gnuplot
# skips, gave nodes=2's line the title nodes=1, and nodes=2 none)
cat >"$tmp/halfnic.yaml" <<EOP
base: { topology: $src/tests/data/round-numbers.yaml, trace: $src/tests/data/two-ranks.jsonl }
axes:
  nodes: [1, 2]
  nics.rate: [100Gbit/s, 200Gbit/s]
questions:
  nic_speed: { axis: nics.rate, exposed_share: 0.1 }
EOP
expect 1 "a plan whose first series fails" -- "$gdrlab" sweep --json --no-wall "$tmp/halfnic.yaml"
cp "$tmp/out" "$tmp/halfnic.json"
expect 0 "its NIC-speed chart" -- "$gdrlab" plot "$tmp/halfnic.json" --kind nic_speed -o "$tmp/halfnic.svg"
has "$tmp/halfnic.svg" "<text>nodes=2</text>"

# a compare's paths (two stacks: hidden, exposed) and its collectives (a
# line per path: direct, staged, staged-memcpy), the trace's 2 in order
printf '{"iteration": 0, "op": "allreduce", "bytes": 1048576, "dtype": "fp32"}\n{"iteration": 0, "op": "allgather", "bytes": 4194304, "dtype": "fp32"}\n' \
    >"$tmp/two.jsonl"
expect 0 "a compare's results" -- "$gdrlab" compare -q --json "$tmp/compare.json" \
    --topology "$src/tests/data/round-numbers.yaml" --trace "$tmp/two.jsonl"
for kind in paths:2 collectives:3; do
    expect 0 "$kind chart" -- "$gdrlab" plot "$tmp/compare.json" --kind "${kind%:*}" -o "$tmp/${kind%:*}.svg"
    n=$(grep -c 'id="gnuplot_plot_[0-9]*"' "$tmp/${kind%:*}.svg")
    [ "$n" -eq "${kind#*:}" ] || { echo "FAIL: ${kind%:*} chart has $n series, want ${kind#*:}"; fail=1; }
done
has "$tmp/collectives.svg" "staged-memcpy"
# a label is text, whatever it holds: gnuplot runs `...` in a double-
# quoted string through sh (a trace named so, or an edited JSON, ran it)
sed "s|\"path\": \"staged-memcpy\"|\"path\": \"\`touch $tmp/pwned\` it's \\\\\\\"q\\\\\\\"\"|" \
    "$tmp/compare.json" >"$tmp/inject.json"
grep -q 'touch' "$tmp/inject.json" || { echo "FAIL: no label to inject into"; fail=1; }
json_ok "$tmp/inject.json"
expect 0 "a label with a command in it" -- "$gdrlab" plot "$tmp/inject.json" --kind collectives -o "$tmp/inject.svg"
[ ! -e "$tmp/pwned" ] || { echo "FAIL: plot ran a command from a label"; fail=1; }
n=$(grep -c 'id="gnuplot_plot_[0-9]*"' "$tmp/inject.svg")
[ "$n" -eq 3 ] || { echo "FAIL: the injected chart has $n series, want 3"; fail=1; }
# communicators at once (Llama 3 8B, tp 8 x dp 2): every call's time
# summed is many iterations long; the paths chart draws what was in
# flight, so no bar, and no y tic beyond the next, passes the iteration
# (the staged bar showed 2400 ms hidden in a 369 ms iteration)
expect 0 "gen llm" -- "$gdrlab" gen llm --model llama3-8b --tp 8 --dp 2 -o "$tmp/tpdp.jsonl"
expect 0 "compare, communicators at once" -- "$gdrlab" compare -q -t h100-pcie5-400g -T "$tmp/tpdp.jsonl" \
    -n 2 --json "$tmp/tpdp.json"
expect 0 "its paths chart" -- "$gdrlab" plot "$tmp/tpdp.json" --kind paths -o "$tmp/tpdp.svg"
longest=$(sed -n 's/^    "iteration_time_us": \([0-9.]*\),*$/\1/p' "$tmp/tpdp.json" | sort -g | tail -1)
summed=$(sed -n 's/^    "comm_time_us": \([0-9.]*\),*$/\1/p' "$tmp/tpdp.json" | sort -g | tail -1)
top=$(sed -n 's/.*<text> *\([0-9.]*\)<\/text>.*/\1/p' "$tmp/tpdp.svg" | sort -g | tail -1)
awk -v t="$top" -v it="$longest" -v s="$summed" 'BEGIN { exit !(s / 1e3 > 2 * it / 1e3 && t <= 1.25 * it / 1e3) }' ||
    { echo "FAIL: paths chart's top tic $top ms, the longest iteration $((${longest%.*} / 1000)) ms (summed $summed us)"; fail=1; }
# 368.8 ms since gen llm's causal attention and Megatron-Core's buckets (2026-12-06; 369.2 before);
# 370.8 staged since the fluid schedule slows a call's stream, not its latencies (the same day;
# SimGrid's together 419.7)
has "$tmp/tpdp.svg" "<text>(iteration 370.8 ms)</text>"
bad_usage_of plot "a sweep has no collectives" "$tmp/results.json: no collectives in it" -- "$tmp/results.json" --kind paths -o "$tmp/x.svg"

# bad input: one line, exit 2, nothing written
printf '[1, 2]\n' >"$tmp/points.json"
bad_usage_of plot "no answer" "$tmp/points.json: no scaling answer in it" -- "$tmp/points.json" --kind scaling -o "$tmp/x.svg"
bad_usage_of plot "not JSON" "$tmp/plan.yaml:" -- "$tmp/plan.yaml" --kind scaling -o "$tmp/x.svg"
bad_usage_of plot "extension" "-o: '$tmp/x.pdf' is not a .svg or .png file name" -- "$tmp/results.json" --kind scaling -o "$tmp/x.pdf"
bad_usage_of plot "kind" "--kind: unknown kind 'pie' (scaling, speedup, nic_speed, breakdown, cost, paths, collectives or busbw)" -- "$tmp/results.json" --kind pie -o "$tmp/x.svg"
bad_usage_of plot "no kind" "--kind is needed: scaling, speedup," -- "$tmp/results.json" -o "$tmp/x.svg"
bad_usage_of plot "a question the plan did not ask" "$tmp/results.json: no cost answer in it" -- "$tmp/results.json" --kind cost -o "$tmp/x.svg"
# the breakdown question by the name a plan asks it by (breakdown: true),
# not by its JSON key, breakdown_us
bad_usage_of plot "no breakdown asked" "$tmp/results.json: no breakdown answer in it (a plan's --json with that question)$" \
    -- "$tmp/results.json" --kind breakdown -o "$tmp/x.svg"
sed 's/algo: ring/algo: nvls/' "$tmp/plan2.yaml" >"$tmp/nvls.yaml" # no NVSwitch: every point fails
expect 1 "a breakdown whose points all failed" -- "$gdrlab" sweep --json --no-wall "$tmp/nvls.yaml"
cp "$tmp/out" "$tmp/nvls.json"
expect 1 "its breakdown chart" -- "$gdrlab" plot "$tmp/nvls.json" --kind breakdown -o "$tmp/x.svg"
has "$tmp/err" "gdrlab plot: $tmp/nvls.json: nothing to draw: no point of its breakdown has a value (each failed, or its iteration took no time: its rows say which)$"
one_line "$tmp/err"
if grep -q breakdown_us "$tmp/err"; then echo "FAIL: plot names the breakdown by its JSON key"; fail=1; fi
[ ! -e "$tmp/x.svg" ] && [ ! -e "$tmp/x.pdf" ] || { echo "FAIL: a chart was left behind"; fail=1; }
expect 0 "help" -- "$gdrlab" plot --help
has "$tmp/out" "usage: gdrlab plot"
# points that ran, each iteration of no time (one-rank calls only: NCCL's
# local copy, not timed): no exposed share to draw, said so; the report
# leaves that chart out and is written (gnuplot refused the plot before)
printf '{"iteration": 0, "op": "allreduce", "bytes": 4096, "group": [0]}\n' >"$tmp/onerank.jsonl"
cat >"$tmp/zero.yaml" <<EOP
base: { preset: two-socket-commodity, trace: $tmp/onerank.jsonl }
axes:
  nics.rate: { values: [100, 400], unit: Gbit/s }
questions:
  nic_speed: { axis: nics.rate, exposed_share: 0.05 }
EOP
expect 0 "a plan of iterations of no time" -- "$gdrlab" sweep --json --no-wall "$tmp/zero.yaml"
cp "$tmp/out" "$tmp/zero.json"
expect 1 "its nic_speed chart" -- "$gdrlab" plot "$tmp/zero.json" --kind nic_speed -o "$tmp/x.svg"
has "$tmp/err" "nothing to draw: no point of its nic_speed has a value"
[ ! -e "$tmp/x.svg" ] || { echo "FAIL: a chart was left behind"; fail=1; }
expect 0 "its report" -- "$gdrlab" report "$tmp/zero.json" -o "$tmp/zero.html"

# busbw's predicted curve (one line), validate's measured and predicted
# (two), each point a size with a busbw: 2 nodes from 8 B to 1 MiB by 4,
# 9 sizes; the ABCI 2-node file's 24 sizes from 4 B
expect 0 "busbw --json" -- "$gdrlab" busbw -t "$src/tests/data/round-numbers.yaml" -n 2 -b 8 -e 1M -f 4 \
    --json "$tmp/bb.json"
expect 0 "busbw chart" -- "$gdrlab" plot "$tmp/bb.json" --kind busbw -o "$tmp/bb.svg"
n=$(grep -c 'id="gnuplot_plot_[0-9]*"' "$tmp/bb.svg")
[ "$n" -eq 1 ] || { echo "FAIL: busbw chart has $n series, want 1"; fail=1; }
has "$tmp/bb.svg" "round-numbers"
abci=$src/../shared/data/nccl-tests/abci-v/all_reduce_2nodes.txt
if [ -f "$abci" ]; then
    expect 0 "validate --json" -- "$gdrlab" validate --nccl-tests "$abci" \
        -t "$src/configs/validation/abci-v100-2xedr.yaml" --op allreduce --nccl 2.8.4 -g pxb --json "$tmp/v.json"
    expect 0 "validate chart" -- "$gdrlab" plot "$tmp/v.json" --kind busbw -o "$tmp/v.svg"
    n=$(grep -c 'id="gnuplot_plot_[0-9]*"' "$tmp/v.svg")
    [ "$n" -eq 2 ] || { echo "FAIL: validate chart has $n series, want 2"; fail=1; }
    has "$tmp/v.svg" "measured"
    has "$tmp/v.svg" "predicted"
else
    echo "skip: validate chart: $abci not here (../shared is not in every checkout)"
fi
bad_usage_of plot "busbw of a run" "$tmp/zero.json: no busbw table in it (busbw's or validate --nccl-tests' --json)" \
    -- "$tmp/zero.json" --kind busbw -o "$tmp/x.svg"
exit $fail
