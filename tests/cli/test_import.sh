#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# gdrlab import: the command around the importers (engine/importer.h),
# whose parsing tests/unit/test_import_nccl_log.c checks: usage errors,
# all-or-nothing output, the header, and the imported trace replayed.
# usage: test_import.sh GDRLAB SOURCE_DIR
set -u
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
logs=$src/tests/data/nccl-log

bad_usage() { bad_usage_of import "$@"; } # bad_usage WHAT MESSAGE -- args...

expect 0 "help" -- "$gdrlab" import --help
has "$tmp/out" "usage: gdrlab import FORMAT FILE... -o TRACE"
has "$tmp/out" "^  nccl-log "
has "$tmp/out" "^  kineto "
has "$tmp/out" "^  chakra "
has "$tmp/out" "^  --group NAME=RANKS "
expect 0 "in the command list" -- "$gdrlab" --help
has "$tmp/out" "^  import "

bad_usage "no format" "a FORMAT is required (nccl-log, kineto, chakra)" --
bad_usage "unknown format" "unknown format 'kineto2' (nccl-log, kineto, chakra)" -- kineto2 x.log -o x
bad_usage "an option nccl-log does not take" "nccl-log takes no --dtype, --group or --world (its input says them)" -- \
    nccl-log --dtype fp32 "$logs/job-4ranks.log" -o "$tmp/t.jsonl"
bad_usage "a bad --group" "--group: '0-x': expected distinct ranks" -- chakra --group 1=0-x x.et -o x
bad_usage "a bad --dtype" "--dtype: unknown type 'fp8'" -- chakra --dtype fp8 x.et -o x
bad_usage "no file" "no input FILE" -- nccl-log -o "$tmp/t.jsonl"
bad_usage "no output" "--output is required" -- nccl-log "$logs/job-4ranks.log"
bad_usage "missing value" "-o needs a value" -- nccl-log "$logs/job-4ranks.log" -o
bad_usage "unknown option" "unknown option '--frobnicate'" -- nccl-log --frobnicate
expect 2 "a missing file" -- "$gdrlab" import nccl-log "$tmp/nope.log" -o "$tmp/t.jsonl"
has "$tmp/err" "gdrlab import: $tmp/nope.log: cannot read: No such file or directory"
one_line "$tmp/err"

# a bad log: its line, exit 2, and no output file (not even an empty one)
expect 2 "a bad log" -- "$gdrlab" import nccl-log "$logs/bad/disagree.log" -o "$tmp/t.jsonl"
has "$tmp/err" "disagree.log:4: call: AllReduce, this rank's collective 0 on communicator 0x20, disagrees"
one_line "$tmp/err"
[ ! -e "$tmp/t.jsonl" ] || { echo "FAIL: an output was written for a bad log"; fail=1; }

# the good ones: a header naming the files, then the trace, which reads
# back and replays; one file or one a rank, the same entries
expect 0 "one file" -- "$gdrlab" import nccl-log "$logs/job-4ranks.log" -o "$tmp/one.jsonl"
has "$tmp/one.jsonl" "^# made by: gdrlab import nccl-log $logs/job-4ranks.log$"
# its hosts (node0, node1: "host:pid"), for placing the ranks as they ran
has "$tmp/one.jsonl" "^# its ranks ran on 2 hosts, 2 a host: a replay places them so on a topology of 2 GPUs a node with --nodes 2$"
# a job's own line of 100 000 bytes (over the reader's 64 KiB blocks): not
# NCCL's, skipped, the same trace
awk 'NR == 4 { printf "loss %0100000d\n", 0 } { print }' "$logs/job-4ranks.log" >"$tmp/long.log"
expect 0 "a long line of the job's own" -- "$gdrlab" import nccl-log "$tmp/long.log" -o "$tmp/long.jsonl"
diff <(grep -v '^#' "$tmp/long.jsonl") <(grep -v '^#' "$tmp/one.jsonl") >/dev/null ||
    { echo "FAIL: a long line of the job's own changed the trace"; fail=1; }
# a rank's last line of a call missing (a job cut short: node1:2002's
# Broadcast, its last call on the pair): kept, and said
sed 37d "$logs/job-4ranks.log" >"$tmp/cut.log"
expect 0 "a call one rank did not log" -- "$gdrlab" import nccl-log "$tmp/cut.log" -o "$tmp/cut.jsonl"
has "$tmp/cut.jsonl" "; 1 collective logged by only some of their ranks (the first: Broadcast, $tmp/cut.log:35, 1 of 2): a job cut short"
if grep -q "logged by only some" "$tmp/one.jsonl"; then echo "FAIL: the whole log said cut short"; fail=1; fi
# its world's calls span whatever cluster a replay has: the header says the job's size
has "$tmp/one.jsonl" "^# the job ran on 4 ranks; its calls of every rank (no group) span every rank a replay's cluster has: replay on 4 ranks"
has "$tmp/one.jsonl" "^# 6 collectives$"
has "$tmp/one.jsonl" "^# NCCL's network connections: 2 sends, 2 of them GPUDirect RDMA, 1 through a PXN proxy; 2 receives, 1 GPUDirect RDMA (replay with --path auto)$"
expect 0 "a file a rank, to stdout" -- "$gdrlab" import nccl-log "$logs"/rank-*.log -o -
grep -v '^#' "$tmp/out" >"$tmp/ranks.body"
grep -v '^#' "$tmp/one.jsonl" >"$tmp/one.body"
diff "$tmp/one.body" "$tmp/ranks.body" >/dev/null ||
    { echo "FAIL: per-rank files import differently:"; diff "$tmp/one.body" "$tmp/ranks.body"; fail=1; }
[ "$(wc -l <"$tmp/one.body")" -eq 6 ] || { echo "FAIL: not 6 entries"; fail=1; }
expect 0 "replayed" -- "$gdrlab" run -t "$src/tests/data/two-gpus-one-nic.yaml" -n 2 \
    -T "$tmp/one.jsonl" --json "$tmp/run.json" -q
has "$tmp/run.json" '"op": "broadcast"'
has "$tmp/run.json" '"op": "sendrecv"'
# kineto: the 4 ranks' profiler files (one gzip), what was left out said
kt=$src/tests/data/kineto
expect 0 "kineto" -- "$gdrlab" import kineto "$kt/rank0.json" "$kt/rank1.json.gz" \
    "$kt/rank2.json" "$kt/rank3.json" -o "$tmp/k.jsonl"
has "$tmp/k.jsonl" "^# 5 collectives$"
has "$tmp/k.jsonl" "^# left out, counted on each rank that recorded them: 2 point-to-point calls and 0 broadcasts whose peers and roots the profile does not say (PyTorch records them from 2.5; from 2.2 a send's or receive's outside batch_isend_irecv)"
has "$tmp/k.jsonl" '"op": "broadcast".*"root": 3'

# calls outside every profiler step: left out, said in the header
expect 0 "kineto, calls outside the steps" -- "$gdrlab" import kineto "$kt"/outside-steps-rank*.json \
    -o "$tmp/ks.jsonl"
has "$tmp/ks.jsonl" "^# 3 collectives$"
has "$tmp/ks.jsonl" "^# 4 collectives outside every ProfilerStep span on some rank (before the first step, between two, after the last), left out$"

expect 2 "a cut gzip" -- "$gdrlab" import kineto "$kt/bad/cut.json.gz" -o "$tmp/k2.jsonl"
has "$tmp/err" "cut.json.gz:16: gzip: the stream is cut short (byte 233)"
one_line "$tmp/err"
[ ! -e "$tmp/k2.jsonl" ] || { echo "FAIL: an output was written for a bad trace"; fail=1; }
# PyTorch before 2.1: told that every call is every rank's
expect 0 "kineto, old style" -- "$gdrlab" import kineto --world 4 "$kt"/old-rank*.json -o "$tmp/ko.jsonl"
has "$tmp/ko.jsonl" "^# 3 collectives$"
expect 2 "kineto, old style, no --world" -- "$gdrlab" import kineto "$kt/old-rank0.json" -o "$tmp/ko2.jsonl"
has "$tmp/err" "old-rank0.json:12: group: nccl:all_reduce names no process group (PyTorch before 2.1): give --world N"
[ ! -e "$tmp/ko2.jsonl" ] || { echo "FAIL: an output was written for an old trace without --world"; fail=1; }
expect 0 "kineto replayed" -- "$gdrlab" run -t "$src/tests/data/two-gpus-one-nic.yaml" -n 2 \
    -T "$tmp/k.jsonl" -q
# a profile has no compute times: the iteration time says it is the calls' alone
has "$tmp/out" "^iteration time  *[0-9.]* us (no compute in the trace: until its last call ends)$"
# kineto, PyTorch 2.5's sends and receives: a two-stage pipeline replayed
expect 0 "kineto pipeline" -- "$gdrlab" import kineto "$kt"/pp-rank*.json -o "$tmp/kp.jsonl"
has "$tmp/kp.jsonl" '"op": "sendrecv", .*"src": 2, "dst": 0, "comm": "3"'
expect 0 "kineto pipeline replayed" -- "$gdrlab" run -t "$src/tests/data/round-numbers.yaml" -n 4 \
    -T "$tmp/kp.jsonl" -q
# a batch_isend_irecv: one batch of both ranks' sends, in the trace and the run's JSON and CSV
expect 0 "kineto batch" -- "$gdrlab" import kineto "$kt"/batch-rank0.json "$kt"/batch-rank1.json -o "$tmp/kb.jsonl"
has "$tmp/kb.jsonl" '"src": 1, "dst": 0, "comm": "0", "batch": [0-9]*}$'
expect 0 "kineto batch replayed" -- "$gdrlab" run -t "$src/tests/data/round-numbers.yaml" -n 2 \
    -T "$tmp/kb.jsonl" -q --json "$tmp/kb.json" --csv "$tmp/kb.csv"
has "$tmp/kb.json" '"src": 1,$'
has "$tmp/kb.json" '"batch": [0-9]*,$'
has "$tmp/kb.csv" ',1,0,[0-9][0-9]*$'
# chakra: the same run's files give the kineto importer's entries
ch=$src/tests/data/chakra
expect 0 "chakra" -- "$gdrlab" import chakra "$ch"/job.*.et -o "$tmp/ch.jsonl"
has "$tmp/ch.jsonl" "^# 4 collectives$"
has "$tmp/ch.jsonl" "^# left out, counted on each rank that recorded them: 2 point-to-point calls, 2 broadcasts, reduces, gathers and scatters (no peer or root), 4 barriers and empty calls$"
# (but for the broadcast, whose root kineto reads and Chakra does not say)
diff <(grep -v -e '^#' -e '"op": "broadcast"' "$tmp/k.jsonl") <(grep -v '^#' "$tmp/ch.jsonl") >"$tmp/diff" ||
    { echo "FAIL: chakra and kineto import the run differently:"; cat "$tmp/diff"; fail=1; }
# chakra: a bad varint (11 bytes of 0xff) names its byte; nothing written
head -c 11 /dev/zero | tr '\0' '\377' >"$tmp/bad.0.et"
expect 2 "a bad Chakra file" -- "$gdrlab" import chakra "$tmp/bad.0.et" -o "$tmp/c.jsonl"
has "$tmp/err" "bad.0.et: byte 0: length: a bad varint (more than 64 bits)"
one_line "$tmp/err"
[ ! -e "$tmp/c.jsonl" ] || { echo "FAIL: an output was written for a bad Chakra file"; fail=1; }
# a GlobalMetadata (empty) and one node, written byte by byte: id 1,
# type 7 (COMM_COLL_NODE), inputs.types "Tensor(float)", comm_type 0
# (ALL_REDUCE), comm_size 4096 (varint 80 20), no pg_name: the group is
# asked for, then given with --world
printf '\x00\x34\x08\x01\x18\x07\x42\x0f\x1a\x0dTensor(float)\x52\x0d\x0a\x09comm_type\x48\x00\x52\x0e\x0a\x09comm_size\x48\x80\x20' \
    >"$tmp/one.0.et"
expect 2 "a Chakra call without a group" -- "$gdrlab" import chakra "$tmp/one.0.et" -o "$tmp/c.jsonl"
has "$tmp/err" "one.0.et: byte 1: pg_name: missing, so the call's group is not said: give --world N"
[ ! -e "$tmp/c.jsonl" ] || { echo "FAIL: an output was written for a Chakra call without a group"; fail=1; }
expect 0 "chakra --world" -- "$gdrlab" import chakra --world 2 "$tmp/one.0.et" -o "$tmp/c.jsonl"
has "$tmp/c.jsonl" "^# no ProfilerStep nodes: one iteration; no start_time_micros: calls ready at 0, in file order$"
has "$tmp/c.jsonl" '^{"iteration": 0, "op": "allreduce", "bytes": 4096, "dtype": "fp32", "ready_us": 0}$'
expect 0 "chakra replayed" -- "$gdrlab" run -t "$src/tests/data/two-gpus-one-nic.yaml" -n 2 \
    -T "$tmp/c.jsonl" -q
exit $fail
