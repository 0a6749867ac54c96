#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# gdrlab run and compare --set PATH=VALUE: a value of the topology file
# replaced, as a sweep plan's topology axis does. A 64 MiB ring
# all-reduce on 2 round-numbers nodes moves S through each NIC: at 40
# Gbit/s (5 GB/s) it takes twice its 80 Gbit/s (10 GB/s) time, less the
# few microseconds of latency both pay. Bad paths and values are one
# line, exit 2.
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

bad_usage_of run "a path the file lacks" "$topo: nics.rat: the topology has no 'nics.rat' to set" \
    -- -t "$topo" -T "$tmp/ar.jsonl" --set nics.rat=1
bad_usage_of run "not PATH=VALUE" "--set: expected PATH=VALUE" -- -t "$topo" -T "$tmp/ar.jsonl" --set nics.rate
# a bad value is the --set's, not the file's line (whose value is good)
bad_usage_of run "a bad value" "nics.rate=fast, set on $topo: rate: expected a bandwidth" -- \
    -t "$topo" -T "$tmp/ar.jsonl" --set nics.rate=fast
exit $fail
