#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The two timing backends side by side: nccl-tests' table predicted by the
# analytic closed form and by the SimGrid model, over presets x nodes x
# paths x sizes, NCCL's choice of algorithm (all-reduce and broadcast) and
# the tree on Simple, and how far apart they are (model / analytic - 1).
# Prints every case beyond 5% and the mean and largest gap; asserts
# nothing. About 3 minutes on a 2-core machine.
#   bench/bench_backend_gap.sh GDRLAB
set -euo pipefail
bin=$(realpath "$1")
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

table() { # table BACKEND LABEL ARGS...: one line a size
    local b=$1 label=$2
    shift 2
    timeout 300 "$bin" busbw --backend "$b" "$@" 2>/dev/null |
        awk -v b="$b" -v l="$label" '/^ +[0-9]/ { print l, $(NF-4) "/" $(NF-3), $1, b, $6 }'
}
for t in configs/a100-pcie4-200g.yaml configs/h100-pcie5-400g.yaml configs/gh200-grace-hopper.yaml \
    tests/data/eight-gpus-one-socket.yaml configs/validation/abci-v100-2xedr.yaml; do
    for n in 2 4 8; do
        for p in staged direct; do
            for b in analytic model; do
                label="$(basename "$t" .yaml) $n $p"
                table "$b" "$label allreduce" -t "$t" -n "$n" -p "$p" -b 64K -e 256M -f 8
                table "$b" "$label broadcast" -t "$t" -n "$n" -p "$p" -b 64K -e 256M -f 8 --op broadcast
                table "$b" "$label tree" -t "$t" -n "$n" -p "$p" -b 1M -e 256M -f 4 --algo tree --proto simple
            done
        done
    done
done >"$tmp/all.txt"

awk '{ key = $1 " " $2 " " $3 " " $4 " " $5 " " $6; t[key, $7] = $8; keys[key] = 1 }
END {
    for (k in keys) {
        if (!((k, "analytic") in t) || !((k, "model") in t) || t[k, "analytic"] <= 0)
            continue;
        g = t[k, "model"] / t[k, "analytic"] - 1;
        a = g < 0 ? -g : g;
        sum += a; n++;
        if (a > max) { max = a; worst = k }
        if (a > 0.05)
            printf "%-62s analytic %10.1f us  model %10.1f us  %+6.1f%%\n", k, t[k, "analytic"], t[k, "model"], 100 * g;
    }
    printf "%d cases: mean |model / analytic - 1| %.1f%%, largest %.1f%% (%s)\n", n, 100 * sum / n, 100 * max, worst > "/dev/stderr";
}' "$tmp/all.txt" 2>"$tmp/summary" | sort
echo
cat "$tmp/summary"
