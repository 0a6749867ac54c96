#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# bench/bench_sweep.sh GDRLAB [POINTS]: what spreading a sweep over
# launcher ranks costs and buys on this one host. POINTS model-backend
# points (default and at most 54: the three presets x the three DDP traces
# x 8, 64, 512 nodes x staged, direct) run as
#   1. gdrlab sweep -j 1            one point at a time
#   2. gdrlab sweep -j 2            two forked points at a time
#   3. mpirun -np 2 gdrlab sweep -j 1   two ranks, one point each at a time
# and the wall time of each, best of 3. On one host 2 and 3 should match
# (both keep two cores busy); 3 minus 2 is what the bootstrap and the
# ranks' once-a-second line-up cost. Across hosts, 3 is how a sweep grows.
# Prints figures; asserts only that the three outputs agree.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
bin=$(realpath "${1:?usage: bench_sweep.sh GDRLAB [POINTS]}")
npoints=${2:-54}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

i=0
for topo in a100-pcie4-200g h100-pcie5-400g two-socket-commodity; do
    for trace in resnet50 bert-large llama2-7b; do
        for nodes in 8 64 512; do
            for path in staged direct; do
                [ "$i" -lt "$npoints" ] || continue
                echo "{\"name\": \"p$i\", \"topology\": \"$top/configs/$topo.yaml\", \"trace\": \"$top/traces/$trace-ddp.jsonl\", \"backend\": \"model\", \"nodes\": $nodes, \"path\": \"$path\"}"
                i=$((i + 1))
            done
        done
    done
done >"$out/points.jsonl"

mpi() {
    mpirun --allow-run-as-root --oversubscribe --mca pml ob1 \
        --mca btl self,vader,tcp --mca osc '^ucx' "$@"
}

# best NAME CMD...: the best wall time of 3, the last output in $out/NAME.csv
best() {
    local name=$1 t0 t b=
    shift
    for _ in 1 2 3; do
        t0=$(date +%s.%N)
        "$@" >"$out/$name.csv" 2>"$out/err" || { echo "# $name failed: $(head -2 "$out/err")"; return 1; }
        t=$(echo "$(date +%s.%N) - $t0" | bc -l)
        if [ -z "$b" ] || [ "$(echo "$t < $b" | bc -l)" = 1 ]; then b=$t; fi
    done
    echo "$b"
}

echo "# gdrlab sweep of $i model points on $(nproc) cores, $(date -u +%F)"
s1=$(best j1 "$bin" sweep -j 1 --csv "$out/points.jsonl") || exit 1
s2=$(best j2 "$bin" sweep -j 2 --csv "$out/points.jsonl") || exit 1
if command -v mpirun >/dev/null; then
    s3=$(best np2 mpi -np 2 "$bin" sweep -j 1 --csv "$out/points.jsonl") || exit 1
else
    s3=
fi
printf 'sweep -j 1                   %6.2f s\n' "$s1"
printf 'sweep -j 2                   %6.2f s  (%.2fx)\n' "$s2" "$(echo "$s1 / $s2" | bc -l)"
[ -n "$s3" ] &&
    printf 'mpirun -np 2 sweep -j 1      %6.2f s  (%.2fx)\n' "$s3" "$(echo "$s1 / $s3" | bc -l)"
# The rows must not depend on how the sweep ran (wall_s aside: column 13).
for f in j2 ${s3:+np2}; do
    cut -d, -f1-12,14- "$out/$f.csv" | cmp -s - <(cut -d, -f1-12,14- "$out/j1.csv") ||
        { echo "# rows of $f differ from -j 1"; exit 1; }
done
echo "rows identical in every way of running (wall_s aside)"
