#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# gdrlab report: the HTML page of a sweep, a compare and a run, checked in
# a real browser (headless Chromium) where one is installed: every chart
# drawn with the series the results imply, the node's tree with its
# verdicts, no console error; a failed point shows its error, not a blank
# chart; bad input is one line, exit 2, no page.
#   usage: test_report.sh GDRLAB SOURCE_DIR
set -u
. "$(dirname "$0")/lib.sh"

command -v gnuplot >/dev/null || { echo "SKIP: gnuplot not installed (Debian: gnuplot-nox)"; exit 77; }
browser=$(command -v chromium || command -v chromium-browser || true)

# browser_check PAGE: the page with a checker script put first in its
# head, opened in headless Chromium; prints, a line each, every chart's
# "kind series drawn|blank" (series: gnuplot's plot groups in its SVG,
# drawn: laid out larger than 100 x 100 px), "node GDR STAGED" per tree
# (its GPU boxes by verdict), then "console N" (messages of level error or
# uncaught exceptions).
browser_check() {
    local page=$1 check=$tmp/check.html
    {
        sed -n '1,/<head>/p' "$page"
        cat <<'EOS'
<script>
window.gdrlabErrors = 0;
window.addEventListener('error', () => window.gdrlabErrors++);
const consoleError = console.error;
console.error = (...a) => { window.gdrlabErrors++; consoleError(...a); };
window.addEventListener('load', () => {
  const out = [];
  for (const fig of document.querySelectorAll('figure.chart')) {
    const n = fig.id.replace('chart', '');
    const svg = fig.querySelector('svg');
    const box = svg ? svg.getBoundingClientRect() : { width: 0, height: 0 };
    const plots = fig.querySelectorAll('[id^="c' + n + '-gnuplot_plot_"]').length;
    out.push(fig.dataset.kind + ' ' + plots + ' ' +
             (box.width > 100 && box.height > 100 ? 'drawn' : 'blank'));
  }
  for (const tree of document.querySelectorAll('figure.cluster svg'))
    out.push('node ' + tree.querySelectorAll('g.gpu.gdr').length + ' ' +
             tree.querySelectorAll('g.gpu.staged').length);
  out.push('console ' + window.gdrlabErrors);
  const pre = document.createElement('pre');
  pre.id = 'gdrlab-check';
  pre.textContent = out.join('\n');
  document.body.appendChild(pre);
});
</script>
EOS
        sed -n '/<head>/,$p' "$page" | sed 1d
    } >"$check"
    timeout 120 "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars \
        --user-data-dir="$tmp/chromium" --enable-logging=stderr --v=0 \
        --virtual-time-budget=5000 --dump-dom "file://$check" 2>"$tmp/browser.err" |
        sed -n '/<pre id="gdrlab-check">/,/<\/pre>/p' |
        sed 's/<pre id="gdrlab-check">//; s/<\/pre>.*//'
    # what the page itself logged, beyond the checker's count
    grep -h 'CONSOLE' "$tmp/browser.err" | grep -v 'gdrlab-check' || true
}

# same_lines WHAT GOT WANT: the checker's lines as derived by hand
same_lines() {
    diff <(printf '%s\n' "$3") <(printf '%s\n' "$2") >"$tmp/diff" ||
        { echo "FAIL: $1 in the browser:"; cat "$tmp/diff"; fail=1; }
}

# plan_page EXIT WHAT NAME: $tmp/NAME.yaml swept (exit EXIT: 1 where points
# fail) into $tmp/NAME.json, and its page into $tmp/NAME.html
plan_page() {
    expect "$1" "$2" -- "$gdrlab" sweep --json --no-wall "$tmp/$3.yaml"
    cp "$tmp/out" "$tmp/$3.json"
    expect 0 "$2: its report" -- "$gdrlab" report "$tmp/$3.json" -o "$tmp/$3.html"
}

# A sweep asking every question: path x NIC rate x nodes = 2 x 2 x 2
# points. Series: scaling one per (path, rate) = 4; nic_speed one per
# (path, nodes) = 4; the speedup heat map two (its cells, their labels);
# breakdown the six stages;
# cost one. The round-numbers node is one GPU and one NIC under one
# switch: PIX, GPUDirect RDMA: one GPU box green.
printf '{"iteration": 0, "op": "allreduce", "bytes": 67108864, "dtype": "fp32", "compute_us": 10000}\n' \
    >"$tmp/ar64.jsonl"
cat >"$tmp/plan.yaml" <<EOP
title: Does GPUDirect pay on round numbers?
base: { topology: $src/tests/data/round-numbers.yaml, trace: ar64.jsonl, algo: ring, proto: simple }
axes:
  path: [direct, staged]
  nics.rate: { values: [20, 40], unit: Gbit/s }
  nodes: [2, 4]
questions:
  scaling: { threshold: 0.8 }
  gdr_speedup: { rows: nics.rate, columns: nodes }
  nic_speed: { axis: nics.rate, exposed_share: 0 }
  breakdown: true
  cost: { gpu_hour: 2.5 }
EOP
plan_page 0 "the plan's results" plan
has "$tmp/plan.html" "<title>Does GPUDirect pay on round numbers?</title>"
for f in 'data-kind="scaling" data-series="4"' 'data-kind="speedup" data-series="2"' \
         'data-kind="nic_speed" data-series="4"' 'data-kind="breakdown" data-series="6"' \
         'data-kind="cost" data-series="1"'; do
    has "$tmp/plan.html" "$f"
done
# what every point ran with, named as a run's page names it
has "$tmp/plan.html" "<tr><th>backend</th><td>analytic</td></tr>"
has "$tmp/plan.html" "<tr><th>NCCL</th><td>2.30.7</td></tr>"
has "$tmp/plan.html" "<tr><th>trace</th><td>$tmp/ar64.jsonl</td></tr>"
# self-contained: nothing to fetch (gnuplot's SVG names its namespaces by
# URL; those are names, not fetches)
if grep -E '(src|href)="(https?:)?//' "$tmp/plan.html" >/dev/null; then
    echo "FAIL: the page fetches something:"; grep -E -o '(src|href)="(https?:)?//[^"]*' "$tmp/plan.html"; fail=1
fi
# no tokens given: the cheapest iteration; with tokens a GPU, the cheapest
# million tokens, ranked by them (the iteration was the headline whatever
# the plan said until 2026-12-06). NIC-bound, the 40 Gbit/s ring on 2
# nodes is the shortest and the smallest: cheapest both ways
has "$tmp/plan.html" "The cheapest iteration: path=direct nics.rate=40 Gbit/s nodes=2, 1.868e-05 at 2.5 a GPU-hour."
sed 's/  cost: { gpu_hour: 2.5 }/  cost: { gpu_hour: 2.5, tokens_per_gpu: 1000 }/' "$tmp/plan.yaml" >"$tmp/tokens.yaml"
plan_page 0 "with tokens" tokens
has "$tmp/tokens.html" "The cheapest million tokens: path=direct nics.rate=40 Gbit/s nodes=2, 0.00934 at 2.5 a GPU-hour."
# and the lead asks what the table answers
has "$tmp/tokens.html" "asking .*what a million tokens cost"
has "$tmp/plan.html" "asking .*what an iteration costs"
# the heat map's extremes, staged over direct as the table has them ("direct
# over staged" until 2026-12-06, the inverse of what it gave)
"$gdrlab" sweep --no-wall "$tmp/plan.yaml" 2>/dev/null | sed -n '/^GPUDirect RDMA speedup/,/^$/p' |
    grep -o '[0-9.]*x' | sort -g | sed -n '1p;$p' | tr '\n' ' ' >"$tmp/extremes"
read -r lo hi <"$tmp/extremes"
has "$tmp/plan.html" "Staged over direct, the iteration (above 1: GPUDirect RDMA faster): from $lo (nics.rate [0-9]* Gbit/s, nodes [24]) to $hi (nics.rate"
# a fourth axis: the heat map holds its first value only, which the page
# says (it did not until 2026-12-06)
sed 's/^axes:$/axes:\n  gpus.link.bandwidth: [20 GB\/s, 4 GB\/s]/' "$tmp/plan.yaml" >"$tmp/fourth.yaml"
plan_page 0 "a fourth axis" fourth
has "$tmp/fourth.html" "This grid holds only gpus.link.bandwidth=20 GB/s, the plan&#39;s first value; the others are not in it."
grep -q "This grid holds only" "$tmp/plan.html" && { echo "FAIL: a grid of every point says it holds some"; fail=1; }
# the shipped 32-rank Llama job on 4 and 8 nodes of 8 H100s: its
# efficiency at 8 is not the job scaled, as the table says (the page
# said "at or above 0.8 through 8 nodes" alone)
printf 'base: { preset: h100-pcie5-400g, trace: llama3-8b-tp8-pp2-dp2 }\naxes:\n  nodes: [4, 8]\nquestions:\n  scaling: { threshold: 0.8 }\n' \
    >"$tmp/idle.yaml"
plan_page 0 "a fixed job on more nodes" idle
has "$tmp/idle.html" "<li>all: at or above 0.8 through 8 nodes; from 8 nodes the trace&#39;s 32 ranks leave GPUs idle: not its job scaled</li>"
# a heat map cell of one node (GPUDirect RDMA does not apply): the page
# says so, as the table does ("in node"; the page's cell was a bare "-")
printf 'base: { preset: h100-pcie5-400g, trace: resnet50-ddp }\naxes:\n  path: [direct, staged]\n  nodes: [1, 2]\n  nics.rate: { values: [400], unit: Gbit/s }\nquestions:\n  gdr_speedup: { rows: nics.rate, columns: nodes }\n' \
    >"$tmp/node1.yaml"
plan_page 0 "a heat map with a cell in one node" node1
has "$tmp/node1.html" "<tr><th>400 Gbit/s</th><td>in node</td><td class=\"num\">[0-9.]*</td></tr>"
has "$tmp/node1.html" "<p>in node: no collective left its node, GPUDirect RDMA does not apply.</p>"
# a breakdown of calls at once (the shipped tensor-, pipeline- and
# data-parallel Llama): each stage summed over them, which the page says
printf 'base: { preset: h100-pcie5-400g, trace: llama3-8b-tp8-pp2-dp2, nodes: 4 }\naxes:\n  path: [direct, staged]\nquestions:\n  breakdown: true\n' \
    >"$tmp/conc.yaml"
plan_page 0 "a breakdown of calls at once" conc
has "$tmp/conc.html" "<p>Some points' calls ran at once"
grep -q "Some points' calls ran at once" "$tmp/plan.html" && { echo "FAIL: one all-reduce said to run at once"; fail=1; }
# a NIC-speed value before the answer failed: the page says it may hide
# there too (it said "from 2" alone)
printf '{"iteration": 0, "op": "allreduce", "bytes": 1048576, "dtype": "fp32", "group": [0, 1], "compute_us": 1000}\n' \
    >"$tmp/pair.jsonl"
printf 'base: { topology: %s, trace: pair.jsonl }\naxes:\n  nodes: [1, 2, 4]\nquestions:\n  nic_speed: { axis: nodes, exposed_share: 0.5 }\n' \
    "$src/tests/data/round-numbers.yaml" >"$tmp/nicfail.yaml"
plan_page 1 "a NIC-speed value that failed" nicfail
has "$tmp/nicfail.html" "<li>all: exposed communication at most 50% of the iteration from 2, or from 1, whose point failed</li>"
# a ring all-reduce moves 2 (n - 1) / n of its bytes a rank: 1.5x at 4
# nodes what it does at 2; NIC-bound, the efficiency is 1 / 1.5 < 0.8
has "$tmp/plan.html" "path=direct nics.rate=20 Gbit/s: below 0.8 from 4 nodes"

# A compare with its timeline: the paths chart's two stacks, the
# collectives' line per path (direct, staged, staged-memcpy); the link
# relative to the page.
mkdir -p "$tmp/out dir"
expect 0 "a compare" -- "$gdrlab" compare -q --json "$tmp/compare.json" \
    --topology "$src/tests/data/round-numbers.yaml" --trace "$tmp/ar64.jsonl"
expect 0 "a run with its timeline" -- "$gdrlab" run -q --json "$tmp/run.json" --timeline "$tmp/tl.json" \
    --topology "$src/configs/two-socket-commodity.yaml" --trace "$tmp/ar64.jsonl" --path direct
expect 0 "the compare's report" -- "$gdrlab" report "$tmp/compare.json" --timeline "$tmp/tl.json" \
    -o "$tmp/out dir/compare.html"
has "$tmp/out dir/compare.html" 'href="../tl.json"'
has "$tmp/out dir/compare.html" "Does GPUDirect RDMA pay here?"
has "$tmp/out dir/compare.html" "<td>Ring/Simple x"
# the same nodes compared: "direct" never went direct, and the page says
# so rather than "as fast as" host staging (until 2026-12-06)
expect 0 "a compare that never goes direct" -- "$gdrlab" compare -q --json "$tmp/never.json" \
    --topology "$src/configs/two-socket-commodity.yaml" --trace "$tmp/ar64.jsonl"
expect 0 "its report" -- "$gdrlab" report "$tmp/never.json" -o "$tmp/never.html"
has "$tmp/never.html" "GPUDirect RDMA cannot be used here: every collective that leaves its node falls back to host staging (gpu"
grep -q "as fast as" "$tmp/never.html" && { echo "FAIL: never direct, yet as fast as staging"; fail=1; }
# An 8-byte all-reduce across two nodes costs the same direct and staged:
# compare's verdict says "as fast as" and then the iteration, and so does
# the page (which left the iteration out after "as fast as")
echo '{"iteration": 0, "op": "allreduce", "bytes": 8, "dtype": "fp32", "ready_us": 0}' >"$tmp/tiny.jsonl"
expect 0 "a compare as fast either way" -- "$gdrlab" compare --json "$tmp/tiny.json" \
    --topology "$src/configs/a100-pcie4-200g.yaml" --nodes 2 --trace "$tmp/tiny.jsonl"
has "$tmp/out" "^verdict: direct (GPUDirect RDMA) communication is as fast as NCCL's host staging$"
has "$tmp/out" "^         the iteration takes as long either way$"
expect 0 "its report" -- "$gdrlab" report "$tmp/tiny.json" -o "$tmp/tiny.html"
has "$tmp/tiny.html" "Direct (GPUDirect RDMA) communication is as fast as NCCL&#39;s host staging; the iteration takes as long either way."
# The page answers as compare's verdict does: BERT-large on two GH200s,
# whose iterations differ by 0.02% (under the 0.05% that compare calls
# "as long either way"; the page said "0.022% shorter" beside it)
expect 0 "a compare of iterations alike" -- "$gdrlab" compare --json "$tmp/alike.json" \
    --topology "$src/configs/gh200-grace-hopper.yaml" --trace "$src/traces/bert-large-ddp.jsonl"
has "$tmp/out" "the iteration takes as long either way"
it_d=$(grep -o '"iteration_time_us": [0-9.e+]*' "$tmp/alike.json" | sed -n '1s/.*: //p')
it_s=$(grep -o '"iteration_time_us": [0-9.e+]*' "$tmp/alike.json" | sed -n '2s/.*: //p')
awk -v d="$it_d" -v s="$it_s" 'BEGIN { r = 1 - d / s; exit !(d > 0 && r * r < 0.0005 * 0.0005) }' ||
    { echo "FAIL: direct $it_d us, staged $it_s us: not within 0.05%"; fail=1; }
expect 0 "its report" -- "$gdrlab" report "$tmp/alike.json" -o "$tmp/alike.html"
has "$tmp/alike.html" "the iteration takes as long either way"
grep -q "% shorter" "$tmp/alike.html" && { echo "FAIL: the page gives a share compare calls as long"; fail=1; }
# A generated sweep's page names what made its trace, the command its
# points' JSON gives, where a file's sweep names the file (it drew an
# empty "trace" row)
printf 'base: { topology: %s, gen: { model: llama3-8b, seq: 1000, dp: 2 } }\naxes:\n  path: [direct, staged]\n' \
    "$src/configs/a100-pcie4-200g.yaml" >"$tmp/genplan.yaml"
expect 0 "a generated sweep" -- "$gdrlab" sweep --json --no-wall -q "$tmp/genplan.yaml"
cp "$tmp/out" "$tmp/gensweep.json"
gen_cmd=$(grep -o '"gen": "[^"]*"' "$tmp/gensweep.json" | sed -n '1s/^"gen": "//; 1s/"$//p')
[ -n "$gen_cmd" ] || { echo "FAIL: no gen command in the sweep's JSON"; fail=1; }
expect 0 "its report" -- "$gdrlab" report "$tmp/gensweep.json" -o "$tmp/gensweep.html"
has "$tmp/gensweep.html" "<tr><th>trace made by</th><td>$gen_cmd</td></tr>"
grep -q "<th>trace</th><td></td>" "$tmp/gensweep.html" && { echo "FAIL: an empty trace row"; fail=1; }
expect 0 "the run's report" -- "$gdrlab" report "$tmp/run.json" -o "$tmp/run.html"
# two-socket-commodity: its two GPUs reach the one NIC across the sockets
# (SYS), beyond the default P2C: both staged, and said why
has "$tmp/run.html" "staged all the same: gpu"
# communicators at once (Llama 3 8B, tp 8 x dp 2): the summed
# communication (2617 ms staged) is not set beside a 369 ms iteration as
# if it were in it: the table gives what was in flight, within the
# iteration, and the sum labelled as one, with why it can exceed it
expect 0 "gen llm" -- "$gdrlab" gen llm --model llama3-8b --tp 8 --dp 2 -o "$tmp/tpdp.jsonl"
expect 0 "compare, communicators at once" -- "$gdrlab" compare -q -t h100-pcie5-400g -T "$tmp/tpdp.jsonl" \
    -n 2 --json "$tmp/tpdp.json"
expect 0 "its report" -- "$gdrlab" report "$tmp/tpdp.json" -o "$tmp/tpdp.html"
row() { sed -n "s|^<tr><th>$1</th>||p" "$tmp/tpdp.html" | sed 's|<td class="num">||g; s|</td>| |g; s|</tr>||'; }
has "$tmp/tpdp.html" "<tr><th>communication, every call summed (ms)</th>"
has "$tmp/tpdp.html" "every call&#39;s time summed counts the same milliseconds once per call\|every call's time summed counts the same milliseconds once per call"
paste <(row 'iteration (ms)' | tr ' ' '\n' | grep .) <(row 'communication in flight (ms)' | tr ' ' '\n' | grep .) \
    <(row 'exposed communication (ms)' | tr ' ' '\n' | grep .) >"$tmp/figs"
[ "$(wc -l <"$tmp/figs")" -eq 3 ] || { echo "FAIL: not three paths in the page's table:"; cat "$tmp/figs"; fail=1; }
awk '$2 > $1 || $3 > $2 { print "FAIL: the page: in flight " $2 " ms, exposed " $3 ", iteration " $1 }' \
    "$tmp/figs" | grep . && fail=1
# switches named: the fabric said, and each kind's busiest link; none
# on the crossbar
expect 0 "a run on switches" -- "$gdrlab" run -q --json "$tmp/leaf.json" \
    --topology "$src/tests/data/fabric/leaf-2to1.yaml" --trace "$tmp/ar64.jsonl"
expect 0 "its report" -- "$gdrlab" report "$tmp/leaf.json" -o "$tmp/leaf.html"
has "$tmp/leaf.html" "Between nodes: a two-tier fabric, each node&#39;s NICs on one leaf; leaves of 8 ports (4 up)"
has "$tmp/leaf.html" "busiest fabric link</th>"
has "$tmp/leaf.html" "<td>[a-z0-9./_]*: [0-9]* flows, [0-9.]* of a port each</td>"
if grep -q "busiest fabric link" "$tmp/run.html"; then echo "FAIL: a crossbar has a busiest fabric link"; fail=1; fi
# a run with --set: the node drawn as it ran
expect 0 "a run with --set" -- "$gdrlab" run -q --json "$tmp/set.json" --set fabric.leaf.uplinks=2 \
    --topology "$src/tests/data/fabric/leaf-2to1.yaml" --trace "$tmp/ar64.jsonl"
expect 0 "its report" -- "$gdrlab" report "$tmp/set.json" -o "$tmp/set.html"
has "$tmp/set.html" "leaves of 8 ports (2 up)"
has "$tmp/set.html" "leaf-2to1.yaml, with --set fabric.leaf.uplinks=2)"
# what a run was given, on its page: the choice forced, each --set by its
# value, and a staged path's node staged throughout, whatever GDR level
# PHB allows (h100-pcie5-400g: each GPU's nearest NIC under its switch,
# PIX; the tree said "used at GDR level PHB" and drew all eight green)
expect 0 "a staged run with its choice forced" -- "$gdrlab" run -q --json "$tmp/forced.json" \
    -t h100-pcie5-400g -T "$tmp/ar64.jsonl" -p staged-memcpy --gdr-level phb --algo ring --proto LL128 \
    --channels 4 --pxn off --set nics.rate=100Gbit/s --set "staging.buffers=4"
expect 0 "its report" -- "$gdrlab" report "$tmp/forced.json" -o "$tmp/forced.html"
for row in NCCL_ALGO=ring NCCL_PROTO=LL128 "--channels 4" "--pxn off (NCCL_PXN_DISABLE=1)"; do
    has "$tmp/forced.html" "<tr><th>forced</th><td>$row</td></tr>"
done
has "$tmp/forced.html" "<tr><th>--set</th><td>nics.rate=100Gbit/s, staging.buffers=4</td></tr>"
has "$tmp/forced.html" "h100-pcie5-400g.yaml, with --set nics.rate=100Gbit/s, staging.buffers=4)</h3>"
has "$tmp/forced.html" "This run&#39;s path, staged-memcpy, stages every transfer through host memory: GPUDirect RDMA is used by no pair"
n=$(grep -c '<g class="gpu gdr">' "$tmp/forced.html"); s=$(grep -c '<g class="gpu staged">' "$tmp/forced.html")
[ "$n" -eq 0 ] && [ "$s" -eq 8 ] || { echo "FAIL: a staged-memcpy run's node: $n GPUs green, $s orange, want 0 and 8"; fail=1; }
# (the GPU x NIC table; the GDR levels' table below it says what each
# level would make of a pair, and has no title)
grep -q '<td class="gdr[^"]*" title=' "$tmp/forced.html" && { echo "FAIL: a staged-memcpy run's pairs drawn as GPUDirect"; fail=1; }
# the same run direct: its node as the GDR level decides, all eight green
expect 0 "the run direct" -- "$gdrlab" run -q --json "$tmp/phb.json" -t h100-pcie5-400g -T "$tmp/ar64.jsonl" \
    -p direct --gdr-level phb
expect 0 "its report" -- "$gdrlab" report "$tmp/phb.json" -o "$tmp/phb.html"
[ "$(grep -c '<g class="gpu gdr">' "$tmp/phb.html")" -eq 8 ] || { echo "FAIL: a direct run's node not green"; fail=1; }
grep -q '<tr><th>forced</th>' "$tmp/phb.html" && { echo "FAIL: forced rows with nothing forced"; fail=1; }
# a compare's page is titled after its three paths
has "$tmp/out dir/compare.html" "<h1>ar64.jsonl on round-numbers: direct vs staged vs staged-memcpy</h1>"
# a SYS pair is direct at GDR level SYS alone
has "$tmp/run.html" '<th>gpu0-nic0</th><td>SYS</td>\(<td class="staged">staged</td>\)\{4\}<td class="gdr">direct</td>' 
# a mesh wired pair by pair says so: DGX-1's 16 pairs, 6 links a GPU
expect 0 "the run's report, a wired mesh drawn" -- "$gdrlab" report "$tmp/run.json" \
    --topology "$src/tests/data/dgx1-wired-mesh.yaml" -o "$tmp/mesh.html"
has "$tmp/mesh.html" "GPU to GPU: NVLink mesh, 16 pairs wired, up to 6 links a GPU at 20 GB/s each way"

# Every point failed: no chart but the error; some failed: the chart and
# their errors (nvls needs NVSwitch, which round-numbers lacks).
cat >"$tmp/failing.yaml" <<EOP
base: { topology: $src/tests/data/round-numbers.yaml, trace: ar64.jsonl, proto: simple }
axes:
  algo: [ring, nvls]
  nodes: [2, 4]
questions:
  scaling: { threshold: 0.8 }
  cost: { gpu_hour: 2 }
EOP
plan_page 1 "a plan with failing points" failing
has "$tmp/failing.html" "2 of 4 points failed and are missing from this answer:"
has "$tmp/failing.html" "algo=nvls nodes=2: .*allow no algorithm"
has "$tmp/failing.html" "algo=nvls: no answer, its points failed"
sed 's/ring, nvls/nvls/' "$tmp/failing.yaml" >"$tmp/all-failing.yaml"
plan_page 1 "a plan whose every point fails" all-failing
has "$tmp/all-failing.html" "No chart: every point it needs failed"
has "$tmp/all-failing.html" 'data-kind="scaling" data-series="0"'
if grep -q 'gnuplot_canvas' "$tmp/all-failing.html"; then
    echo "FAIL: a chart of nothing was drawn"; fail=1
fi
# Only a series' first node count fails (ranks 0 and 1 are not on 1 node
# of one GPU): its efficiencies have no reference, which the page says,
# and the chart still draws the other series (ar64, 10 ms of compute a
# node, runs at every count); with that series alone there is no line to
# draw, and the page says why.
cp "$src/tests/data/two-ranks.jsonl" "$tmp/pair.jsonl"
cat >"$tmp/noref.yaml" <<EOP
base: { topology: $src/tests/data/round-numbers.yaml, trace: ar64.jsonl }
axes:
  trace: [pair.jsonl, ar64.jsonl]
  nodes: [1, 2, 4]
questions:
  scaling: { threshold: 0.8 }
EOP
plan_page 1 "a plan whose first node count fails in one series" noref
has "$tmp/noref.html" "trace=pair.jsonl: no reference for its efficiencies: its point at 1 node (the first node count) failed"
has "$tmp/noref.html" 'data-kind="scaling" data-series="2"'
# (an empty data block for trace=pair once gave ar64's line its title,
# and ar64 no line of its own)
has "$tmp/noref.html" '<text>trace=ar64</text>'
if grep -q "no answer" "$tmp/noref.html"; then echo "FAIL: a series whose points ran has no answer"; fail=1; fi
sed 's/\[pair.jsonl, ar64.jsonl\]/[pair.jsonl]/' "$tmp/noref.yaml" >"$tmp/noref1.yaml"
plan_page 1 "a plan whose only series' first node count fails" noref1
has "$tmp/noref1.html" "No chart: no efficiency has a reference: the points at 1 node (the first node count) failed."

# bad input: one line, exit 2, no page
printf '{"x": 1}\n' >"$tmp/other.json"
bad_usage_of report "not JSON" "$tmp/plan.yaml:1:" -- "$tmp/plan.yaml" -o "$tmp/x.html"
# a key twice: which one the page would draw is not the file's to say
sed '0,/"nodes": 2,/s//"nodes": 2, "nodes": 8,/' "$src/tests/data/results/run.json" >"$tmp/twice.json"
bad_usage_of report "a key twice" "$tmp/twice.json:7: duplicate object key near" -- "$tmp/twice.json" -o "$tmp/x.html"
bad_usage_of report "JSON gdrlab did not write" "$tmp/other.json: not what gdrlab run, compare or sweep write" \
    -- "$tmp/other.json" -o "$tmp/x.html"
# a compare's paths without their collectives (it crashed the page, which
# read runs that were not there; fuzz_results found it)
printf '{"direct": {}, "staged": {}}\n' >"$tmp/hollow.json"
bad_usage_of report "a compare with no runs in it" \
    "$tmp/hollow.json: not what gdrlab run, compare or sweep write" -- "$tmp/hollow.json" -o "$tmp/x.html"
# a value of another type than gdrlab writes (the page said "0 nodes")
sed 's/"nodes": [0-9]*/"nodes": "two"/' "$tmp/run.json" >"$tmp/typed.json"
bad_usage_of report "a run whose nodes are a string" \
    "$tmp/typed.json: 'nodes' is not a whole number above 0" -- "$tmp/typed.json" -o "$tmp/x.html"
sed '0,/"time_us": [0-9.e+-]*/s//"time_us": "slow"/' "$tmp/compare.json" >"$tmp/typed2.json"
bad_usage_of report "a compare whose first collective's time is a string" \
    "$tmp/typed2.json: direct: collectives\[0\]: needs a whole 'iteration' and 'ranks' and a number 'time_us'" \
    -- "$tmp/typed2.json" -o "$tmp/x.html"
bad_usage_of report "no output" "-o: where the page goes" -- "$tmp/plan.json"
bad_usage_of report "a timeline not there" "--timeline $tmp/gone.json: No such file" \
    -- "$tmp/plan.json" --timeline "$tmp/gone.json" -o "$tmp/x.html"
bad_usage_of report "two results" "expected one results file" -- "$tmp/plan.json" "$tmp/plan.json" -o "$tmp/x.html"
[ ! -e "$tmp/x.html" ] || { echo "FAIL: a page was left behind"; fail=1; }
expect 0 "help" -- "$gdrlab" report --help
has "$tmp/out" "usage: gdrlab report"

if [ -z "$browser" ]; then
    echo "SKIP: the browser checks: chromium not installed (Debian: chromium)"
    [ "$fail" -ne 0 ] && exit 1
    exit 77
fi
same_lines "the plan's page" "$(browser_check "$tmp/plan.html")" "scaling 4 drawn
speedup 2 drawn
nic_speed 4 drawn
breakdown 6 drawn
cost 1 drawn
node 1 0
console 0"
same_lines "the compare's page" "$(browser_check "$tmp/out dir/compare.html")" "paths 2 drawn
collectives 3 drawn
node 1 0
console 0"
same_lines "the run's page" "$(browser_check "$tmp/run.html")" "paths 2 drawn
collectives 1 drawn
node 0 2
console 0"
same_lines "the page of failed points" "$(browser_check "$tmp/all-failing.html")" "scaling 0 blank
cost 0 blank
node 1 0
console 0"
# and a picture of it, as a person sees it
timeout 120 "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars \
    --user-data-dir="$tmp/chromium" --window-size=1280,2400 --screenshot="$tmp/plan.png" \
    "file://$tmp/plan.html" >/dev/null 2>&1
[ "$(head -c 8 "$tmp/plan.png" 2>/dev/null | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] ||
    { echo "FAIL: no screenshot of the plan's page"; fail=1; }
exit $fail
