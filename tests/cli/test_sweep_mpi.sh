#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# gdrlab sweep under mpirun: the ranks share the points and rank 0 prints
# the rows of a plain sweep (wall_s aside), once; a failing point still
# gives its row and exit 1 on every rank; more ranks than points; a bad
# sweep file is exit 2, said once. No RDMA: analytic points.
# usage: test_sweep_mpi.sh GDRLAB SOURCE_DIR
set -u
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

command -v mpirun >/dev/null ||
    { echo "skipped: mpirun not installed (openmpi-bin)"; exit 77; }
# TCP and shared memory only, as tests/emu/test_emu_run.sh: nothing else
# of Open MPI's is needed, or wanted, in a container.
mpi() {
    timeout 120 mpirun --allow-run-as-root --oversubscribe --mca pml ob1 \
        --mca btl self,vader,tcp --mca osc '^ucx' "$@"
}

# Under ASan, LeakSanitizer reports Open MPI's own leaks at every rank's
# exit (ompi_op_base_op_select, ...), and the run takes minutes.
if ldd "$gdrlab" 2>/dev/null | grep -q libasan; then
    echo "skipped: an ASan build (LeakSanitizer flags Open MPI's own leaks)"
    exit 77
fi
spread_points "$tmp/points.jsonl"
expect 0 "plain sweep" -- "$gdrlab" sweep --csv "$tmp/points.jsonl"
cp "$tmp/out" "$tmp/plain.csv"

mpi -np 3 "$gdrlab" sweep --csv "$tmp/points.jsonl" >"$tmp/out" 2>"$tmp/err"
rc=$?
if grep -q "built without MPI" "$tmp/err"; then
    echo "skipped: $(grep -m1 "built without MPI" "$tmp/err")"
    exit 77
fi
[ "$rc" = 0 ] || { echo "FAIL: mpirun -np 3: exit $rc"; cat "$tmp/err"; fail=1; }
same_rows "mpirun -np 3" "$tmp/plain.csv" "$tmp/out"

expect 0 "mpirun -np 2 -j 3" -- mpi -np 2 "$gdrlab" sweep -j 3 --csv "$tmp/points.jsonl"
same_rows "mpirun -np 2 -j 3" "$tmp/plain.csv" "$tmp/out"
expect 0 "mpirun -np 10, 7 points" -- mpi -np 10 "$gdrlab" sweep --csv "$tmp/points.jsonl"
same_rows "mpirun -np 10, 7 points" "$tmp/plain.csv" "$tmp/out"
expect 0 "mpirun -np 3 --json" -- mpi -np 3 "$gdrlab" sweep --json "$tmp/points.jsonl"
[ "$(grep -c '"point": ' "$tmp/out")" = 7 ] ||
    { echo "FAIL: --json under mpirun: not 7 rows:"; cat "$tmp/out"; fail=1; }

spread_points "$tmp/bad.jsonl" bad
expect 1 "plain sweep, a point fails" -- "$gdrlab" sweep --csv "$tmp/bad.jsonl"
cp "$tmp/out" "$tmp/plain-bad.csv"
expect 1 "mpirun -np 3, a point fails" -- mpi -np 3 "$gdrlab" sweep --csv "$tmp/bad.jsonl"
same_rows "mpirun -np 3, a point fails" "$tmp/plain-bad.csv" "$tmp/out"
has "$tmp/out" '^"gone",8,.*nope.yaml'

printf '{"topology": "a.yaml", "trace": "b.jsonl", "colour": "red"}\n' >"$tmp/key.jsonl"
expect 2 "mpirun -np 3, bad sweep file" -- mpi -np 3 "$gdrlab" sweep "$tmp/key.jsonl"
[ "$(grep -c "key.jsonl:1: colour: unknown key" "$tmp/err")" = 1 ] ||
    { echo "FAIL: bad sweep file: not said exactly once:"; cat "$tmp/err"; fail=1; }
[ ! -s "$tmp/out" ] || { echo "FAIL: bad sweep file: stdout:"; cat "$tmp/out"; fail=1; }
# A plan spreads alike: its points, labelled by their axis values, and its
# questions' answers, the same bytes as alone (--no-wall).
cat >"$tmp/plan.yaml" <<EOP
base: { topology: $src/configs/a100-pcie4-200g.yaml, trace: $src/traces/resnet50-ddp.jsonl }
axes:
  path: [direct, staged]
  nodes: 2..16 x2
questions:
  scaling: { threshold: 0.9 }
EOP
expect 0 "a plan alone" -- "$gdrlab" sweep --no-wall "$tmp/plan.yaml"
cp "$tmp/out" "$tmp/plan-alone.txt"
expect 0 "a plan over mpirun -np 3" -- mpi -np 3 "$gdrlab" sweep --no-wall "$tmp/plan.yaml"
cmp -s "$tmp/plan-alone.txt" "$tmp/out" ||
    { echo "FAIL: the plan over mpirun prints otherwise:"; diff "$tmp/plan-alone.txt" "$tmp/out" | head; fail=1; }
exit $fail
