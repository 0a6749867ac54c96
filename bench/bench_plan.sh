#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# bench/bench_plan.sh GDRLAB [NODES [RATES]]: a sweep plan's cost at size.
# A plan of NODES node counts (1..NODES, default 100) x RATES NIC speeds
# (default 100, from 100 Gbit/s by 25) on the H100 preset with ResNet-50
# DDP, analytic points, `-j 2`: the points the plan makes, the wall time
# and peak RSS (GNU time) of the whole sweep, and its pace. Issue 11's
# target: 10,000 analytic points in minutes on 2 cores. Asserts only that
# the sweep succeeds with one row a point. The figures are in
# docs/sweep-format.md and docs/performance.md.
set -uo pipefail

bin=$(realpath "${1:?usage: bench_plan.sh GDRLAB [NODES [RATES]]}")
nodes=${2:-100} rates=${3:-100}
top=$(cd "$(dirname "$0")/.." && pwd)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
command -v /usr/bin/time >/dev/null || { echo "bench_plan: needs GNU time (/usr/bin/time)" >&2; exit 2; }

values=$(awk -v n="$rates" 'BEGIN { for (i = 0; i < n; i++) printf "%s%d", i ? ", " : "", 100 + 25 * i }')
cat >"$out/plan.yaml" <<EOP
base:
  topology: $top/configs/h100-pcie5-400g.yaml
  trace: $top/traces/resnet50-ddp.jsonl
axes:
  nodes: 1..$nodes +1
  nics.rate: { values: [$values], unit: Gbit/s }
EOP
/usr/bin/time -f '%e %M' -o "$out/time" "$bin" sweep -j 2 --csv --quiet "$out/plan.yaml" >"$out/rows.csv" || exit 1
read -r wall rss <"$out/time"
points=$(($(wc -l <"$out/rows.csv") - 1))
[ "$points" -eq $((nodes * rates)) ] || { echo "bench_plan: $points rows, want $((nodes * rates))" >&2; exit 1; }
echo "# gdrlab sweep of a plan: $nodes node counts x $rates NIC speeds, analytic, -j 2, $(nproc) cores, $(date -u +%F)"
printf 'points %d  wall %.1f s  peak RSS %d MiB  %.0f points a second\n' "$points" "$wall" \
    $((rss / 1024)) "$(echo "$points / $wall" | bc -l)"
