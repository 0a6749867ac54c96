#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# bench/bench_4096.sh GDRLAB [RUNS]: issue 9's scale target, one 64 MiB
# all-reduce on 4096 nodes (`busbw -n 4096 -b 64M -e 64M`, NCCL's choice),
# on the analytic backend for every preset and both paths: the call's
# time, what NCCL's tuner chose, and the wall time (the least and the
# median of RUNS, default 3) and peak RSS (GNU time) of the command, on
# the CPUs the process may use and on one thread (GDRLAB_ANALYTIC_THREADS
# =1; the call's time must be the same to the digit, which it checks).
# The target: under 1 s and 512 MiB on a 2-core machine. The figures are
# in docs/performance.md.
set -uo pipefail

bin=$(realpath "${1:?usage: bench_4096.sh GDRLAB [RUNS]}")
runs=${2:-3}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
command -v /usr/bin/time >/dev/null || { echo "bench_4096: needs GNU time (/usr/bin/time)" >&2; exit 2; }

# one_run PRESET PATH THREADS: "call-us algo proto nch wall rss-kib"
one_run() {
    env ${3:+GDRLAB_ANALYTIC_THREADS=$3} /usr/bin/time -f '%e %M' -o "$out/time" \
        "$bin" busbw -t "$1" -n 4096 -b 64M -e 64M --backend analytic --path "$2" \
        >"$out/table" 2>"$out/err" || { echo "bench_4096: $1 $2 failed:" >&2; cat "$out/err" >&2; exit 1; }
    echo "$(awk '$1 == 67108864 { print $6, $14, $15, $16 }' "$out/table") $(cat "$out/time")"
}

printf '%-22s %-7s %-18s %10s %14s %9s %14s %9s\n' preset path "NCCL's choice" "call us" \
    "wall s (min/med)" "RSS MiB" "1 thread s" "RSS MiB"
for preset in a100-pcie4-200g h100-pcie5-400g h100-roce-clos gh200-grace-hopper \
    two-socket-commodity h100-nvl-pcie-pairs; do
    for path in direct staged; do
        : >"$out/walls"
        for ((i = 0; i < runs; i++)); do
            set -- $(one_run $preset $path "")
            echo "$5" >>"$out/walls"
            rss=$6
        done
        call=$1 choice="$2/$3 $4 ch"
        set -- $(one_run $preset $path 1)
        [ "$1" = "$call" ] || { echo "bench_4096: $preset $path: $call us, $1 us on one thread" >&2; exit 1; }
        printf '%-22s %-7s %-18s %10s %6s / %-5s %9d %14s %9d\n' $preset $path "$choice" "$call" \
            "$(sort -n "$out/walls" | head -1)" "$(sort -n "$out/walls" | awk '{ w[NR] = $1 } END { print w[int((NR + 1) / 2)] }')" \
            $((rss / 1024)) "$5" $(($6 / 1024))
    done
done
