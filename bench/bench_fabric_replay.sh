#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Every node replayed against the closed form on the switches (issue 13):
# with switches named, the SimGrid backend simulates every node and link
# (it folds nothing: docs/model.md §5a), the analytic backend solves the
# same links' max-min shares in closed form. A 64 MiB ring all-reduce
# over N nodes x 8 GPUs:
#  1. rail-optimised fat tree (configs/h100-superpod-ib.yaml): the rings
#     stay on their rails, no uplink is shared, the two should agree to
#     1e-4 where the call is bandwidth-bound (8 nodes); latency-bound
#     (from 16) the closed form shares each NIC among its two channels
#     through the fill, the replay about 2% sooner (docs/model.md, Known
#     limits);
#  2. node-attached RoCE Clos (configs/h100-roce-clos.yaml): a ring's hops
#     between leaves are hashed over the uplinks (ECMP), so some collide
#     and nodes are unequal; where they differ, and why, is printed.
# Prints figures, asserts nothing. Minutes: the 64-node replays are the
# SimGrid backend's cost (about 6 min each on a 2-core machine).
#   bench/bench_fabric_replay.sh GDRLAB [NODES]
set -euo pipefail
bin=$(realpath "$1")
nodes=${2:-64}
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo '{"iteration":0,"op":"allreduce","bytes":67108864,"dtype":"bf16"}' >"$tmp/ar.jsonl"

field() { # field JSON KEY: the first collective's KEY
    sed -n "s/^ *\"$2\": \"*\([^\",]*\)\"*,*$/\1/p" "$1" | head -1
}
for topo in configs/h100-superpod-ib.yaml configs/h100-roce-clos.yaml; do
    for b in analytic model; do
        /usr/bin/time -f '%e %M' -o "$tmp/time" "$bin" run -q -t "$topo" -T "$tmp/ar.jsonl" \
            -n "$nodes" --algo ring -b "$b" --json "$tmp/$b.json" >/dev/null
        read -r wall rss <"$tmp/time"
        printf '%-32s %-8s %4s nodes  %12s us  busiest %-20s %3s flows  %7.1f s %6.0f MiB\n' \
            "$topo" "$b" "$nodes" "$(field "$tmp/$b.json" time_us)" "$(field "$tmp/$b.json" fabric_link)" \
            "$(field "$tmp/$b.json" fabric_flows)" "$wall" "$((rss / 1024))"
    done
    awk -v a="$(field "$tmp/analytic.json" time_us)" -v m="$(field "$tmp/model.json" time_us)" \
        'BEGIN { printf "  model / analytic - 1 = %+.2e\n", m / a - 1 }'
done
