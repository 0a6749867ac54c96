#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The model backend's simulations at once (GDRLAB_MODEL_PARALLEL): each
# distinct call is simulated alone, from the clock's zero, so one, two
# or three at once give every collective the same time to the digit; a
# value that is not 1 to 1024 is one line naming it, exit 2, no output.
#   usage: test_model_parallel.sh GDRLAB SOURCE_DIR
set -u
. "$(dirname "$0")/lib.sh"
topo=$src/tests/data/round-numbers.yaml
for b in 1048576 4194304 16777216 1048576 67108864; do
    printf '{"iteration": 0, "op": "allreduce", "bytes": %s, "dtype": "fp32"}\n' "$b"
done >"$tmp/calls.jsonl"
printf '{"iteration": 0, "op": "broadcast", "bytes": 8388608, "dtype": "fp32", "root": 0}\n' \
    >>"$tmp/calls.jsonl"

if ! "$gdrlab" backends | grep -q '^model *available'; then
    echo "skip: the model backend is not built here"; exit 77
fi
times_of() { # times_of JSON: each collective's time, one a line
    sed -n 's/^ *"time_us": \([0-9.e+-]*\),*$/\1/p' "$1"
}
for n in 1 2 3; do
    expect 0 "$n at once" -- env GDRLAB_MODEL_PARALLEL=$n "$gdrlab" run -q -b model -t "$topo" \
        -n 4 -T "$tmp/calls.jsonl" --json "$tmp/$n.json"
    times_of "$tmp/$n.json" >"$tmp/$n.times"
done
[ "$(wc -l <"$tmp/1.times")" -ge 6 ] || { echo "FAIL: no times in $tmp/1.json"; fail=1; }
for n in 2 3; do
    cmp -s "$tmp/1.times" "$tmp/$n.times" ||
        { echo "FAIL: $n at once differs from one:"; diff "$tmp/1.times" "$tmp/$n.times"; fail=1; }
done
for v in 0 abc 3x 5000; do
    expect 2 "GDRLAB_MODEL_PARALLEL=$v" -- env GDRLAB_MODEL_PARALLEL=$v "$gdrlab" run -q -b model \
        -t "$topo" -T "$tmp/calls.jsonl" --json "$tmp/bad.json"
    has "$tmp/err" "gdrlab run: GDRLAB_MODEL_PARALLEL: '$v' is not a number"
    one_line "$tmp/err"
    [ ! -e "$tmp/bad.json" ] || { echo "FAIL: $tmp/bad.json written for '$v'"; fail=1; }
done
# A call of more slices a connection than the simulation steps through
# (2^22) is refused up front, naming its line; at 2^53 bytes and beyond
# the slice count once wrapped its 32 bits, and 4 EiB took 8.4 us
printf '{"iteration": 0, "op": "allreduce", "bytes": 4096}\n{"iteration": 0, "op": "allreduce", "bytes": 4611686018427387904}\n' \
    >"$tmp/huge.jsonl"
bad_usage_of run "slices beyond the simulation's" "$tmp/huge.jsonl:2: bytes: model backend: this allreduce of 4611686018427387904 bytes is 2.2e+12 slices a connection, beyond the 4194304 it simulates one by one (the analytic backend takes any size)" -- \
    -q -b model -t "$topo" -n 2 -T "$tmp/huge.jsonl" --json "$tmp/huge.json"
[ ! -e "$tmp/huge.json" ] || { echo "FAIL: $tmp/huge.json written"; fail=1; }
exit $fail
