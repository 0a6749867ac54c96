#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# gdrlab run, compare, busbw and validate --nccl-tests --set PATH=VALUE:
# a value of the topology file replaced, as a sweep plan's topology axis
# does. A 64 MiB ring all-reduce on 2 round-numbers nodes moves S through
# each NIC: at 40 Gbit/s (5 GB/s) it takes twice its 80 Gbit/s (10 GB/s)
# time, less the few microseconds of latency both pay; busbw and validate
# with --set print what they print on a copy of the file edited so. Bad
# paths and values are one line, exit 2.
#   usage: test_run_set.sh GDRLAB SOURCE_DIR
set -u
. "$(dirname "$0")/lib.sh"
topo=$src/tests/data/round-numbers.yaml
printf '{"iteration": 0, "op": "allreduce", "bytes": 67108864, "dtype": "fp32"}\n' >"$tmp/ar.jsonl"

comm_of() { # comm_of JSON: the run's communication time
    sed -n 's/^ *"comm_time_us": \([0-9.]*\),*$/\1/p' "$1" | head -1
}
expect 0 "as the file has it" -- "$gdrlab" run -q -t "$topo" -T "$tmp/ar.jsonl" --algo ring --proto simple \
    --json "$tmp/80.json"
expect 0 "the NICs at 40 Gbit/s" -- "$gdrlab" run -q -t "$topo" -T "$tmp/ar.jsonl" --algo ring --proto simple \
    --set "nics.rate=40 Gbit/s" --json "$tmp/40.json"
awk -v a="$(comm_of "$tmp/80.json")" -v b="$(comm_of "$tmp/40.json")" 'BEGIN {
    S = 67108864; exit !(b - a > S / 10e3 * 0.999 && b - a < S / 10e3 * 1.001) }' ||
    { echo "FAIL: 40 Gbit/s takes $(comm_of "$tmp/40.json") us, 80 Gbit/s $(comm_of "$tmp/80.json"): not S / 10 GB/s more"; fail=1; }
has "$tmp/40.json" '"topology_set": {'
has "$tmp/40.json" '"nics.rate": "40 Gbit/s"'
expect 0 "compare takes it too" -- "$gdrlab" compare -q -t "$topo" -T "$tmp/ar.jsonl" --set "nics.rate=40 Gbit/s"
# the table says what it ran with, first
has "$tmp/out" "^--set nics.rate=40 Gbit/s$"
expect 0 "run's table too" -- "$gdrlab" run -q -t "$topo" -T "$tmp/ar.jsonl" --set "nics.rate=40 Gbit/s"
has "$tmp/out" "^--set nics.rate=40 Gbit/s$"
# a path set twice runs with the last value, and names only that one
expect 0 "the same path twice" -- "$gdrlab" run -q -t "$topo" -T "$tmp/ar.jsonl" --algo ring --proto simple \
    --set "nics.rate=80 Gbit/s" --set "fabric.switch_latency=1 us" --set "nics.rate=40 Gbit/s" \
    --json "$tmp/twice.json"
[ "$(comm_of "$tmp/twice.json")" = "$(comm_of "$tmp/40.json")" ] ||
    { echo "FAIL: set twice, 40 last: $(comm_of "$tmp/twice.json") us, not 40 Gbit/s's $(comm_of "$tmp/40.json")"; fail=1; }
has "$tmp/twice.json" '"nics.rate": "40 Gbit/s"'
expect 0 "its table" -- "$gdrlab" run -q -t "$topo" -T "$tmp/ar.jsonl" \
    --set "nics.rate=80 Gbit/s" --set "nics.rate=40 Gbit/s"
has "$tmp/out" "^--set nics.rate=40 Gbit/s$"

# busbw and validate: --set is the file edited, to the digit
sed 's/rate: 80 Gbit\/s/rate: 40 Gbit\/s/' "$topo" >"$tmp/40.yaml"
grep -q "rate: 40 Gbit/s" "$tmp/40.yaml" || { echo "FAIL: no rate to edit in $topo"; fail=1; }
rows() { grep -v '^#' "$1"; }
expect 0 "busbw, the file edited" -- "$gdrlab" busbw -q -t "$tmp/40.yaml" -b 8 -e 64M -f 8
rows "$tmp/out" >"$tmp/edited.txt"
expect 0 "busbw --set" -- "$gdrlab" busbw -q -t "$topo" -b 8 -e 64M -f 8 --set "nics.rate=40 Gbit/s"
has "$tmp/out" "^# --set nics.rate=40 Gbit/s$"
rows "$tmp/out" | diff - "$tmp/edited.txt" >/dev/null || { echo "FAIL: busbw --set differs from the file edited"; fail=1; }
expect 0 "busbw --set --json" -- "$gdrlab" busbw -q -t "$topo" -b 8 -e 8 --set "nics.rate=40 Gbit/s" --json -
has "$tmp/out" '"nics.rate": "40 Gbit/s"'
# validate: ABCI's curve against its node with 200 Gbit/s HCAs
abci=$src/configs/validation/abci-v100-2xedr.yaml
measured=$src/tests/data/nccl-tests/all_reduce_2nodes.txt  # ABCI's, 2 x 4 V100
sed 's/rate: 100 Gbit\/s/rate: 200 Gbit\/s/' "$abci" >"$tmp/abci-200.yaml"
expect 0 "validate, the file edited" -- "$gdrlab" validate -q --nccl-tests "$measured" -t "$tmp/abci-200.yaml" \
    --op allreduce
grep -v "^topology " "$tmp/out" >"$tmp/edited.txt"
expect 0 "validate --set" -- "$gdrlab" validate -q --nccl-tests "$measured" -t "$abci" --op allreduce \
    --set "nics.rate=200 Gbit/s"
has "$tmp/out" "^--set nics.rate=200 Gbit/s$"
grep -v "^topology \|^--set " "$tmp/out" | diff - "$tmp/edited.txt" >/dev/null ||
    { echo "FAIL: validate --set differs from the file edited"; fail=1; }
bad_usage_of busbw "busbw: a path the file lacks" "$topo: nics.rat: the topology has no 'nics.rat' to set" \
    -- -t "$topo" --set nics.rat=1
bad_usage_of validate "validate: not PATH=VALUE" "--set: expected PATH=VALUE" \
    -- --nccl-tests "$measured" -t "$abci" --set nics.rate

bad_usage_of run "a path the file lacks" "$topo: nics.rat: the topology has no 'nics.rat' to set" \
    -- -t "$topo" -T "$tmp/ar.jsonl" --set nics.rat=1
bad_usage_of run "not PATH=VALUE" "--set: expected PATH=VALUE" -- -t "$topo" -T "$tmp/ar.jsonl" --set nics.rate
# the node count is -n's: beside it a --set nodes was echoed and lost
bad_usage_of run "--set nodes" "--set nodes: give the node count with --nodes (-n)" -- -t "$topo" \
    -T "$tmp/ar.jsonl" --set nodes=1 -n 4
# staging.* is the staged-memcpy path's (and staging.chunk only emu's and
# real's own ring): on NCCL's own staging a --set of it is said to change
# nothing, the times those without it; on staged-memcpy a slower copy is
# slower and nothing is said
for p in staged direct; do
    expect 0 "run -p $p" -- "$gdrlab" run -t "$topo" -T "$tmp/ar.jsonl" -p "$p"
    grep -v "^--set" "$tmp/out" >"$tmp/plain.txt"
    expect 0 "run -p $p, staging set" -- "$gdrlab" run -t "$topo" -T "$tmp/ar.jsonl" -p "$p" \
        --set staging.copy_bandwidth=1GB/s --set staging.chunk=64KiB
    has "$tmp/err" "gdrlab run: note: --set staging.copy_bandwidth changes nothing here: only the staged-memcpy path"
    has "$tmp/err" "gdrlab run: note: --set staging.chunk changes nothing here: only emu's and real's own ring copies by it"
    grep -v "^--set" "$tmp/out" | diff - "$tmp/plain.txt" >/dev/null ||
        { echo "FAIL: -p $p: a staging --set moved the run"; fail=1; }
done
# --chunk and --buffers are the same values by option: said to change
# nothing where they do not, as busbw says it (run and compare took them
# in silence), the times those without them (plain.txt: -p direct's)
expect 0 "run -p direct, --chunk and --buffers" -- "$gdrlab" run -t "$topo" -T "$tmp/ar.jsonl" -p direct \
    --chunk 64K --buffers 2
has "$tmp/err" "gdrlab run: note: --chunk changes nothing here: only emu's and real's own ring copies by it"
has "$tmp/err" "gdrlab run: note: --buffers changes nothing here: only the staged-memcpy path"
diff "$tmp/out" "$tmp/plain.txt" >/dev/null || { echo "FAIL: --chunk, --buffers moved a direct run"; fail=1; }
expect 0 "compare, --chunk and --buffers" -- "$gdrlab" compare -t "$topo" -T "$tmp/ar.jsonl" --chunk 64K --buffers 2
has "$tmp/err" "gdrlab compare: note: --chunk changes nothing here: only emu's and real's own ring copies by it"
grep -q "note: --buffers" "$tmp/err" && { echo "FAIL: compare's staged-memcpy said not to read --buffers"; fail=1; }
expect 0 "run -p staged-memcpy" -- "$gdrlab" run -t "$topo" -T "$tmp/ar.jsonl" -p staged-memcpy --json "$tmp/m1.json"
expect 0 "run -p staged-memcpy, a slow copy" -- "$gdrlab" run -t "$topo" -T "$tmp/ar.jsonl" -p staged-memcpy \
    --set staging.copy_bandwidth=1GB/s --json "$tmp/m2.json"
grep -q "note: --set staging.copy_bandwidth" "$tmp/err" && { echo "FAIL: staged-memcpy said not to read its copy"; fail=1; }
[ "$(grep '"time_us"' "$tmp/m1.json")" != "$(grep '"time_us"' "$tmp/m2.json")" ] ||
    { echo "FAIL: a slower copy left staged-memcpy as it was"; fail=1; }
# a bad value is the --set's, not the file's line (whose value is good)
bad_usage_of run "a bad value" "nics.rate=fast, set on $topo: rate: expected a bandwidth" -- \
    -t "$topo" -T "$tmp/ar.jsonl" --set nics.rate=fast
exit $fail
