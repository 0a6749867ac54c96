#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# gdrlab run --job: several jobs on one cluster, each on its own nodes,
# sharing the fabric; the table's jobs section, --json with each job's
# communicators, and the usage errors. A job whose nodes sit under one
# leaf of tests/data/fabric/leaf-2to1.yaml (nodes 0-3) shares no link with
# a job on another leaf's nodes (4-7): both keep their time alone.
# usage: test_jobs.sh GDRLAB SOURCE_DIR
set -u
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
fab=$src/tests/data/fabric/leaf-2to1.yaml
echo '{"iteration":0,"op":"allreduce","bytes":16777216,"dtype":"fp32"}' >"$tmp/j.jsonl"

expect 0 "help" -- "$gdrlab" run --help
has "$tmp/out" "--job FILE@FIRST:NODES"

expect 0 "two jobs on two leaves" -- "$gdrlab" run -t "$fab" \
    --job "$tmp/j.jsonl@0:4" --job "$tmp/j.jsonl@4:4" --quiet
has "$tmp/out" "jobs on one cluster"
has "$tmp/out" "  job0 .* 0-3 .* 1.00x"
has "$tmp/out" "  job1 .* 4-7 .* 1.00x"
has "$tmp/out" "fabric     2-tier, node-attached: 2 leaves (2:1), 4 spines; ECMP seed 0"

expect 0 "jobs as JSON" -- "$gdrlab" run -t "$fab" \
    --job "$tmp/j.jsonl@0:4" --job "$tmp/j.jsonl@4:4" --json - --quiet
json_ok "$tmp/out"
has "$tmp/out" '"comm": "job1/world"'
has "$tmp/out" '"ecmp_seed": 0'
# the table's jobs section too, which --json - leaves out of stdout: each
# job alone and together, here apart on their leaves (a slowdown of 1)
has "$tmp/out" '"job": "'"$tmp"'/j.jsonl@4:4"'
has "$tmp/out" '"nodes": "4-7"'
has "$tmp/out" '"slowdown": 1.0'

# the busiest switch link in CSV as in JSON: the same link, flows, share
expect 0 "a run's CSV" -- "$gdrlab" run -q -t "$fab" -T "$tmp/j.jsonl" --csv "$tmp/j.csv" --json "$tmp/j.json"
link=$(sed -n 's/^ *"fabric_link": "\(.*\)",$/\1/p' "$tmp/j.json" | head -1)
flows=$(sed -n 's/^ *"fabric_flows": \([0-9]*\),$/\1/p' "$tmp/j.json" | head -1)
[ -n "$link" ] && [ -n "$flows" ] || { echo "FAIL: no busiest link in the JSON"; fail=1; }
has "$tmp/j.csv" ",\"$link\",$flows,0\.[0-9]*,,,$"
# a group's rank past the job's nodes, named by its file, line and key
echo '{"iteration":0,"op":"allreduce","bytes":1024,"dtype":"fp32","group":[0,5]}' >"$tmp/g.jsonl"
bad_usage_of run "a rank past its job" "$tmp/g.jsonl:1: group: rank 5 is beyond job 0's 4 ranks" -- \
    -t "$fab" --job "$tmp/g.jsonl@0:4" --job "$tmp/j.jsonl@4:4"
bad_usage_of run "jobs overlap" "jobs: rank 3 is in two jobs" -- \
    -t "$fab" --job "$tmp/j.jsonl@0:4" --job "$tmp/j.jsonl@3:2"
# numbers past 2^32 are refused, not wrapped (4294967297 was node 1)
for spec in "x@1:" "x@3-1" "x@1,1" "x@1,,2" "x@-2" "x@0:0" "x@+0:2" "x@0:2x" \
    "x@4294967297:2" "x@0:4294967298" "x@4294967296-4294967297" "x@1,4294967297"; do
    bad_usage_of run "a bad job spec: $spec" "--job: expected FILE@FIRST:NODES or FILE@LIST (nodes and ranges, each once: 0-3,8-11), got '$spec'" -- \
        -t "$fab" --job "$spec"
done
# a list of nodes: 0-3 is 0:4; jobs each under its own leaf share no link
# (1.00x), jobs spread over both leaves (0,1,4,5 and 2,3,6,7) cross the
# leaves' uplinks, both of them: slower together than alone
expect 0 "jobs as node lists" -- "$gdrlab" run -q -t "$fab" --job "$tmp/j.jsonl@0-3" --job "$tmp/j.jsonl@4,5,6,7"
has "$tmp/out" "  job0 .* 0-3  .* 1.00x"
has "$tmp/out" "  job1 .* 4,5,6,7  .* 1.00x"
expect 0 "as FIRST:NODES" -- "$gdrlab" run -q -t "$fab" --job "$tmp/j.jsonl@0:4" --job "$tmp/j.jsonl@4:4"
cp "$tmp/out" "$tmp/spans"
expect 0 "the same as lists" -- "$gdrlab" run -q -t "$fab" --job "$tmp/j.jsonl@0-3" --job "$tmp/j.jsonl@4-7"
diff <(sed -n 's/^ *job[01] .* \([0-9.]*\) *\([0-9.]*\) *\([0-9.]*x\)$/\1 \2 \3/p' "$tmp/spans") \
     <(sed -n 's/^ *job[01] .* \([0-9.]*\) *\([0-9.]*\) *\([0-9.]*x\)$/\1 \2 \3/p' "$tmp/out") >/dev/null ||
    { echo "FAIL: 0-3,4-7 do not run as 0:4, 4:4"; fail=1; }
expect 0 "interleaved jobs" -- "$gdrlab" run -q -t "$fab" --job "$tmp/j.jsonl@0,1,4,5" --job "$tmp/j.jsonl@2,3,6,7"
awk '/^  job[01] / { n++; if ($NF + 0 <= 1.0) bad = 1 } END { exit !(n == 2 && !bad) }' "$tmp/out" ||
    { echo "FAIL: interleaved jobs not slowed by each other:"; cat "$tmp/out"; fail=1; }
# a job beyond --nodes is named as such (it was "jobs:3: group: rank 16
# is outside the cluster of 16 ranks", no file "jobs" anywhere)
bad_usage_of run "a job past --nodes" "--job $tmp/j.jsonl@1:2: node 2 is beyond the 2 nodes of --nodes (0 to 1)" -- \
    -t "$fab" -n 2 --job "$tmp/j.jsonl@1:2"
bad_usage_of run "jobs and a trace" "--trace and --job exclude each other" -- \
    -t "$fab" --trace "$tmp/j.jsonl" --job "$tmp/j.jsonl@0:4"
bad_usage_of compare "compare takes no jobs" "--job: is for 'gdrlab run'" -- \
    -t "$fab" --job "$tmp/j.jsonl@0:4"
# a shipped trace by name, as --trace takes it: the same table as its file
expect 0 "a job's trace by path" -- "$gdrlab" run -q -t "$fab" \
    --job "$src/traces/resnet50-ddp.jsonl@0:4" --job "$src/traces/resnet50-ddp.jsonl@4:4"
jobs_table() { awk '/^  job/ { print $1, $(NF-3), $(NF-2), $(NF-1), $NF; next } { print }' "$tmp/out"; }
jobs_table >"$tmp/by_path"
expect 0 "a job's trace by name" -- "$gdrlab" run -q -t "$fab" \
    --job resnet50-ddp@0:4 --job resnet50-ddp.jsonl@4:4
jobs_table >"$tmp/by_name"
diff "$tmp/by_path" "$tmp/by_name" >"$tmp/diff" || { echo "FAIL: jobs by name:"; cat "$tmp/diff"; fail=1; }
# Each job keeps its own iterations. Two jobs of different compute
# under their own leaves share no link: each times exactly as alone, its
# iterations and calls where a run of it alone puts them. ResNet-50's
# second iteration started at BERT-Large's first's end (the cluster's
# iteration) until 2026-12-06, 150 ms late here. times JOB FILE: "iteration
# START END" per iteration, then "call START END" per call of job JOB
# (jobK; "" for every call) of a run's --json.
times() {
    awk -v job="$1" '/"iterations": \[/ { sec = "i" } /"collectives": \[/ { sec = "c" }
        /"start_us":/ { s = $2 } /"end_us":/ { e = $2 }
        sec == "i" && /"exposed_comm_us":/ { print "iteration", s, e }
        sec == "c" && /"comm":/ && (job == "" || index($2, "\"" job "/") == 1) { print "call", s, e }' "$2"
}
expect 0 "two jobs apart" -- "$gdrlab" run -q -t "$fab" --job resnet50-ddp@0:4 \
    --job bert-large-ddp@4:4 --json "$tmp/both.json"
expect 0 "resnet alone" -- "$gdrlab" run -q -t "$fab" --job resnet50-ddp@0:4 --json "$tmp/r.json"
expect 0 "bert alone" -- "$gdrlab" run -q -t "$fab" --job bert-large-ddp@4:4 --json "$tmp/b.json"
expect 0 "resnet as a trace" -- "$gdrlab" run -q -t "$fab" -n 4 -T resnet50-ddp --json "$tmp/t.json"
diff <(times "" "$tmp/r.json") <(times "" "$tmp/t.json") >"$tmp/diff" ||
    { echo "FAIL: a job alone is not its trace run alone:"; cat "$tmp/diff"; fail=1; }
diff <(times "" "$tmp/r.json" | grep ^iteration; times "" "$tmp/b.json" | grep ^iteration) \
     <(times "" "$tmp/both.json" | grep ^iteration) >"$tmp/diff" ||
    { echo "FAIL: jobs apart do not keep their iterations alone:"; cat "$tmp/diff"; fail=1; }
for k in 0 1; do
    f=$tmp/r.json
    [ $k = 0 ] || f=$tmp/b.json
    diff <(times "" "$f" | grep ^call) <(times job$k "$tmp/both.json" | grep ^call) >"$tmp/diff" ||
        { echo "FAIL: job$k's calls apart are not where it alone puts them:"; cat "$tmp/diff"; fail=1; }
done
# an iteration's calls in flight are its own job's: apart, each job's
# iterations' as alone (job1's were counted in job0's records by their
# iteration number, beyond job0's iteration, until 2026-12-06)
busy() { awk '/"iterations": \[/ { sec = 1 } /"collectives": \[/ { sec = 0 }
    sec && /"comm_busy_us":/ { gsub(/,/, "", $2); print $2 }' "$1"; }
diff <(busy "$tmp/r.json"; busy "$tmp/b.json") <(busy "$tmp/both.json") >"$tmp/diff" ||
    { echo "FAIL: jobs apart: calls in flight not each iteration's own:"; cat "$tmp/diff"; fail=1; }
# an iteration's communication, as documented: alone, a job's is the run's
comm=$(sed -n 's/^ *"comm_time_us": \(.*\),$/\1/p' "$tmp/r.json")
has "$tmp/r.json" "\"comm_alone_us\": $comm,"
has "$tmp/both.json" '"iteration_time_us": 105130.6'
# Jobs that share links (both spread over both leaves), on both backends:
# still each job's second iteration starts where its own first ended,
# the short compute (1 ms) never waiting for the long one's (5 ms).
printf '{"iteration":%d,"op":"allreduce","bytes":1048576,"dtype":"fp32","compute_us":1000}\n' 0 1 >"$tmp/short.jsonl"
printf '{"iteration":%d,"op":"allreduce","bytes":1048576,"dtype":"fp32","compute_us":5000}\n' 0 1 >"$tmp/long.jsonl"
for b in analytic model; do
    expect 0 "jobs sharing links, $b" -- "$gdrlab" run -q -b "$b" -t "$fab" \
        --job "$tmp/short.jsonl@0,1,4,5" --job "$tmp/long.jsonl@2,3,6,7" --json "$tmp/s.json"
    times "" "$tmp/s.json" | grep ^iteration >"$tmp/iters"
    awk 'NR % 2 == 0 && $2 != prev { bad = 1 } { prev = $3 }
         NR == 2 && !($2 + 0 < 5000) { bad = 1 }
         END { exit !(NR == 4 && !bad) }' "$tmp/iters" ||
        { echo "FAIL: $b: a job's iteration 1 not at its own iteration 0's end:"; cat "$tmp/iters"; fail=1; }
done
bad_usage_of run "a job's unknown trace name" "--job: 'no-such-trace': no such file, nor a shipped trace" -- \
    -t "$fab" --job no-such-trace@0:4
exit $fail
