#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The scaling question over a generator's gen.dp axis (weak scaling of a
# generated job by its replicas): each efficiency derived here from
# points run alone, `gdrlab gen llm` then `gdrlab run`, and the plans it
# refuses.
# usage: test_sweep_scaling_dp.sh GDRLAB SOURCE_DIR
set -u
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

topo=$src/configs/h100-pcie5-400g.yaml
# Llama 3 8B, tensor 8 within a node: dp replicas fill dp nodes of 8 H100s.
# Its options spelled out (seq, micro-batches, the GPU's rate) so that the
# runs below make the same trace without reading the plan's defaults.
cat >"$tmp/dp.yaml" <<EOP
base:
  topology: $topo
  gen: { model: llama3-8b, tp: 8, seq: 2048, micro_batches: 2, gpu_tflops: 500 }
axes:
  path: [direct, staged]
  gen.dp: [1, 2, 4]
questions:
  scaling: { threshold: 0.8 }
EOP
expect 0 "scaling over gen.dp" -- "$gdrlab" sweep --no-wall --json "$tmp/dp.yaml"
json_ok "$tmp/out"
tr -d ' \n' <"$tmp/out" >"$tmp/flat.json"
# each series' arrays, one line a series (direct, then staged)
arrays() { grep -o "\"$1\":\[[^]]*\]" "$tmp/flat.json" | sed 's/.*\[//; s/\]//; s/,/ /g'; }
arrays efficiency >"$tmp/eff"
arrays tokens_per_s_per_gpu >"$tmp/rate"
arrays nodes >"$tmp/nodes"
[ "$(wc -l <"$tmp/eff")" -eq 2 ] || { echo "FAIL: not two series:"; cat "$tmp/flat.json"; fail=1; }
grep -q '"axis":"gen.dp","dp":\["1","2","4"\]' "$tmp/flat.json" ||
    { echo "FAIL: the answer does not say it goes along gen.dp:"; cat "$tmp/flat.json"; fail=1; }

# By hand: each point alone. Tokens an iteration are dp x micro-batches x
# micro-batch size (1) x seq; the GPUs its dp nodes' 8 each; tokens a
# second a GPU = tokens / iteration / GPUs, the efficiency its ratio to
# dp=1's, the verdict the first dp under 0.8.
close() { # close WHAT WANT GOT: three positive numbers each, equal to 1e-6 relatively
    awk -v w="$2" -v g="$3" 'BEGIN { n = split(w, a, " "); if (n != 3 || split(g, b, " ") != n) exit 1
        for (k = 1; k <= n; k++) { if (!(a[k] + 0 > 0)) exit 1
            d = a[k] - b[k]; if (d < 0) d = -d; if (d > 1e-6 * a[k]) exit 1 } }' ||
        { echo "FAIL: path=$path $1: by hand$2, the question's $3"; fail=1; }
}
s=0
for path in direct staged; do
    s=$((s + 1)) want_rate="" want_eff="" below=none r1=""
    for dp in 1 2 4; do
        "$gdrlab" gen llm --model llama3-8b --tp 8 --dp "$dp" --seq 2048 --micro-batches 2 \
            --gpu-tflops 500 -o "$tmp/t.jsonl" ||
            { echo "FAIL: gen llm dp $dp"; fail=1; }
        "$gdrlab" run -t "$topo" -T "$tmp/t.jsonl" -n "$dp" -p "$path" --json "$tmp/run.json" \
            >/dev/null || { echo "FAIL: run dp $dp $path"; fail=1; }
        it=$(sed -n 's/^  "iteration_time_us": *\([0-9.eE+-]*\),*$/\1/p' "$tmp/run.json" | head -1)
        r=$(awk -v dp="$dp" -v it="$it" 'BEGIN { printf "%.10g", dp * 2 * 1 * 2048 / (it * 1e-6) / (8 * dp) }')
        r1=${r1:-$r}
        e=$(awk -v r="$r" -v r1="$r1" 'BEGIN { printf "%.10g", r / r1 }')
        want_rate="$want_rate $r" want_eff="$want_eff $e"
        [ "$below" = none ] && awk -v e="$e" 'BEGIN { exit !(e < 0.8) }' && below="dp=$dp ($dp nodes)"
    done
    close "tokens a second a GPU" "$want_rate" "$(sed -n "${s}p" "$tmp/rate")"
    close "efficiency" "$want_eff" "$(sed -n "${s}p" "$tmp/eff")"
    [ "$(sed -n "${s}p" "$tmp/nodes")" = "1 2 4" ] ||
        { echo "FAIL: path=$path nodes: $(sed -n "${s}p" "$tmp/nodes"), want 1 2 4"; fail=1; }
    echo "path=$path by hand:$want_eff, below from $below"
    # the table's verdict, on the series' line
    "$gdrlab" sweep --no-wall "$tmp/dp.yaml" >"$tmp/table" 2>/dev/null
    if [ "$below" = none ]; then
        has "$tmp/table" "^path=$path  .*  never below$"
    else
        has "$tmp/table" "^path=$path  .*  below from $below$"
    fi
done
has "$tmp/table" "^scaling efficiency over gen.dp (weak scaling: each replica its batch): tokens a second a GPU at each dp over that at dp=1 (\* below 0.80)$"
has "$tmp/table" "^  nodes  *1  *2  *4$"

# tensor 4 on nodes of 8: dp=1 leaves 4 GPUs of its node idle, counted
# among the GPUs its tokens a second a GPU divide by (a node is taken whole)
sed 's/tp: 8/tp: 4/; s/gen.dp: \[1, 2, 4\]/gen.dp: [1, 2]/; /path:/d' "$tmp/dp.yaml" >"$tmp/tp4.yaml"
expect 0 "a replica of half a node" -- "$gdrlab" sweep --no-wall "$tmp/tp4.yaml"
has "$tmp/out" "^  at dp=1 the job's 4 ranks leave GPUs of its 1 node idle: its tokens a second a GPU count all 8$"

# Refused, one line each, before anything runs:
# a generator with a nodes axis: one job on every count, too few nodes
# fail and more leave GPUs idle: no count scales it
printf 'base: { topology: %s, gen: { model: llama3-8b, tp: 8, dp: 2 } }\naxes:\n  nodes: [2, 4]\nquestions:\n  scaling: { threshold: 0.8 }\n' "$topo" >"$tmp/nodes.yaml"
bad_usage_of sweep "a generator with a nodes axis" "$tmp/nodes.yaml:5:3: scaling: the generator's job is tp x cp x pp x dp ranks on every node count, the GPUs beyond them idle: scale it by a gen.dp axis, without a nodes axis" -- "$tmp/nodes.yaml"
# replicas from the most to the fewest: measured against dp=4
sed 's/gen.dp: \[1, 2, 4\]/gen.dp: [4, 2, 1]/' "$tmp/dp.yaml" >"$tmp/down.yaml"
bad_usage_of sweep "gen.dp down" "$tmp/down.yaml:8:3: scaling: the gen.dp axis must go from the fewest replicas to the most, the efficiency being against the first: '2' after '4'" -- "$tmp/down.yaml"
# the base's nodes: every point on 4 nodes, a smaller job's GPUs idle
sed 's/^  topology:/  nodes: 4\n  topology:/' "$tmp/dp.yaml" >"$tmp/basenodes.yaml"
bad_usage_of sweep "gen.dp with the base's nodes" "$tmp/basenodes.yaml:9:3: scaling: over gen.dp each point runs on the nodes its ranks fill: leave nodes out of the base (4 nodes leave a smaller job's GPUs idle)" -- "$tmp/basenodes.yaml"
# neither axis
sed '/gen.dp:/d' "$tmp/dp.yaml" >"$tmp/none.yaml"
bad_usage_of sweep "no axis to scale along" "$tmp/none.yaml:7:3: scaling: needs a nodes axis, or a generator's gen.dp axis" -- "$tmp/none.yaml"

# Its chart and report section: x is dp, a line a series
if command -v gnuplot >/dev/null; then
    "$gdrlab" sweep --no-wall --json "$tmp/dp.yaml" >"$tmp/dp.json" 2>/dev/null
    expect 0 "its chart" -- "$gdrlab" plot "$tmp/dp.json" --kind scaling -o "$tmp/dp.svg"
    [ "$(grep -c 'id="gnuplot_plot_[0-9]*"' "$tmp/dp.svg")" -eq 2 ] ||
        { echo "FAIL: the chart has not 2 series"; fail=1; }
    has "$tmp/dp.svg" "data-parallel replicas (gen.dp)"
    expect 0 "its report" -- "$gdrlab" report "$tmp/dp.json" -o "$tmp/dp.html"
    has "$tmp/dp.html" "<li>path=direct: \(below 0.8 from dp=[24] ([24] nodes)\|at or above 0.8 through dp=4 (4 nodes)\)</li>"
    has "$tmp/dp.html" "<tr><th>nodes</th><th>1</th><th>2</th><th>4</th></tr>"
else
    echo "skipped the chart and report: gnuplot not installed"
fi
exit $fail
