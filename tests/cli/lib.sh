# SPDX-License-Identifier: MIT
# Sourced by the tests/cli/test_*.sh scripts: arguments, a scratch folder,
# the checks they share, and the spread sweep tests' points.
#   usage: . lib.sh GDRLAB SOURCE_DIR
# shellcheck shell=bash
gdrlab=$1 src=$2 fail=0 tmp=$(mktemp -d)
# The C locale for the tools the checks run: under LANG=de_DE.UTF-8 awk
# reads "2.5" as 2 and prints 0,25, and the numeric checks fail.
export LC_ALL=C
trap 'rm -rf "$tmp"' EXIT

expect() { # expect STATUS DESCRIPTION -- command...
    local want=$1 what=$2 got
    shift 3
    "$@" >"$tmp/out" 2>"$tmp/err"; got=$?
    if [ "$got" -ne "$want" ]; then
        echo "FAIL: $what: exit $got, want $want"; cat "$tmp/err"; fail=1
    fi
}
has() { grep -q -- "$2" "$1" || { echo "FAIL: '$2' not in $1:"; cat "$1"; fail=1; }; }
one_line() { [ "$(wc -l <"$1")" -eq 1 ] || { echo "FAIL: not one line:"; cat "$1"; fail=1; }; }
# bad_usage_of CMD WHAT MESSAGE -- args...: gdrlab CMD args exits 2 with
# the one line "gdrlab CMD: MESSAGE..."
bad_usage_of() {
    local cmd=$1 what=$2 msg=$3
    shift 4
    expect 2 "$what" -- "$gdrlab" "$cmd" "$@"
    has "$tmp/err" "gdrlab $cmd: $msg"
    one_line "$tmp/err"
}
# json_ok FILE: one JSON value, by tests/cli/json_valid.awk (no jq or python)
json_ok() { awk -f "$src/tests/cli/json_valid.awk" "$1" || { echo "FAIL: $1 is not JSON"; fail=1; }; }

# The spread sweep tests' points: seven analytic points on the shipped
# configs and traces (and, with "bad", an eighth whose files do not exist).
spread_points() { # spread_points FILE [bad]
    local c=$src/configs t=$src/traces
    cat >"$1" <<EOP
{"name": "p1", "topology": "$c/a100-pcie4-200g.yaml", "trace": "$t/resnet50-ddp.jsonl", "path": "staged"}
{"name": "p2", "topology": "$c/a100-pcie4-200g.yaml", "trace": "$t/resnet50-ddp.jsonl", "path": "direct", "nodes": 4}
{"name": "p3", "topology": "$c/two-socket-commodity.yaml", "trace": "$t/bert-large-ddp.jsonl", "gdr_level": "sys", "path": "direct"}
{"name": "p4", "topology": "$c/h100-pcie5-400g.yaml", "trace": "$t/llama2-7b-ddp.jsonl", "nodes": 16}
{"name": "p5", "topology": "$c/h100-pcie5-400g.yaml", "trace": "$t/llama2-7b-ddp.jsonl", "nodes": 2, "path": "staged"}
{"name": "p6", "topology": "$c/a100-pcie4-200g.yaml", "trace": "$t/bert-large-ddp.jsonl", "gdr_level": "phb"}
{"name": "p7", "topology": "$c/two-socket-commodity.yaml", "trace": "$t/resnet50-ddp.jsonl", "nodes": 8}
EOP
    [ "${2:-}" != bad ] ||
        echo '{"name": "gone", "topology": "nope.yaml", "trace": "nope.jsonl"}' >>"$1"
}
# same_rows WHAT A B: two sweep --csv outputs, equal but for wall_s (13th)
same_rows() {
    diff <(cut -d, -f1-12,14- "$2") <(cut -d, -f1-12,14- "$3") >"$tmp/diff" ||
        { echo "FAIL: $1: rows differ from a plain sweep's:"; cat "$tmp/diff"; fail=1; }
    [ "$(grep -c '^point,' "$3")" = 1 ] ||
        { echo "FAIL: $1: not exactly one report:"; cat "$3"; fail=1; }
}
