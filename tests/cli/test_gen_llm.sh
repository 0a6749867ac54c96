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
bad "--model: unknown model 'llama3-7b' (the zoo: " -- --model llama3-7b
# ...and it names every model --help lists, so a typo needs no --help
"$gdrlab" gen llm --help | awk '/^Models:/ { m = 1; next } m && NF { print $1 }' >"$tmp/zoo"
[ "$(wc -l <"$tmp/zoo")" -ge 8 ] || { echo "FAIL: gen llm --help lists no models"; fail=1; }
"$gdrlab" gen llm --model llama3-7b 2>"$tmp/err" >/dev/null
while read -r m; do
    grep -q "[( ]$m[,)]" "$tmp/err" || { echo "FAIL: unknown --model's message lacks $m: $(cat "$tmp/err")"; fail=1; }
done <"$tmp/zoo"
bad "--tp: 3 does not divide llama3-8b's attention heads (32, 8 of keys and values)" -- --model llama3-8b --tp 3
bad "--tp: 3 does not divide deepseek-v2-lite's 16 attention heads" -- --model deepseek-v2-lite --tp 3
# a count of which there is at least one refused as it is read (a sweep
# plan's gen.tp: 0 so at its line, not as its point's error)
bad "--tp: expected 1 or more, got '0'" -- --model llama3-8b --tp 0
bad "--ep: llama3-8b has no experts (not a mixture of experts)" -- --model llama3-8b --dp 4 --ep 2
bad "--ep: 3 does not divide mixtral-8x7b's 8 experts a layer" -- --model mixtral-8x7b --dp 6 --ep 3
bad "--ep: expected 1 or more, got '0'" -- --model mixtral-8x7b --dp 4 --ep 0
bad "--tp: mixtral-8x7b is a mixture of experts: with --tp 2 it needs --sequence-parallel, as Megatron-Core asks" -- --model mixtral-8x7b --tp 2 --dp 4 --ep 2
bad "--tp: deepseek-v3 is a mixture of experts: with --tp 8 it needs --sequence-parallel, as Megatron-Core asks" -- --model deepseek-v3 --tp 8
bad "--ep: 3 does not divide --dp" -- --model mixtral-8x7b --dp 4 --ep 3
# some 30 000 gradient buckets (a parameter each: DeepSeek-V3's experts) of
# 65536 ranks each: 7 GiB of rank lists, refused as they are made (Llama-3-405B's
# 25 MiB buckets ran out of memory until 2026-12-06; Megatron-Core's bucket
# at dp 65536 is 65G parameters, the whole stage)
bad "the trace would hold more than 4194304 collectives or list more than 268435456 ranks over them" -- --model deepseek-v3 --dp 65536 --bucket-cap 1K
bad "--overlap-grad-reduce: expected on or off, got 'yes'" -- --model llama3-8b --dp 2 --overlap-grad-reduce yes
bad "--bucket-cap: expected a size above 0" -- --model llama3-8b --dp 2 --bucket-cap 0
bad "--zero: 4: expected 0, 1, 2 or 3" -- --model llama3-8b --dp 2 --zero 4
bad "--sequence-parallel: needs --tp 2 or more" -- --model llama3-8b --dp 2 --sequence-parallel
bad "--efficiency: must be in (0, 1]" -- --model llama3-8b --dp 2 --efficiency 1.5
bad "--micro-batches: expected a whole number" -- --model llama3-8b --dp 2 --micro-batches x
bad "gen llm: no collectives" -- --model llama3-8b
# context parallelism: 2 cp chunks a sequence, the ranks within 65536
bad "--cp: 3 does not split --seq 8192 into 2 x 3 equal chunks (Megatron-LM asks a multiple of 2 x cp)" -- \
    --model llama3-8b --cp 3
bad "--cp: expected 1 or more, got '0'" -- --model llama3-8b --dp 2 --cp 0
bad "--cp: tp x cp x pp x dp = 131072 ranks is more than 65536" -- --model llama3-8b --tp 8 --cp 16 --dp 1024
bad "--seq: 8200 tokens over --cp 2 leave 4100 a rank, not a multiple of --tp 8 (--sequence-parallel)" -- \
    --model llama3-8b --tp 8 --cp 2 --sequence-parallel --seq 8200
bad "--ep: 4 does not divide --dp x --cp (6)" -- --model mixtral-8x7b --dp 3 --cp 2 --ep 4
bad "--cp-comm-type: expected p2p, all_gather or a2a, got 'ring'" -- --model llama3-8b --cp 2 --cp-comm-type ring
bad "--cp-comm-type: a2a splits a rank's heads over cp: --cp 2 does not divide llama3-8b's 32 query and 8 key-value heads over --tp 8" -- \
    --model llama3-8b --tp 8 --cp 2 --cp-comm-type a2a
bad "unknown option '--pipeline'" -- --model llama3-8b --pipeline 2
# a ring of 65536 ranks: cp sends a step, cp steps a layer, the trace's
# limit reached within the first; refused at once (it went on emitting
# nothing for some 13 minutes, cp^2 calls a layer, until 2026-12-07)
expect 2 "gen llm --cp 65536 refused at once" -- timeout 20 "$gdrlab" gen llm --model llama3-8b \
    --cp 65536 --seq 131072 -o "$tmp/bad.jsonl"
has "$tmp/err" "fewer ranks a group (--dp, --tp, --cp)"
one_line "$tmp/err"
# a GPU so slow that an iteration's compute is past a trace's 10^12 us
# (1e-300 made it infinite: "cannot write the trace: Invalid argument",
# exit 1, after the header was out); --seq as far as its range says
bad "--gpu-tflops: an iteration's compute at 1e-300 TFLOP/s x 0.4 comes to inf us, beyond the 1e+12 a trace holds" -- \
    --model llama3-8b --tp 2 --gpu-tflops 1e-300
bad "--gpu-tflops: an iteration's compute at 1e-09 TFLOP/s" -- --model llama3-8b --tp 2 --gpu-tflops 1e-9
expect 2 "gen llm to stdout, refused" -- "$gdrlab" gen llm --model llama3-8b --tp 2 --gpu-tflops 1e-300 -o -
[ ! -s "$tmp/out" ] || { echo "FAIL: a refused gen llm wrote to stdout:"; head -3 "$tmp/out"; fail=1; }
bad "--seq: expected a whole number up to 16777216, got '16777217'" -- --model llama3-8b --tp 2 --seq 16777217
# gen ddp's compute times, each and together, within a trace's
bad_usage_of gen "gen ddp --forward-us 1e308" "--forward-us: expected microseconds from 0 to 1e+12 (a trace's times), got '1e308'" -- \
    ddp --model resnet50 --forward-us 1e308 -o "$tmp/bad.jsonl"
bad_usage_of gen "gen ddp, the sum" "--forward-us + --backward-us: 1.8e+12 us, beyond the 1e+12 a trace's compute may be" -- \
    ddp --model resnet50 --forward-us 9e11 --backward-us 9e11 -o "$tmp/bad.jsonl"
[ ! -e "$tmp/bad.jsonl" ] || { echo "FAIL: gen ddp left an output file"; fail=1; }

expect 0 "gen llm --help" -- "$gdrlab" gen llm --help
has "$tmp/out" "llama3-405b"
has "$tmp/out" "mixtral-8x7b"
# with --vpp only chunk 0 of the first stage buckets, and a chunk's
# buckets go at once (align_grad_reduce), as the help says (until
# 2026-12-07 it said buckets "as backward fills them" on the first stage)
has "$tmp/out" "--vpp only chunk 0 of the first stage buckets,"
has "$tmp/out" "each chunk's buckets reduced at once when the"
expect 0 "gen llm --vpp buckets" -- "$gdrlab" gen llm --model llama3-8b --pp 2 --vpp 2 --dp 2 \
    --micro-batches 2 --seq 1024 -o "$tmp/vppb.jsonl"
# stage 0's all-reduces on one tensor rank: chunk 0's buckets (more than
# one) at one time, chunk 1's one bucket at another: two times
n=$(grep -c '"op": "allreduce", .*"comm": "dp-s0-t0"' "$tmp/vppb.jsonl")
times=$(grep '"op": "allreduce", .*"comm": "dp-s0-t0"' "$tmp/vppb.jsonl" |
    sed 's/.*"ready_us": \([0-9.e+-]*\),.*/\1/' | sort -u | wc -l)
[ "$n" -gt 2 ] && [ "$times" -eq 2 ] ||
    { echo "FAIL: --vpp's stage 0: $n all-reduces at $times times, want more than 2 at 2"; fail=1; }

expect 0 "gen llm writes a trace" -- "$gdrlab" gen llm --model llama3-8b --tp 4 --pp 2 --dp 2 \
    --zero 1 --sequence-parallel --micro-batches 4 --seq 1024 -o "$tmp/llm.jsonl"
has "$tmp/llm.jsonl" '"comm": "tp-s1-d0"'
has "$tmp/llm.jsonl" '"comm": "pp-d1-t3", "batch": '
has "$tmp/llm.jsonl" '# bytes an iteration:'
has "$tmp/llm.jsonl" '^# made by: .* --overlap-grad-reduce on --iterations 1$'
# overlap off: one bucket a stage, its gradients reduce-scattered and its
# parameters gathered: 2 stages x 4 tp ranks x 2 calls; the header says it,
# and --bucket-cap where given
expect 0 "gen llm --overlap-grad-reduce off" -- "$gdrlab" gen llm --model llama3-8b --tp 4 --pp 2 --dp 2 \
    --zero 1 --sequence-parallel --micro-batches 4 --seq 1024 --overlap-grad-reduce off -o "$tmp/off.jsonl"
got=$(grep -c '"comm": "dp-' "$tmp/off.jsonl")
[ "$got" = 16 ] || { echo "FAIL: --overlap-grad-reduce off: $got data-parallel calls, want 16"; fail=1; }
has "$tmp/off.jsonl" '^# made by: .* --overlap-grad-reduce off --iterations 1$'
expect 0 "gen llm --bucket-cap" -- "$gdrlab" gen llm --model llama3-8b --dp 2 --bucket-cap 100M -o "$tmp/cap.jsonl"
has "$tmp/cap.jsonl" '^# made by: .* --overlap-grad-reduce on --bucket-cap 104857600B --iterations 1$'
expect 0 "run replays it" -- "$gdrlab" run -t "$src/configs/h100-pcie5-400g.yaml" -T "$tmp/llm.jsonl" --quiet
has "$tmp/out" "communicators"
# context parallelism: its rings on communicators of their own (K,V of 1024
# tokens x 2 of 8 key-value heads x 128 x 2 (K, V) x 2 bytes), replayed on
# a preset beside the tensor, pipeline and data-parallel groups
expect 0 "gen llm --cp" -- "$gdrlab" gen llm --model llama3-8b --tp 4 --cp 2 --pp 2 --dp 2 \
    --micro-batches 2 --seq 2048 -o "$tmp/cp.jsonl"
has "$tmp/cp.jsonl" '^# made by: gdrlab gen llm --model llama3-8b --tp 4 --pp 2 --dp 2 --cp 2 --ep 1 '
has "$tmp/cp.jsonl" '^# llama3-8b: 8.030B parameters on 32 ranks;'
has "$tmp/cp.jsonl" '"op": "sendrecv", "bytes": 1048576, .*"src": 0, "dst": 4, "comm": "cp-s0-d0-t0", "batch": '
has "$tmp/cp.jsonl" '"comm": "dp-cp-s1-t3"'
has "$tmp/cp.jsonl" '"comm": "pp-d1-c1-t3", "batch": '
expect 0 "run replays a cp trace" -- "$gdrlab" run -t "$src/configs/h100-pcie5-400g.yaml" -T "$tmp/cp.jsonl" --nodes 4 --quiet
has "$tmp/out" "communicators"
expect 0 "gen llm --cp-comm-type a2a" -- "$gdrlab" gen llm --model llama3-8b --tp 4 --cp 2 --seq 2048 \
    --cp-comm-type a2a -o "$tmp/a2a.jsonl"
has "$tmp/a2a.jsonl" '^# made by: gdrlab gen llm --model llama3-8b --tp 4 --pp 1 --dp 1 --cp 2 --cp-comm-type a2a --ep 1 '
has "$tmp/a2a.jsonl" '"op": "alltoall", .*"comm": "cp-s0-d0-t3"'
expect 0 "run replays an a2a cp trace" -- "$gdrlab" run -t "$src/configs/h100-pcie5-400g.yaml" -T "$tmp/a2a.jsonl" --quiet
# taken without context parallelism, as Megatron-LM takes it, but said
expect 0 "--cp-comm-type without --cp" -- "$gdrlab" gen llm --model llama3-8b --tp 8 --cp-comm-type a2a -o "$tmp/nocp.jsonl"
has "$tmp/err" "note: --cp-comm-type a2a changes nothing without --cp 2 or more"
one_line "$tmp/err"
# interleaved pipeline: what Megatron-LM refuses, one line each; a trace
# whose last stage sends to the first (its next chunk), each send on its
# own, replayed
bad "--vpp: 2 model chunks need --pp 2 or more" -- --model llama3-8b --dp 2 --vpp 2
bad "--vpp: llama3-8b's 32 layers do not split into --pp 3 x --vpp 2 = 6 equal chunks (Megatron-LM asks the layers a multiple of pp x vpp)" -- \
    --model llama3-8b --pp 3 --vpp 2 --micro-batches 3
bad "--micro-batches: 6 with --vpp 2: Megatron-LM's interleaved schedule runs micro-batches in groups of --pp 4, so it asks a multiple of 4" -- \
    --model llama3-8b --pp 4 --vpp 2 --micro-batches 6
bad "--vpp: expected 1 or more, got '0'" -- --model llama3-8b --pp 2 --vpp 0
# more chunks than layers, with micro-batches enough that pp x vpp x m
# passes 2^30: --vpp's error, not --micro-batches' (until 2026-12-07)
bad "--vpp: 1000000 model chunks a pipeline rank: between 1 and the model's layers" -- \
    --model llama3-8b --pp 2 --vpp 1000000 --micro-batches 2048
expect 0 "gen llm --vpp" -- "$gdrlab" gen llm --model llama3-8b --tp 2 --pp 4 --vpp 2 --dp 2 \
    --micro-batches 4 --seq 2048 -o "$tmp/vpp.jsonl"
has "$tmp/vpp.jsonl" '^# made by: gdrlab gen llm --model llama3-8b --tp 2 --pp 4 --vpp 2 --dp 2 --ep 1 '
has "$tmp/vpp.jsonl" '(interleaved 1F1B, bubble included)'
has "$tmp/vpp.jsonl" '"op": "sendrecv", "bytes": 16777216, .*"src": 12, "dst": 0, "comm": "pp-d0-t0"}$'
if grep -q '"comm": "pp-d.*"batch"' "$tmp/vpp.jsonl"; then
    echo "FAIL: gen llm --vpp: a batched pipeline send"; fail=1
fi
expect 0 "run replays a vpp trace" -- "$gdrlab" run -t "$src/configs/h100-pcie5-400g.yaml" -T "$tmp/vpp.jsonl" --quiet
has "$tmp/out" "communicators"
# a device that cannot take the trace: its errno, one line, exit 1 (it said
# "Input/output error" for a file named with -o until 2026-12-06)
if [ -c /dev/full ]; then
    for out in "-o /dev/full" ""; do
        # shellcheck disable=SC2086 # the arguments are words
        "$gdrlab" gen llm --model llama3-8b --dp 2 $out >/dev/full 2>"$tmp/err"; got=$?
        [ "$got" = 1 ] || { echo "FAIL: gen llm $out to /dev/full: exit $got, want 1"; fail=1; }
        has "$tmp/err" "^gdrlab gen: .*No space left on device$"
        one_line "$tmp/err"
    done
fi
exit $fail
