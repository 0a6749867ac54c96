#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# gdrlab gen llm from the command line: bad options are one line and exit
# 2 with no file left; a good one writes a trace that run replays with its
# communicators at once.
#   usage: test_gen_llm.sh GDRLAB SOURCE_DIR
set -u
. "$(dirname "$0")/lib.sh"

bad() { # bad MESSAGE -- args...
    local msg=$1
    shift 2
    bad_usage_of gen "gen llm $*" "$msg" -- llm "$@" -o "$tmp/bad.jsonl"
    [ ! -e "$tmp/bad.jsonl" ] || { echo "FAIL: gen llm $*: left an output file"; fail=1; }
}
bad "--model: which model?" -- --tp 2
bad "--model: expected a model of" -- --model llama3-7b
bad "--tp: 3 does not divide the model's attention heads" -- --model llama3-8b --tp 3
bad "--ep: 2 does not divide the model's experts" -- --model llama3-8b --dp 4 --ep 2
bad "--ep: 3 does not divide --dp" -- --model mixtral-8x7b --dp 4 --ep 3
bad "--zero: 4: 0, 1, 2 or 3" -- --model llama3-8b --dp 2 --zero 4
bad "--sequence-parallel: needs --tp 2 or more" -- --model llama3-8b --dp 2 --sequence-parallel
bad "--efficiency: must be in (0, 1]" -- --model llama3-8b --dp 2 --efficiency 1.5
bad "--micro-batches: expected a whole number" -- --model llama3-8b --dp 2 --micro-batches x
bad "gen llm: no collectives" -- --model llama3-8b
bad "unknown option '--pipeline'" -- --model llama3-8b --pipeline 2

expect 0 "gen llm --help" -- "$gdrlab" gen llm --help
has "$tmp/out" "llama3-405b"
has "$tmp/out" "mixtral-8x7b"

expect 0 "gen llm writes a trace" -- "$gdrlab" gen llm --model llama3-8b --tp 4 --pp 2 --dp 2 \
    --zero 1 --sequence-parallel --micro-batches 4 --seq 1024 -o "$tmp/llm.jsonl"
has "$tmp/llm.jsonl" '"comm": "tp-s1-d0"'
has "$tmp/llm.jsonl" '"comm": "pp-d1-t3-s0"'
has "$tmp/llm.jsonl" '# bytes an iteration:'
expect 0 "run replays it" -- "$gdrlab" run -t "$src/configs/h100-pcie5-400g.yaml" -T "$tmp/llm.jsonl" --quiet
has "$tmp/out" "communicators"
exit $fail
