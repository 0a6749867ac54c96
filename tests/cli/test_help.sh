#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# What each command's --help says is what the command does: a default or
# a rule quoted in a help text, checked against the command's behaviour.
# usage: test_help.sh GDRLAB SOURCE_DIR
set -u
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
topo=$src/configs/a100-pcie4-200g.yaml
echo '{"iteration":0,"op":"allreduce","bytes":1048576,"dtype":"fp32"}' >"$tmp/t.jsonl"

# run and compare --help: GDR level PXB by default before --nccl 2.27, P2C
# from it, whatever table the release takes (2.26 and 2.28 both 2.30.7's)
for cmd in run compare; do
    expect 0 "$cmd --help" -- "$gdrlab" "$cmd" --help
    has "$tmp/out" "pxb with an --nccl before 2.27)"
done
for v in 2.26:PXB 2.27:P2C 2.28.3:P2C; do
    expect 0 "run --nccl ${v%:*}" -- "$gdrlab" run -t "$topo" -T "$tmp/t.jsonl" \
        --nccl "${v%:*}" -q
    has "$tmp/out" "GDR level ${v#*:}\$"
done

# gen ddp --help: a SIZE's K, M, G are powers of 1024 whatever the letters
# after them (1kB is 1024 bytes, as 1KiB), not kB = 1000 beside KiB
expect 0 "gen ddp --help" -- "$gdrlab" gen ddp --help
has "$tmp/out" "powers of 1024"
if grep -q "B, kB, MB, GB, KiB" "$tmp/out"; then
    echo "FAIL: gen ddp --help lists kB beside KiB as another unit"; fail=1
fi
for s in 1kB 1KB 1KiB 1024B 1024; do
    expect 0 "gen ddp --first-bucket $s" -- "$gdrlab" gen ddp --model resnet50 \
        --first-bucket "$s"
    has "$tmp/out" "--first-bucket 1KiB "
done

# sweep --help: --json is an array of rows, but an object of the plan, its
# rows and its answers for a plan that asks questions
expect 0 "sweep --help" -- "$gdrlab" sweep --help
has "$tmp/out" '{"plan", "points", "questions"}'
has "$tmp/out" "usage: gdrlab sweep FILE .*--no-wall.* \\[-q\\]"
printf 'base:\n  topology: %s\n  trace: %s\naxes:\n  nodes: [2, 4]\n' \
    "$topo" "$tmp/t.jsonl" >"$tmp/plan.yaml"
expect 0 "a plan without questions, --json" -- "$gdrlab" sweep "$tmp/plan.yaml" --json -q
[ "$(head -c 1 "$tmp/out")" = "[" ] || { echo "FAIL: not an array:"; head -3 "$tmp/out"; fail=1; }
printf 'questions:\n  scaling: { threshold: 0.8 }\n' >>"$tmp/plan.yaml"
expect 0 "a plan with questions, --json" -- "$gdrlab" sweep "$tmp/plan.yaml" --json -q
[ "$(head -c 1 "$tmp/out")" = "{" ] || { echo "FAIL: not an object:"; head -3 "$tmp/out"; fail=1; }
has "$tmp/out" '"questions":'

exit $fail
