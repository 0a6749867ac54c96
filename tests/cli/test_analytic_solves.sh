#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# How the analytic backend solves, which must not change what it prints:
# side by side (GDRLAB_ANALYTIC_THREADS), each solve writing only its own
# connections' rates, so one, two or three threads print the same tables
# to the digit; and one of each set of twins (a node's NVLink hops, alike
# in every node), which every connection solved (GDRLAB_ANALYTIC_EVERY_CONN)
# must match to the digit too. Here on 64 nodes of a Clos whose ECMP
# routes start a tree's hops at some hundreds of times (a tau solve each)
# and whose chains fill (a fill solve each window). A thread count that is
# not 1 to 64 is one line naming it, exit 2, no output.
#   usage: test_analytic_solves.sh GDRLAB SOURCE_DIR
set -u
. "$(dirname "$0")/lib.sh"
for n in 1 2 3 every; do
    for case in "allreduce direct" "broadcast staged" "reducescatter staged-memcpy"; do
        set -- $case
        if [ $n = every ]; then how="GDRLAB_ANALYTIC_EVERY_CONN=1"; else how="GDRLAB_ANALYTIC_THREADS=$n"; fi
        expect 0 "$1 $2, $how" -- env "$how" "$gdrlab" busbw \
            -t h100-roce-clos -n 64 --op "$1" -b 8 -e 64M -f 8 --path "$2"
        cp "$tmp/out" "$tmp/$n.$1.txt"
    done
done
for op in allreduce broadcast reducescatter; do
    [ "$(grep -c " Tree\| Ring\| NVLS" "$tmp/1.$op.txt")" -ge 4 ] ||
        { echo "FAIL: no rows in $tmp/1.$op.txt"; fail=1; }
    for n in 2 3 every; do
        cmp -s "$tmp/1.$op.txt" "$tmp/$n.$op.txt" ||
            { echo "FAIL: $op ($n) differs from one thread's:"; diff "$tmp/1.$op.txt" "$tmp/$n.$op.txt"; fail=1; }
    done
done
for v in 0 abc 3x 65; do
    expect 2 "GDRLAB_ANALYTIC_THREADS=$v" -- env GDRLAB_ANALYTIC_THREADS=$v "$gdrlab" busbw \
        -t h100-roce-clos -n 4 -b 8 -e 8 --json "$tmp/bad.json"
    has "$tmp/err" "gdrlab busbw: GDRLAB_ANALYTIC_THREADS: '$v' is not a number of threads from 1 to 64"
    one_line "$tmp/err"
    [ ! -e "$tmp/bad.json" ] || { echo "FAIL: $tmp/bad.json written for '$v'"; fail=1; }
done
exit $fail
