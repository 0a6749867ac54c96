#!/bin/bash
# The ABCI tables of docs/validation.md, recomputed from this build:
# each cell measured / predicted us (error) and the algorithm/protocol
# NCCL 2.8.4's tuner picks in gdrlab, then the mean |error| per regime for
# gdrlab and NCCL's own estimate under 2.8.4's and 2.30.7's tables.
#   bench/validation_abci.sh [GDRLAB] [model|analytic]
# The curves are read from ../shared/data/nccl-tests/abci-v, or from
# $GDRLAB_ABCI_DIR.
# Markdown on stdout; run from the repository root.
set -euo pipefail
gdrlab=${1:-build/cli/gdrlab}
backend=${2:-analytic}
data=${GDRLAB_ABCI_DIR:-../shared/data/nccl-tests/abci-v}
[ -r "$data/all_reduce_2nodes.txt" ] || {
    echo "validation_abci.sh: no ABCI curves in $data (the project's shared data, beside the checkout; GDRLAB_ABCI_DIR names another folder)" >&2
    exit 2
}
topo=configs/validation/abci-v100-2xedr.yaml
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for n in 2 4 8 16 32; do
    for rel in 2.8.4 2.30.7; do
        "$gdrlab" validate --nccl-tests "$data/all_reduce_${n}nodes.txt" -t "$topo" \
            --op allreduce --nccl "$rel" -g pxb -P "$backend" \
            --json "$tmp/$n-$rel.json" >/dev/null
    done
done

python3 - "$tmp" <<'PY'
import json, sys
tmp = sys.argv[1]
nodes = [2, 4, 8, 16, 32]
runs = {(n, r): json.load(open(f"{tmp}/{n}-{r}.json"))["sizes"]
        for n in nodes for r in ("2.8.4", "2.30.7")}

def size_name(b):
    for unit, div in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if b >= div:
            return f"{b // div} {unit}"
    return f"{b} B"

def tag(s):
    proto = {"Simple": "S"}.get(s["proto"], s["proto"])
    return f"{s['algo'][0]}/{proto}"

print("| size | " + " | ".join(f"{n} nodes" for n in nodes) + " |")
print("| ---: |" + " ---: |" * len(nodes))
for i, s0 in enumerate(runs[(2, "2.8.4")]):
    cells = []
    for n in nodes:
        s = runs[(n, "2.8.4")][i]
        err = (s["measured_us"] - s["predicted_us"]) / s["predicted_us"]
        cells.append(f"{s['measured_us']:.1f} / {s['predicted_us']:.1f} "
                     f"({100 * err:+.0f}%) {tag(s)}")
    print(f"| {size_name(s0['size'])} | " + " | ".join(cells) + " |")

regimes = (("4 B - 512 B", 0, 512), ("1 KiB - 8 MiB", 1024, 8 << 20),
           ("16 - 32 MiB", 16 << 20, 32 << 20))

def mean_err(sizes, lo, hi, key):
    e = [abs(s["measured_us"] - s[key]) / s[key]
         for s in sizes if lo <= s["size"] <= hi]
    return f"{100 * sum(e) / len(e):.0f}%"

print()
print("| nodes | regime | gdrlab --nccl 2.8.4 | NCCL 2.8.4's own estimate "
      "| gdrlab, 2.30.7 (default) | NCCL 2.30.7's estimate |")
print("| ---: | --- | ---: | ---: | ---: | ---: |")
for n in nodes:
    for name, lo, hi in regimes:
        a, b = runs[(n, "2.8.4")], runs[(n, "2.30.7")]
        print(f"| {n} | {name} | " + " | ".join(
            (mean_err(a, lo, hi, "predicted_us"), mean_err(a, lo, hi, "nccl_estimate_us"),
             mean_err(b, lo, hi, "predicted_us"), mean_err(b, lo, hi, "nccl_estimate_us"))) + " |")
PY
