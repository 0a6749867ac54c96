#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The switches at scale (docs/model.md §5a): wall time, peak RSS and the
# answers of the analytic backend on the fabric presets. Prints figures,
# asserts nothing.
#   bench/bench_fabric.sh GDRLAB
# 1. a 1 GiB all-reduce over 2048 nodes x 8 GPUs on a rail-optimised fat
#    tree (bench/superpod-2048.yaml: the SuperPOD preset with a third tier,
#    which 2048 nodes need);
# 2. Llama-2-7B DDP over 1024 nodes x 8 GPUs on the oversubscribed RoCE
#    Clos (configs/h100-roce-clos.yaml), against the same node on the
#    crossbar of configs/h100-pcie5-400g.yaml.
set -euo pipefail
bin=$(realpath "$1")
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo '{"iteration":0,"op":"allreduce","bytes":1073741824,"dtype":"bf16"}' > "$tmp/ar1g.jsonl"

# $1 label, then the gdrlab arguments: one line of figures.
measure() {
    local label=$1
    shift
    /usr/bin/time -f '%e %M' -o "$tmp/time" "$bin" run "$@" --json "$tmp/out.json" > /dev/null
    read -r wall rss < "$tmp/time"
    python3 - "$tmp/out.json" "$label" "$wall" "$rss" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
c = max(d["collectives"], key=lambda c: c["time_us"])
f = d["fabric"] or {}
print(f"{sys.argv[2]:<34} {d['nodes']:>5}x{d['gpus_per_node']} {float(sys.argv[3]):>7.2f} s "
      f"{int(sys.argv[4]) / 1024:>7.0f} MiB  comm {d['comm_time_us']:>10.1f} us  "
      f"iter {d['iteration_time_us']:>11.1f} us  busiest {c['fabric_link'] or '-'} "
      f"({c['fabric_flows']} flows, share {c['fabric_share'] if c['fabric_share'] is not None else '-'})"
      f"  seed {f.get('ecmp_seed', '-')}")
PY
}

echo "# analytic backend; wall and peak RSS of the whole gdrlab run"
measure "allreduce 1 GiB, rail fat tree" --topology bench/superpod-2048.yaml \
    --trace "$tmp/ar1g.jsonl" --nodes 2048
measure "llama2-7b DDP, RoCE Clos 2:1" --topology configs/h100-roce-clos.yaml \
    --trace traces/llama2-7b-ddp.jsonl --nodes 1024
measure "llama2-7b DDP, crossbar" --topology configs/h100-pcie5-400g.yaml \
    --trace traces/llama2-7b-ddp.jsonl --nodes 1024
