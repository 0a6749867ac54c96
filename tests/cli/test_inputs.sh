#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Every command that reads a file the user names refuses a directory, and
# a file that is not there, alike: one line "FILE: cannot read: REASON",
# exit 2 (bad input), no output file. A directory once gave "read error"
# (exit 1), "no points", or a JSON syntax error; a missing results file
# "FILE:-1: unable to open". An output over an input is refused, and
# run's table tells apart the sizes of the trace it read.
#   usage: test_inputs.sh GDRLAB SOURCE_DIR
set -u
. "$(dirname "$0")/lib.sh"
mkdir "$tmp/adir"
t=$src/configs/a100-pcie4-200g.yaml tr=$src/traces/resnet50-ddp.jsonl
abci=$src/configs/validation/abci-v100-2xedr.yaml
for bad in "$tmp/adir:Is a directory" "$tmp/none:No such file or directory"; do
    f=${bad%%:*} why=${bad#*:}
    while IFS='|' read -r cmd args; do
        # shellcheck disable=SC2086 # the arguments are words
        expect 2 "$cmd ${args//@/${f##*/}}" -- "$gdrlab" $cmd ${args//@/$f}
        has "$tmp/err" "^gdrlab $cmd: $f: cannot read: $why$"
        one_line "$tmp/err"
    done <<EOC
run|-t $t -T @ --json $tmp/o.json
run|-t @ -T $tr --json $tmp/o.json
compare|-t $t -T @
busbw|-t @ --json $tmp/o.json
validate|--nccl-tests @ -t $abci --op allreduce --json $tmp/o.json
import|nccl-log @ -o $tmp/o.jsonl
gen|ddp --layout @ -o $tmp/o.jsonl
sweep|@
report|@ -o $tmp/o.html
plot|@ --kind collectives -o $tmp/o.svg
EOC
done
for o in o.json o.jsonl o.html o.svg; do
    [ ! -e "$tmp/$o" ] || { echo "FAIL: $o written"; fail=1; }
done

# An output that names an input (the trace, the topology), or another
# output, is refused before anything is written: the input stays as it
# was (compare --csv over its trace once left the CSV in its place).
cp "$tr" "$tmp/trace.jsonl"
cp "$t" "$tmp/topo.yaml"
expect 2 "compare --csv over its trace" -- \
    "$gdrlab" compare -t "$t" -T "$tmp/trace.jsonl" --csv "$tmp/./trace.jsonl"
has "$tmp/err" "^gdrlab compare: $tmp/./trace.jsonl: is an input of this command too ($tmp/trace.jsonl): write the output to another file$"
cmp -s "$tr" "$tmp/trace.jsonl" || { echo "FAIL: the trace was written over"; fail=1; }
expect 2 "busbw --json over its topology" -- \
    "$gdrlab" busbw -t "$tmp/topo.yaml" -n 2 -b 8 -e 8 --json "$tmp/topo.yaml"
has "$tmp/err" "is an input of this command too"
cmp -s "$t" "$tmp/topo.yaml" || { echo "FAIL: the topology was written over"; fail=1; }
expect 2 "run --json and --csv into one file" -- \
    "$gdrlab" run -t "$t" -T "$tr" --json "$tmp/same" --csv "$tmp/./same"
has "$tmp/err" "^gdrlab run: $tmp/./same: is another output of this command too ($tmp/same): give each its own file$"
[ ! -e "$tmp/same" ] || { echo "FAIL: same written"; fail=1; }

# run's table groups calls by size: two sizes that print alike in MiB
# (33587200 and 33589248 bytes, both 32.03 MiB) are told apart in bytes
printf '{"iteration":0,"op":"allreduce","bytes":33587200,"dtype":"fp32"}\n{"iteration":0,"op":"allreduce","bytes":33589248,"dtype":"fp32"}\n{"iteration":0,"op":"allreduce","bytes":4096,"dtype":"fp32"}\n' >"$tmp/near.jsonl"
expect 0 "sizes that print alike" -- "$gdrlab" run -t "$t" -T "$tmp/near.jsonl"
has "$tmp/out" "^allreduce  *33589248 B  *16  *1 "
has "$tmp/out" "^allreduce  *33587200 B  *16  *1 "
has "$tmp/out" "^allreduce  *4.00 KiB  *16  *1 "

# A row's busbw is its mean time's: on round-numbers (one 10 GB/s NIC a
# node) a 64 MiB all-reduce of 2 ranks moves S through it, alone at 10
# GB/s in iteration 0, two at once on two streams in iteration 1 at 5
# GB/s each: a mean time of 5/3 the first's, busbw 6 GB/s (it was the
# first call's 10, beside that mean time)
rn=$src/tests/data/round-numbers.yaml
{ printf '{"iteration":0,"op":"allreduce","bytes":67108864,"dtype":"fp32"}\n'
  printf '{"iteration":1,"op":"allreduce","bytes":67108864,"dtype":"fp32"}\n'
  printf '{"iteration":1,"op":"allreduce","bytes":67108864,"dtype":"fp32","stream":1}\n'; } >"$tmp/mean.jsonl"
expect 0 "a row's busbw" -- "$gdrlab" run -q -t "$rn" -T "$tmp/mean.jsonl" --algo ring --proto simple
awk '/^allreduce  *64.00 MiB  *2  *3 / { ok = $7 > 5.94 && $7 < 6.06 } END { exit !ok }' "$tmp/out" ||
    { echo "FAIL: the 3 calls' busbw is not 6 GB/s, their mean time's:"; cat "$tmp/out"; fail=1; }
# ... and calls of one size that took other paths are rows of their own:
# on two-gpus-one-nic, an all-reduce of ranks 0 and 1 stays in node 0,
# one of ranks 0 and 2 crosses the network, staged (PHB: its NIC is on
# the CPU); the first call's path was the row's, with the mean of both
# times
printf '{"iteration":0,"op":"allreduce","bytes":67108864,"dtype":"fp32","group":[0,1]}\n{"iteration":0,"op":"allreduce","bytes":67108864,"dtype":"fp32","group":[0,2]}\n' >"$tmp/paths.jsonl"
expect 0 "a row a path" -- "$gdrlab" run -q -t "$src/tests/data/two-gpus-one-nic.yaml" -T "$tmp/paths.jsonl"
has "$tmp/out" "^allreduce  *64.00 MiB  *2  *1 .* intra_node$"
has "$tmp/out" "^allreduce  *64.00 MiB  *2  *1 .* staged$"

# hops: 0 is two nodes back to back: --nodes 4 on it is refused (it ran a
# 4-node ring with no switch), --nodes 2 runs
sed 's/hops: 1,/hops: 0,/' "$rn" >"$tmp/b2b.yaml"
grep -q "hops: 0," "$tmp/b2b.yaml" || { echo "FAIL: no hops to edit in $rn"; fail=1; }
bad_usage_of run "4 nodes back to back" \
    "--nodes: 4 nodes do not fit $tmp/b2b.yaml's fabric: hops: 0 is two nodes cabled back to back, with no switch: 4 nodes need one" \
    -- -t "$tmp/b2b.yaml" -T "$tmp/mean.jsonl" -n 4
expect 0 "2 nodes back to back" -- "$gdrlab" run -q -t "$tmp/b2b.yaml" -T "$tmp/mean.jsonl" -n 2

# A job of 4 ranks (groups [0, 1] and [2, 3], and calls of no group)
# replayed on the 16 ranks of 2 x 8 GPUs: its world calls would run on 16,
# which is said once (run and compare); a trace of world calls alone, or
# of groups alone, says nothing
printf '{"iteration":0,"op":"allreduce","bytes":4096,"dtype":"fp32"}\n{"iteration":0,"op":"allreduce","bytes":4096,"dtype":"fp32","group":[0,1]}\n{"iteration":0,"op":"allreduce","bytes":4096,"dtype":"fp32","group":[2,3]}\n' >"$tmp/job4.jsonl"
for cmd in run compare; do
    expect 0 "$cmd of a 4-rank job on 16" -- "$gdrlab" $cmd -t "$t" -T "$tmp/job4.jsonl"
    has "$tmp/err" "^gdrlab $cmd: note: the trace's groups name ranks 0 to 3, and its 1 call of no group runs on all 16 ranks of this cluster: a job of 4 ranks replayed as a larger one (give --nodes for its own)$"
    one_line "$tmp/err"
done
expect 0 "world calls alone" -- "$gdrlab" run -t "$t" -T "$tr"
[ ! -s "$tmp/err" ] || { echo "FAIL: a note for world calls alone"; cat "$tmp/err"; fail=1; }
# groups alone on fewer ranks than the cluster's: the rest idle, said
# (said nothing until 2026-12-06)
sed '1d' "$tmp/job4.jsonl" >"$tmp/groups4.jsonl"
expect 0 "groups of 4 ranks on 16" -- "$gdrlab" run -t "$t" -T "$tmp/groups4.jsonl"
has "$tmp/err" "^gdrlab run: note: the trace's calls take 4 ranks (of 0 to 3): 12 of this cluster's 16 GPUs take no part (give --nodes for the job's own)$"
one_line "$tmp/err"
# ranks counted, not the highest named: 0, 1 and 14, 15 leave 12 idle too
printf '{"iteration":0,"op":"allreduce","bytes":4096,"dtype":"fp32","group":[0,1]}\n{"iteration":0,"op":"allreduce","bytes":4096,"dtype":"fp32","group":[14,15]}\n' >"$tmp/ends.jsonl"
expect 0 "groups at both ends" -- "$gdrlab" run -t "$t" -T "$tmp/ends.jsonl"
has "$tmp/err" "^gdrlab run: note: the trace's calls take 4 ranks (of 0 to 15): 12 of this cluster's 16 GPUs take no part"
# A file name that is not UTF-8 (any bytes are a Linux file name; JSON
# text is Unicode): the reports' *_file keys have it with U+FFFD for each
# such byte. It once left busbw's and validate's topology_file out (exit
# 0), every point out of sweep --json ("[]", exit 0), and failed run and
# compare --json with "Cannot allocate memory".
odd=$tmp/$'caf\xe9'
mkdir "$odd"
cp "$t" "$odd/t.yaml"
cp "$tr" "$odd/tr.jsonl"
cp "$abci" "$odd/abci.yaml"
fffd=$tmp/$'caf\xef\xbf\xbd'
printf '{"name": "p", "topology": "t.yaml", "trace": "tr.jsonl"}\n{"name": "gone", "topology": "nope.yaml", "trace": "tr.jsonl"}\n' >"$odd/s.jsonl"
for args in "run -t $odd/t.yaml -T $odd/tr.jsonl --json -" "compare -t $odd/t.yaml -T $odd/tr.jsonl --json -" \
    "busbw -t $odd/t.yaml -e 1K --json -" "sweep $odd/s.jsonl --json -q" \
    "validate --nccl-tests $src/tests/data/nccl-tests/all_reduce_2nodes.txt --op allreduce -t $odd/abci.yaml --json -"; do
    want=0
    [ "${args%% *}" = sweep ] && want=1 # the point "gone" fails
    # shellcheck disable=SC2086 # the arguments are words
    expect $want "${args%% *} --json, a name not UTF-8" -- "$gdrlab" $args
    json_ok "$tmp/out"
    has "$tmp/out" "\"topology_file\": *\"$fffd/"
done
has "$tmp/out" "\"nccl_tests_file\": *\"$src/"
expect 1 "sweep --json, a name not UTF-8" -- "$gdrlab" sweep "$odd/s.jsonl" --json -q
has "$tmp/out" "\"trace_file\": *\"$fffd/tr.jsonl\""
has "$tmp/out" "\"error\": *\"$fffd/nope.yaml: cannot read"
exit $fail
