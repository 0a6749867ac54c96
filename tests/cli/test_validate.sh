#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# gdrlab validate (and calibrate --backend real) from the command line:
# usage errors exit 2, a measuring backend that cannot run here exits 1 with
# one line. The runs themselves: tests/emu/test_emu_validate.sh (SoftRoCE).
# usage: test_validate.sh GDRLAB SOURCE_DIR
set -u
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
topo=$src/configs/emu-vm.yaml trace=$src/traces/emu-small.jsonl
# a libcuda that is not there: "no NVIDIA GPU" on every machine
export GDRLAB_LIBCUDA=$tmp/no-libcuda.so


expect 0 "help" -- "$gdrlab" validate --help
has "$tmp/out" "usage: gdrlab validate --backend emu|real"
expect 0 "in the command list" -- "$gdrlab" --help
has "$tmp/out" "validate"
# The rest needs emu and real in the build (libibverbs at configure time).
if "$gdrlab" backends | grep -q '^real  *absent'; then
    echo "skipped: emu and real are not in this build: $("$gdrlab" backends | sed -n 's/^real  *absent  *//p')"
    exit $((fail ? 1 : 77))
fi
expect 2 "no backend" -- "$gdrlab" validate --topology "$topo" --trace "$trace"
has "$tmp/err" "gdrlab validate: --backend is required (emu or real) (see 'gdrlab validate --help')"
expect 2 "no topology" -- "$gdrlab" validate --backend emu --trace "$trace"
has "$tmp/err" "--topology is required"
expect 2 "no trace" -- "$gdrlab" validate --backend emu --topology "$topo"
has "$tmp/err" "--trace is required"
expect 2 "unknown option" -- "$gdrlab" validate --frobnicate
has "$tmp/err" "gdrlab validate: unknown option '--frobnicate'"
expect 2 "stray argument" -- "$gdrlab" validate --backend emu --topology "$topo" --trace "$trace" extra
has "$tmp/err" "unexpected argument 'extra'"
expect 2 "model clock as measurer" -- "$gdrlab" validate --backend analytic --topology "$topo" --trace "$trace"
has "$tmp/err" "'analytic' is not a measuring (wall-clock) backend"
expect 2 "wall clock as predictor" -- "$gdrlab" validate --backend emu --predict emu --topology "$topo" --trace "$trace"
has "$tmp/err" "'emu' is not a predicting (model) backend"
expect 2 "unknown backend" -- "$gdrlab" validate --backend nope --topology "$topo" --trace "$trace"
has "$tmp/err" "unknown backend 'nope'"
expect 2 "bad path" -- "$gdrlab" validate --backend emu --path sideways --topology "$topo" --trace "$trace"
has "$tmp/err" "--path: expected direct, staged, staged-memcpy or auto, got 'sideways'"
expect 2 "bad nodes" -- "$gdrlab" validate --backend emu --nodes 0 --topology "$topo" --trace "$trace"
expect 2 "bad tolerance" -- "$gdrlab" validate --backend emu --tolerance -3 --topology "$topo" --trace "$trace"
# the message says the limits it holds: above 0 and at most 1000
expect 2 "tolerance too wide" -- "$gdrlab" validate --backend emu --tolerance 2000 --topology "$topo" --trace "$trace"
has "$tmp/err" "--tolerance: expected a percentage above 0 and at most 1000, got '2000'"
# run's staging and GDR options are validate's too (a run of the same
# machine): taken, then the same reason the GPU is not there
expect 1 "run's -g, --chunk, --buffers" -- "$gdrlab" validate --backend real -g pix --chunk 1M \
    --buffers 4 --topology "$topo" --trace "$trace"
has "$tmp/err" "gdrlab validate: backend real cannot run here: no NVIDIA GPU: "
expect 2 "bad --chunk" -- "$gdrlab" validate --backend real --chunk 0 --topology "$topo" --trace "$trace"
has "$tmp/err" "--chunk: expected a size above 0"
expect 2 "missing trace file" -- "$gdrlab" validate --backend emu --topology "$topo" --trace "$tmp/none.jsonl"
has "$tmp/err" "none.jsonl"
one_line "$tmp/err"

# No device: the measuring backend's reason, one line, exit 1, no JSON.
expect 1 "real without a GPU" -- "$gdrlab" validate --backend real --topology "$topo" \
    --trace "$trace" --json "$tmp/v.json"
has "$tmp/err" "gdrlab validate: backend real cannot run here: no NVIDIA GPU: "
one_line "$tmp/err"
[ ! -e "$tmp/v.json" ] || { echo "FAIL: v.json written"; fail=1; }
if "$gdrlab" backends | grep -q '^emu  *skipped'; then
    expect 1 "emu without an RDMA device" -- "$gdrlab" validate --backend emu \
        --topology "$topo" --trace "$trace"
    has "$tmp/err" "gdrlab validate: backend emu cannot run here: no RDMA device"
    one_line "$tmp/err"
fi

expect 1 "calibrate --backend real without a GPU" -- "$gdrlab" calibrate --backend real --topology "$topo" \
    -o "$tmp/cal.yaml"
has "$tmp/err" "gdrlab calibrate: no NVIDIA GPU: "
one_line "$tmp/err"
[ ! -e "$tmp/cal.yaml" ] || { echo "FAIL: cal.yaml written"; fail=1; }
# its default topology and trace are shipped files, found from any folder:
# from an empty one it gets as far as the GPU
expect 1 "calibrate --backend real from another folder" -- \
    sh -c 'cd "$1" && shift && exec "$@"' sh "$tmp" "$gdrlab" calibrate --backend real -o "$tmp/cal.yaml"
has "$tmp/err" "gdrlab calibrate: no NVIDIA GPU: "
# a --trace that is not there: bad input (2), said before any measuring
expect 2 "calibrate --trace missing" -- "$gdrlab" calibrate --backend real --topology "$topo" \
    --trace "$tmp/nothere.jsonl" -o "$tmp/cal.yaml"
has "$tmp/err" "gdrlab calibrate: $tmp/nothere.jsonl: cannot read: No such file or directory"
# an output's folder that is not there is said before the run (exit 2),
# not after it: here before the GPU is looked for
for cmd in "validate --backend real --topology $topo --trace $trace --json" \
           "calibrate --backend real -o" \
           "run --backend real --topology $topo --trace $trace --timeline"; do
    # shellcheck disable=SC2086 # the command's words
    expect 2 "${cmd%% *}: output in a missing folder" -- "$gdrlab" $cmd "$tmp/none/out"
    has "$tmp/err" "$tmp/none/out: cannot create: No such file or directory"
    [ ! -e "$tmp/none" ] || { echo "FAIL: $tmp/none made"; fail=1; }
done
# sizes past the largest are refused as such, not as under the smallest
expect 2 "calibrate --size too large" -- "$gdrlab" calibrate --backend real --size 5000G -o "$tmp/cal.yaml"
has "$tmp/err" "gdrlab calibrate: --size: expected a size from 4K to 1024G, got '5000G'"
one_line "$tmp/err"
exit $fail
