#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# bench/bench_llm.sh GDRLAB [DP...]: an LLM job's iteration at scale, with
# its communicators at once. For each data-parallel width (default 32 64:
# 1024 and 2048 GPUs), `gdrlab gen llm` writes Llama-3-70B under TP 8,
# PP 4, ZeRO 1, 16 micro-batches of 8192 tokens (issue 10's job), and
# `gdrlab run` replays it on configs/h100-pcie5-400g.yaml with the
# analytic and the model backend; prints wall time, peak RSS (GNU time),
# the trace's size and each backend's iteration and exposed time. Asserts
# only that each step succeeds. The figures are in docs/performance.md.
set -uo pipefail

bin=$(realpath "${1:?usage: bench_llm.sh GDRLAB [DP...]}")
shift
dps=("$@")
[ ${#dps[@]} -gt 0 ] || dps=(32 64)
src=$(cd "$(dirname "$0")/.." && pwd)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
command -v /usr/bin/time >/dev/null || { echo "bench_llm: needs GNU time (/usr/bin/time)" >&2; exit 2; }

printf '%6s %6s %10s %12s %9s %10s %10s %14s %12s\n' GPUs nodes collectives step backend wall_s rss_MiB iteration_us exposed_us
for dp in "${dps[@]}"; do
    gpus=$((8 * 4 * dp)) nodes=$((4 * dp))
    trace=$out/llm-$dp.jsonl
    /usr/bin/time -f '%e %M' -o "$out/time" "$bin" gen llm --model llama3-70b --tp 8 --pp 4 \
        --dp "$dp" --zero 1 --micro-batches 16 --seq 8192 -o "$trace" || exit 1
    read -r wall rss <"$out/time"
    calls=$(grep -vc '^#' "$trace")
    printf '%6d %6d %10d %12s %9s %10.2f %10.0f %14s %12s\n' "$gpus" "$nodes" "$calls" gen - "$wall" $((rss / 1024)) - -
    for backend in analytic model; do
        /usr/bin/time -f '%e %M' -o "$out/time" "$bin" run -t "$src/configs/h100-pcie5-400g.yaml" \
            -T "$trace" -n "$nodes" --backend "$backend" --quiet >"$out/run.txt" || exit 1
        read -r wall rss <"$out/time"
        it=$(sed -n 's/^iteration time *\([0-9.]*\) us$/\1/p' "$out/run.txt")
        ex=$(sed -n 's/^exposed comm *\([0-9.]*\) us$/\1/p' "$out/run.txt")
        printf '%6d %6d %10d %12s %9s %10.2f %10.0f %14s %12s\n' "$gpus" "$nodes" "$calls" run "$backend" \
            "$wall" $((rss / 1024)) "$it" "$ex"
    done
done
