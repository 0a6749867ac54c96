# SPDX-License-Identifier: MIT
# Sourced by the tests/cli/test_*.sh scripts: arguments, a scratch folder,
# and the two checks they share.   usage: . lib.sh GDRLAB SOURCE_DIR
# shellcheck shell=bash
gdrlab=$1 src=$2 fail=0 tmp=$(mktemp -d)
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
