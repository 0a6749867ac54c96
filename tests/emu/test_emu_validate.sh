#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# tests/emu/test_emu_validate.sh GDRLAB: gdrlab calibrate then gdrlab
# validate on real SoftRoCE, in one boot of the harness (emu/vm/run re-runs
# this script inside it). On configs/emu-vm.yaml + traces/emu-small.jsonl:
#   1. calibrate writes a topology file
#   2. validate --backend emu on it: exit 0, JSON with every collective's
#      measured and predicted time > 0, data_errors 0, verified_bytes as
#      test_emu_run.sh derives it, and a verdict
# Exit: 0 passed, 1 failed, 77 skipped (no SoftRoCE, or a tool missing).
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
bin=$(realpath "${1:?usage: test_emu_validate.sh GDRLAB}")

if [ -z "${GDRLAB_RXE_MODE:-}" ]; then
    exec "$top/emu/vm/run" "$here/test_emu_validate.sh" "$bin"
fi
cd "$top" || exit 1

# verified_bytes of traces/emu-small.jsonl on 2 ranks (test_emu_run.sh):
# N x 3 MiB + N x 768 KiB + 256 KiB + 128 KiB
want=$(( 2 * (3 * 1048576 + 3 * 262144) + 262144 + 131072 ))

failed=0 n=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
notok() { n=$((n + 1)); echo "not ok $n - $*"; failed=1; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
devices="$GDRLAB_RXE_A,$GDRLAB_RXE_B"

if "$bin" calibrate --devices "$devices" --size 1MiB -o "$out/cal.yaml" \
    >"$out/cal.txt" 2>"$out/err" && [ -s "$out/cal.yaml" ]; then
    ok "calibrate: $(grep -m1 'link' "$out/cal.txt" | sed 's/^ *//')"
else
    notok "calibrate: $(head -3 "$out/err")"
fi

if "$bin" validate --backend emu --devices "$devices" --topology "$out/cal.yaml" \
    --trace traces/emu-small.jsonl --quiet --json "$out/v.json" \
    >"$out/v.txt" 2>"$out/err"; then
    # JSON_INDENT(2): one key per line; top-level keys indented by 2
    if why=$(awk -v want="$want" '
        /"op":/ { n++ }
        /"measured_us":/ { if ($2 + 0 > 0) m++ }
        /"predicted_us":/ { if ($2 + 0 > 0) p++ }
        /^  "data_errors":/ { de = $2 + 0; seen_de = 1 }
        /^  "verified_bytes":/ { vb = $2 + 0 }
        /^  "verdict":/ { v = $2; gsub(/[",]/, "", v) }
        /^  "error_pct":/ { e = $2 + 0 }
        END {
            if (!n || m != n || p != n) { printf "%d collectives, %d measured > 0, %d predicted > 0", n, m, p; exit 1 }
            if (!seen_de || de != 0) { printf "data_errors %s", seen_de ? de : "missing"; exit 1 }
            if (vb != want) { printf "verified_bytes %d, expected %d", vb, want; exit 1 }
            if (v != "normal" && v != "slower" && v != "faster") { printf "verdict \"%s\"", v; exit 1 }
            printf "%d collectives, %d bytes verified, verdict %s (%+.0f%%)", n, vb, v, e
        }' "$out/v.json"); then
        ok "validate: $why"
    else
        notok "validate: $why"
    fi
    grep -q '^verdict: ' "$out/v.txt" || notok "validate: no verdict line in the table"
else
    notok "validate: exit $?: $(head -3 "$out/err")"
fi
echo "1..$n"
exit $failed
