#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# tests/emu/test_emu_validate.sh GDRLAB: gdrlab calibrate then gdrlab
# validate on real SoftRoCE, in one boot of the harness (emu/vm/run re-runs
# this script inside it). On configs/emu-vm.yaml + traces/emu-small.jsonl:
#   1. calibrate writes a topology file
#   2. calibrate --layout configs/emu-vm.yaml: the printed rate in that layout
#   3. validate --backend emu on it: exit 0, JSON with every collective's
#      measured and predicted time > 0, data_errors 0, verified_bytes as
#      tests/emu/lib.sh derives it, and a verdict
#   4. a spoiled byte: that collective's verdict is data_corrupted, the
#      JSON still written, and the exit status 1 (it was 0: a script
#      checking it saw a pass), with one line naming the collective
#   5. calibrate whose run of the trace (after the link's, which have 25
#      collectives) spoils a byte: exit 1 with one line, not a row marked
#      "(data errors!)" and exit 0
# Exit: 0 passed, 1 failed, 77 skipped (no SoftRoCE, or a tool missing).
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"
bin=$(realpath "${1:?usage: test_emu_validate.sh GDRLAB}")
in_vm "$0" "$bin"

want=$(emu_small_verified 2)

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
devices="$GDRLAB_RXE_A,$GDRLAB_RXE_B"

if "$bin" calibrate --devices "$devices" --size 1MiB -o "$out/cal.yaml" \
    >"$out/cal.txt" 2>"$out/err" && [ -s "$out/cal.yaml" ]; then
    ok "calibrate: $(grep -m1 'link' "$out/cal.txt" | sed 's/^ *//')"
else
    notok "calibrate: $(head -3 "$out/err")"
fi

# --layout: the same figures in the layout of configs/emu-vm.yaml, which
# the analytic backend then reads; its NIC rate is the one printed.
if "$bin" calibrate --devices "$devices" --size 1MiB --layout configs/emu-vm.yaml \
    -o "$out/layout.yaml" >"$out/cal2.txt" 2>"$out/err" &&
    "$bin" run --topology "$out/layout.yaml" --trace traces/emu-small.jsonl --quiet \
    >/dev/null 2>>"$out/err"; then
    printed=$(sed -n 's/.*measured   link \([0-9.]*\) MB\/s.*/\1/p' "$out/cal2.txt")
    written=$(sed -n 's/.*rate: \([0-9.e+-]*\) MB\/s.*/\1/p' "$out/layout.yaml" | head -1)
    # printed to 0.1 MB/s
    if awk -v p="$printed" -v w="$written" 'BEGIN { d = p - w; exit !(p > 0 && d <= 0.051 && d >= -0.051) }' &&
        grep -q "^# The layout is configs/emu-vm.yaml's" "$out/layout.yaml"; then
        ok "calibrate --layout: rate $written MB/s in configs/emu-vm.yaml's layout"
    else
        notok "calibrate --layout: printed $printed MB/s, written '$written' MB/s"
    fi
else
    notok "calibrate --layout: $(head -3 "$out/err")"
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
# One spoiled byte per checking rank in collective 2 (a reduce_scatter:
# both ranks check a block): that collective's verdict and the overall
# one say data_corrupted, the others keep their time verdicts.
GDRLAB_EMU_CORRUPT=2 "$bin" validate --backend emu --devices "$devices" \
    --topology "$out/cal.yaml" --trace traces/emu-small.jsonl --quiet \
    --json "$out/bad.json" >"$out/bad.txt" 2>"$out/err"
rc=$?
if [ $rc -eq 1 ] && [ "$(wc -l <"$out/err")" -eq 1 ] &&
    grep -q "^gdrlab validate: data corrupted on emu: 2 of [0-9]* bytes checked arrived wrong, first in collective 2$" "$out/err"; then
    verdicts=$(sed -n 's/^      "verdict": "\(.*\)",\{0,1\}$/\1/p' "$out/bad.json" | tr '\n' ' ')
    errs=$(sed -n 's/^      "data_errors": \([0-9]*\),\{0,1\}$/\1/p' "$out/bad.json" | tr '\n' ' ')
    if grep -q '^  "verdict": "data_corrupted"' "$out/bad.json" &&
        [ "$(echo "$verdicts" | cut -d' ' -f3)" = data_corrupted ] &&
        [ "$(echo "$verdicts" | tr ' ' '\n' | grep -c data_corrupted)" = 1 ] &&
        [ "$errs" = "0 0 2 0 0 0 0 0 0 " ]; then
        ok "validate, a spoiled byte: collective 2 data_corrupted, per collective data_errors $errs"
    else
        notok "validate, a spoiled byte: verdicts '$verdicts', data_errors '$errs'"
    fi
else
    notok "validate, a spoiled byte: exit $rc (want 1): $(head -3 "$out/err")"
fi
# Collective 25 of a 26-collective trace: the link's send/recv runs (20,
# then 5 collectives) are clean, the trace's runs on both paths are not.
for i in $(seq 0 25); do
    echo "{\"iteration\": 0, \"op\": \"allreduce\", \"bytes\": 4096, \"dtype\": \"fp32\", \"ready_us\": 0}"
done >"$out/26.jsonl"
GDRLAB_EMU_CORRUPT=25 "$bin" calibrate --devices "$devices" --size 64KiB \
    --trace "$out/26.jsonl" -o "$out/cal3.yaml" >"$out/cal3.txt" 2>"$out/err"
rc=$?
if [ $rc -eq 1 ] && [ "$(wc -l <"$out/err")" -eq 1 ] &&
    grep -q "^gdrlab calibrate: data corrupted on emu: 2 of [0-9]* bytes checked arrived wrong running .*26.jsonl on the staged path$" "$out/err" &&
    [ "$(grep -c 'data errors!' "$out/cal3.txt")" = 2 ]; then
    ok "calibrate, a spoiled byte in the trace's run: exit 1: $(cat "$out/err")"
else
    notok "calibrate, a spoiled byte in the trace's run: exit $rc (want 1): $(head -3 "$out/err")"
fi
echo "1..$n"
exit $failed
