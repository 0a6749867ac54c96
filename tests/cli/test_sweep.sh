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
has "$tmp/err" "bad.jsonl:1: unknown key 'colour'"
printf '{"topology": "a.yaml", "trace": "b.jsonl", "nccl": "2.9"}\n' >"$tmp/badnccl.jsonl"
expect 2 "unknown NCCL" -- "$gdrlab" sweep "$tmp/badnccl.jsonl"
has "$tmp/err" "badnccl.jsonl:1: nccl: no tables for NCCL '2.9' in this build (2.30.7, 2.8.4)"
printf '{"topology": "a.yaml"}\n' >"$tmp/bad2.jsonl"
expect 2 "missing trace" -- "$gdrlab" sweep "$tmp/bad2.jsonl"
printf '{"name": "gone", "topology": "nope.yaml", "trace": "nope.jsonl"}\n' >"$tmp/gone.jsonl"
expect 1 "a point fails" -- "$gdrlab" sweep "$tmp/gone.jsonl"
has "$tmp/out" "gone .*error: .*nope.yaml"
printf '{"name": "nb", "topology": "a.yaml", "trace": "b.jsonl", "backend": "nosuch"}\n' >"$tmp/nb.jsonl"
expect 1 "unknown backend in a point" -- "$gdrlab" sweep "$tmp/nb.jsonl"
has "$tmp/out" "nb .*error: unknown backend 'nosuch' (see 'gdrlab backends')"

# Three points, relative to the sweep file; run in parallel, printed in order.
mkdir -p "$tmp/s"
cat >"$tmp/s/points.jsonl" <<EOP
# comment
{"name": "p1", "topology": "$src/configs/a100-pcie4-200g.yaml", "trace": "$src/traces/resnet50-ddp.jsonl", "path": "staged"}
{"name": "p2", "topology": "$src/configs/a100-pcie4-200g.yaml", "trace": "$src/traces/resnet50-ddp.jsonl", "path": "direct", "nodes": 4}

{"name": "p3", "topology": "$src/configs/two-socket-commodity.yaml", "trace": "$src/traces/bert-large-ddp.jsonl", "gdr_level": "sys", "path": "direct"}
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
check 3 -t "$src/configs/two-socket-commodity.yaml" -T "$src/traces/bert-large-ddp.jsonl" -g sys -p direct
# "nccl" alone brings its release's GDR level (PXB), as --nccl does
check 4 -t "$src/configs/a100-pcie4-200g.yaml" -T "$src/traces/resnet50-ddp.jsonl" --nccl 2.8.4
[ "$(sed -n 5p "$tmp/sweep.csv" | cut -d, -f9)" = PXB ] ||
    { echo "FAIL: p4's GDR level: $(sed -n 5p "$tmp/sweep.csv")"; fail=1; }
expect 0 "json" -- "$gdrlab" sweep --json "$tmp/s/points.jsonl"
has "$tmp/out" '"path_used": "direct"'
expect 0 "table" -- "$gdrlab" sweep "$tmp/s/points.jsonl"
has "$tmp/out" "^p3 .*two-socket-commodity"
exit $fail
