#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# NCCL's own tuning.cc as an oracle for gdrlab's tuner (README.md).
#   tools/nccl-oracle/run.sh [--quick] GDRLAB NCCL_GIT [RELEASES]
# GDRLAB    the built gdrlab binary (build/cli/gdrlab)
# NCCL_GIT  a git directory of NVIDIA/nccl with the release tags (bare is fine)
# RELEASES  comma list of 2.8.4,2.12.12,2.19.3,2.21.5,2.30.7 (default: all)
# Environment: CUDA_HOME (/usr/local/cuda), TH (1e-6), QUICK=1 (as --quick),
# KEEP=1 (keep the work folder), DETAILS (a file for every finding),
# ENGINE_LIB (libgdrlab_engine.a; default beside GDRLAB: ../engine/),
# FACTOR (size factor, 4), JOBS (cases run at once; default the CPUs).
# Exit: 0 all agree, 1 a difference, 2 a missing tool or bad argument.
set -euo pipefail

die() { echo "nccl-oracle: $*" >&2; exit 2; }

quick=${QUICK:-0}
args=()
for a in "$@"; do
	case $a in
	--quick) quick=1 ;;
	-h | --help) sed -n '4,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) args+=("$a") ;;
	esac
done
if [ ${#args[@]} -lt 2 ] || [ ${#args[@]} -gt 3 ]; then
	die "usage: $0 [--quick] GDRLAB NCCL_GIT [RELEASES]"
fi
gdrlab=${args[0]}
nccl_git=${args[1]}
releases=${args[2]:-2.8.4,2.12.12,2.19.3,2.21.5,2.30.7}

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)

# shellcheck source-path=SCRIPTDIR source=common.sh
. "$here/common.sh"
setup_oracle nccl-oracle

# The tag's unmodified src/graph/tuning.cc and a harness, with the tag's own
# headers. -O0 builds fastest; without -ffast-math the float arithmetic is the
# same at any level (x86-64: SSE, no FMA contraction).
# shellcheck disable=SC2317  # called by build_all
build_oracle() {
	local tag=$1 t=$work/$1 std harness inc pre ld
	export_tag "$tag" "$t"
	tag_flags "$t"
	harness=oracle.cc
	[ "$std" = -std=c++17 ] && harness=oracle30.cc # 2.28 and later: another tuning.cc interface
	# shellcheck disable=SC2086  # $cuda_def is two words
	{
		g++ $std -O0 $cuda_def "${pre[@]}" "${inc[@]}" -c "$t/src/graph/tuning.cc" -o "$t/tuning.o" &&
			g++ $std -O0 $cuda_def "${pre[@]}" "${inc[@]}" -c "$here/$harness" -o "$t/harness.o" &&
			g++ "${ld[@]}" -o "$work/oracle-$tag" "$t/harness.o" "$t/tuning.o" -ldl -lpthread
	} >"$t/build.log" 2>&1 || { cat "$t/build.log" >&2; die "building the oracle of $tag failed"; }
}

start=$SECONDS
read_releases
build_all build_oracle engine_graphs.c engine-graphs
echo "built ${#rels[@]} oracles in $((SECONDS - start)) s ($work)"

opts=()
[ "$quick" = 1 ] && opts+=(--quick)
[ -n "${JOBS:-}" ] && opts+=(--jobs "$JOBS")
[ -n "${FACTOR:-}" ] && opts+=(--factor "$FACTOR")
if [ -n "${DETAILS:-}" ]; then
	opts+=(--details "$DETAILS")
elif [ "${KEEP:-0}" = 1 ]; then
	opts+=(--details "$work/details.txt")
fi
rc=0
python3 "$here/compare.py" --gdrlab "$gdrlab" --oracles "$work" --engine-graphs "$work/engine-graphs" \
	--repo "$repo" --releases "$releases" --th "${TH:-1e-6}" "${opts[@]}" || rc=$?
echo "time: $((SECONDS - start)) s"
exit $rc
