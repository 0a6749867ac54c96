#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# bench/bench_import.sh GDRLAB [MIB]: how `gdrlab import` scales with its
# input. Writes (into a scratch folder, removed at the end) a PyTorch
# profiler trace of about MIB MiB (default 2048): 100 profiler steps of
# compute events around 20 record_param_comms calls a step, one rank, plain
# and gzip; an NCCL log of as many MiB: 8 ranks' Init lines, then
# collective lines of every rank (with noise between); and a Chakra trace
# of as many MiB, one rank's as Chakra's converter writes it (100 steps of
# 20 all-reduces among aten::mm nodes: bench_gen_chakra, built beside
# GDRLAB's folder); then the import of each, printing wall time and peak
# RSS (GNU time). Asserts only that each import succeeds. The figures are
# in docs/performance.md.
set -uo pipefail

bin=$(realpath "${1:?usage: bench_import.sh GDRLAB [MIB]}")
mib=${2:-2048}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
command -v /usr/bin/time >/dev/null || { echo "bench_import: needs GNU time (/usr/bin/time)" >&2; exit 2; }

# A profiler trace: each step a ProfilerStep, 20 calls, and compute events
# (aten::mm with shapes) filling the rest, until MIB MiB.
awk -v mib="$mib" 'BEGIN {
    limit = mib * 1048576; n = 0; step = 0; ts = 0
    printf "{\"schemaVersion\": 1, \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": 0, \"world_size\": 8},\n \"traceEvents\": [\n"
    per_step = limit / 100
    while (n < limit) {
        printf "  {\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#%d\", \"pid\": 1, \"tid\": 1, \"ts\": %d, \"dur\": 100000},\n", step, ts
        start = n
        for (c = 0; c < 20; c++) {
            line = sprintf("  {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"record_param_comms\", \"pid\": 1, \"tid\": 1, \"ts\": %d, \"dur\": 10, \"args\": {\"Collective name\": \"allreduce\", \"In msg nelems\": 6553600, \"Out msg nelems\": 6553600, \"dtype\": \"BFloat16\", \"Group size\": 8, \"Process Group Name\": \"0\", \"Process Group Ranks\": \"[0, 1, 2, 3, 4, 5, 6, 7]\", \"Rank\": 0}},\n", ts + 1000 + c * 4000)
            printf "%s", line; n += length(line)
            while (n - start < (c + 1) * per_step / 20) {
                line = sprintf("  {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"pid\": 1, \"tid\": 1, \"ts\": %d, \"dur\": 3, \"args\": {\"Input Dims\": [[4096, 4096], [4096, 4096]], \"Input type\": [\"c10::BFloat16\", \"c10::BFloat16\"]}},\n", ts + 1000 + c * 4000 + 5)
                printf "%s", line; n += length(line)
            }
        }
        step++; ts += 100000
    }
    printf "  {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"end\", \"pid\": 1, \"tid\": 1, \"ts\": %d, \"dur\": 1}\n ]\n}\n", ts
}' >"$out/rank0.json"
gzip -1 -k "$out/rank0.json"

# An NCCL log: 8 ranks' world communicator, then calls logged by every rank.
awk -v mib="$mib" 'BEGIN {
    limit = mib * 1048576; n = 0
    for (r = 0; r < 8; r++)
        printf "node%d:%d:%d [%d] NCCL INFO comm 0x%x rank %d nranks 8 cudaDev %d nvmlDev %d busId 1b000 commId 0xfeed - Init COMPLETE\n", r / 4, 100 + r, 100 + r, r % 4, 4096 + r, r, r % 4, r % 4
    op = 0
    while (n < limit) {
        for (r = 0; r < 8; r++) {
            line = sprintf("node%d:%d:%d [%d] NCCL INFO AllReduce: opCount %x sendbuff 0x7f0000000000 recvbuff 0x7f0000000000 count 6553600 datatype 9 op 0 root 0 comm 0x%x [nranks=8] stream 0x55000000\n", r / 4, 100 + r, 100 + r, r % 4, op, 4096 + r)
            printf "%s", line; n += length(line)
            line = sprintf("node%d:%d:%d [%d] NCCL INFO Channel 00/0 : %d[%d] -> %d[%d] via P2P/CUMEM/read\n", r / 4, 100 + r, 100 + r, r % 4, r, r % 4, (r + 1) % 8, (r + 1) % 4)
            printf "%s", line; n += length(line)
        }
        op++
    }
}' >"$out/job.log"

# A Chakra trace, by the program built with gdrlab (protobuf-c).
gen=$(dirname "$bin")/../bench/bench_gen_chakra
[ -x "$gen" ] || { echo "bench_import: $gen is not built" >&2; exit 2; }
"$gen" "$out/job.0.et" "$mib" || exit 1

run() { # run WHAT gdrlab-args...
    local what=$1
    shift
    if ! /usr/bin/time -f '%e %M' -o "$out/time" "$bin" import "$@" -o "$out/trace.jsonl" 2>"$out/err"; then
        echo "bench_import: $what failed: $(cat "$out/err")" >&2
        exit 1
    fi
    read -r wall rss <"$out/time"
    printf '%-26s %10.1f %10s %8s %12s\n' "$what" "$(awk -v b="$(stat -c %s "$2")" 'BEGIN { print b / 1048576 }')" \
        "$(grep -vc '^#' "$out/trace.jsonl")" "$wall" "$((rss / 1024))"
}
printf '# gdrlab import on generated inputs (bench/bench_import.sh %s MiB)\n' "$mib"
printf '%-26s %10s %10s %8s %12s\n' input in_MiB entries wall_s peak_rss_MiB
run "kineto, plain" kineto "$out/rank0.json"
run "kineto, gzip" kineto "$out/rank0.json.gz"
run "nccl-log, 8 ranks" nccl-log "$out/job.log"
run "chakra, 1 rank" chakra "$out/job.0.et"
