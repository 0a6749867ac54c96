#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# gdrlab gen ddp from the command line: the options as PyTorch's
# DistributedDataParallel takes their counterparts.
#   usage: test_gen_ddp.sh GDRLAB SOURCE_DIR
set -u
. "$(dirname "$0")/lib.sh"

# buckets FILE: the all-reduce sizes of its first iteration, space-separated
buckets() {
    grep '"iteration": 0,' "$1" | sed 's/.*"bytes": \([0-9]*\).*/\1/' | tr '\n' ' '
}
same() { # same WHAT GOT WANT
    [ "$2" = "$3" ] || { echo "FAIL: $1: got '$2', want '$3'"; fail=1; }
}

# Three fp32 tensors of 400,000, 1,200,000 and 800,000 B, taken backwards
# (c, b, a). DDP's first bucket is 1 MiB only when bucket_cap_mb is left
# unset (distributed.py: first_bucket_bytes_cap is bucket_bytes_cap when
# bucket_cap_mb is given), so with bucket_cap_mb=2 (2,097,152 B) c + b =
# 2,000,000 stay open and a closes one bucket of 2,400,000; with the default
# cap the first limit is 1 MiB: [c b] = 2,000,000 closes, [a] is left over.
printf 'a 100000\nb 300000\nc 200000\n' >"$tmp/l3.txt"
expect 0 "gen ddp, defaults" -- "$gdrlab" gen ddp --layout "$tmp/l3.txt" --dtype fp32 -o "$tmp/def.jsonl"
same "default caps" "$(buckets "$tmp/def.jsonl")" "2000000 400000 "
expect 0 "gen ddp --bucket-cap 2MiB" -- "$gdrlab" gen ddp --layout "$tmp/l3.txt" --dtype fp32 \
    --bucket-cap 2MiB -o "$tmp/cap.jsonl"
same "--bucket-cap alone" "$(buckets "$tmp/cap.jsonl")" "2400000 "
has "$tmp/cap.jsonl" '^# made by: .* --bucket-cap 2MiB --first-bucket 2MiB '
# --first-bucket beside it still sets a first limit of its own
expect 0 "gen ddp --bucket-cap 2MiB --first-bucket 1MiB" -- "$gdrlab" gen ddp --layout "$tmp/l3.txt" \
    --dtype fp32 --bucket-cap 2MiB --first-bucket 1MiB -o "$tmp/both.jsonl"
same "--bucket-cap and --first-bucket" "$(buckets "$tmp/both.jsonl")" "2000000 400000 "
# bucket_cap_mb=25 given is not the default: no 1 MiB bucket either
# (ResNet-50's fc, 8,196,000 B, no longer closes a bucket of its own)
expect 0 "gen ddp --bucket-cap 25MiB" -- "$gdrlab" gen ddp --model resnet50 --dtype fp32 \
    --bucket-cap 25MiB -o "$tmp/r50.jsonl"
has "$tmp/r50.jsonl" '^# made by: .* --bucket-cap 25MiB --first-bucket 25MiB '
if grep -q '"bytes": 8196000,' "$tmp/r50.jsonl"; then
    echo "FAIL: --bucket-cap 25MiB kept the 1 MiB first bucket"; fail=1
fi

# Gradients are floating point: autograd refuses requires_grad on an int8
# tensor, so an int8 DDP trace is refused, one line, exit 2, no file
bad_usage_of gen "gen ddp --dtype int8" "--dtype: int8: a gradient is floating point (fp32, fp16, bf16, fp64)" -- \
    ddp --model resnet50 --dtype int8 -o "$tmp/int8.jsonl"
[ ! -e "$tmp/int8.jsonl" ] || { echo "FAIL: gen ddp --dtype int8 left an output file"; fail=1; }
for t in fp32 fp16 bf16 fp64; do
    expect 0 "gen ddp --dtype $t" -- "$gdrlab" gen ddp --model resnet50 --dtype "$t"
done

# No --dtype: fp32, as PyTorch makes parameters (and autocast leaves them):
# ResNet-50's 25,557,032 parameters are 102,228,128 bytes an iteration
expect 0 "gen ddp, default dtype" -- "$gdrlab" gen ddp --model resnet50 -o "$tmp/dflt.jsonl"
has "$tmp/dflt.jsonl" '^# made by: .* --dtype fp32 '
has "$tmp/dflt.jsonl" '25557032 parameters; 5 buckets, 102228128 bytes of fp32 gradients'

# fp16_compress_hook over the three tensors: the fp32 buckets (2,000,000 and
# 400,000 B, formed from the gradients' own sizes) sent as fp16, half each;
# 4 micro-steps of 10 + 20 us, the first three under no_sync(): 120 us of
# compute, the buckets ready in the last backward only (90 + 10 + 20 x
# 500,000 / 600,000 = 116.667 us, then 120)
expect 0 "gen ddp --comm-hook fp16 --accumulate 4" -- "$gdrlab" gen ddp --layout "$tmp/l3.txt" \
    --comm-hook fp16 --accumulate 4 --forward-us 10 --backward-us 20 -o "$tmp/hook.jsonl"
same "--comm-hook fp16" "$(buckets "$tmp/hook.jsonl")" "1000000 200000 "
has "$tmp/hook.jsonl" '"dtype": "fp16", "ready_us": 116.667, "compute_us": 120}'
has "$tmp/hook.jsonl" '"dtype": "fp16", "ready_us": 120, "compute_us": 120}'
has "$tmp/hook.jsonl" '^# made by: .* --comm-hook fp16 --accumulate 4$'
bad_usage_of gen "gen ddp --comm-hook fp8" "--comm-hook: expected allreduce, fp16 or bf16, got 'fp8'" -- \
    ddp --model resnet50 --comm-hook fp8
bad_usage_of gen "gen ddp --accumulate 0" "--accumulate: expected a whole number from 1 to 65536, got '0'" -- \
    ddp --model resnet50 --accumulate 0

# find_unused_parameters=True: buckets made in registration order and never
# rebuilt: a + b = 1,600,000 >= 1 MiB closes [a b], [c] is left over; they
# go out reversed, [c] ready once backward has done c (a third of the
# elements: 10 + 20 / 3 = 16.667 us), then the used-parameter map, 3 int32
expect 0 "gen ddp --find-unused-parameters" -- "$gdrlab" gen ddp --layout "$tmp/l3.txt" \
    --find-unused-parameters --forward-us 10 --backward-us 20 -o "$tmp/unused.jsonl"
same "--find-unused-parameters" "$(buckets "$tmp/unused.jsonl")" "800000 1600000 12 "
has "$tmp/unused.jsonl" '"bytes": 800000, "dtype": "fp32", "ready_us": 16.667,'
has "$tmp/unused.jsonl" '^# made by: .* --find-unused-parameters$'

# --first-iteration: iteration 0 is DDP's first, every gradient in one
# bucket (2,400,000 B) at the end of backward (30 us); iteration 1 the
# rebuilt buckets
expect 0 "gen ddp --first-iteration" -- "$gdrlab" gen ddp --layout "$tmp/l3.txt" \
    --first-iteration --iterations 2 --forward-us 10 --backward-us 20 -o "$tmp/first.jsonl"
same "--first-iteration" "$(buckets "$tmp/first.jsonl")" "2400000 "
has "$tmp/first.jsonl" '^{"iteration": 0, "op": "allreduce", "bytes": 2400000, "dtype": "fp32", "ready_us": 30,'
has "$tmp/first.jsonl" '^{"iteration": 1, "op": "allreduce", "bytes": 2000000, "dtype": "fp32", "ready_us": 26.667,'

exit $fail
