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
cuda=${CUDA_HOME:-/usr/local/cuda}

command -v g++ >/dev/null || die "g++ not found (it builds NCCL's tuning.cc)"
command -v cc >/dev/null || die "cc not found (it builds engine_graphs.c)"
command -v python3 >/dev/null || die "python3 not found (it runs compare.py)"
command -v git >/dev/null || die "git not found (it exports the NCCL tags)"
[ -f "$cuda/include/cuda_runtime.h" ] ||
	die "$cuda/include/cuda_runtime.h not found: set CUDA_HOME to a CUDA toolkit (its headers are enough)"
[ -x "$gdrlab" ] || die "$gdrlab is not an executable (build gdrlab first: ./setup.sh)"
gdrlab=$(cd "$(dirname "$gdrlab")" && pwd)/$(basename "$gdrlab")
engine_lib=${ENGINE_LIB:-$(dirname "$gdrlab")/../engine/libgdrlab_engine.a}
[ -f "$engine_lib" ] || die "$engine_lib not found: set ENGINE_LIB to the built libgdrlab_engine.a"
git --git-dir "$nccl_git" rev-parse --git-dir >/dev/null 2>&1 || die "$nccl_git is not a git directory"

work=$(mktemp -d "${TMPDIR:-/tmp}/nccl-oracle.XXXXXX")
# shellcheck disable=SC2317  # called by the trap
cleanup() {
	if [ "${KEEP:-0}" = 1 ]; then echo "kept $work"; else rm -rf "$work" || true; fi
}
trap cleanup EXIT

# CUDA_MAJOR/CUDA_MINOR, which NCCL's makefiles/common.mk takes from nvcc and
# passes to every compile; here from the headers (CUDART_VERSION 13000 = 13.0).
cudart=$(sed -n 's/^#define CUDART_VERSION *\([0-9]*\).*/\1/p' "$cuda/include/cuda_runtime_api.h")
[ -n "$cudart" ] || die "no CUDART_VERSION in $cuda/include/cuda_runtime_api.h"
cuda_def="-DCUDA_MAJOR=$((cudart / 1000)) -DCUDA_MINOR=$((cudart % 1000 / 10))"

# nccl.h from src/nccl.h.in, as the tag's src/Makefile ($(INCDIR)/nccl.h rule)
# does: the numbers from makefiles/version.mk, NCCL_VERSION_CODE printed with
# that Makefile's own format (%d%d%02d up to 2.8, %d%02d%02d after).
gen_nccl_h() {
	local t=$1 major minor patch suffix fmt
	major=$(sed -n 's/^NCCL_MAJOR *:= *//p' "$t/makefiles/version.mk")
	minor=$(sed -n 's/^NCCL_MINOR *:= *//p' "$t/makefiles/version.mk")
	patch=$(sed -n 's/^NCCL_PATCH *:= *//p' "$t/makefiles/version.mk")
	suffix=$(sed -n 's/^NCCL_SUFFIX *:= *//p' "$t/makefiles/version.mk")
	# shellcheck disable=SC2016  # $(shell ...) is the Makefile's text
	fmt=$(sed -n 's/.*NCCL_VERSION := $(shell printf "\([%d0-9]*\)".*/\1/p' "$t/src/Makefile")
	if [ -z "$major" ] || [ -z "$fmt" ]; then
		die "$t: cannot read the version from makefiles/version.mk, src/Makefile"
	fi
	# shellcheck disable=SC2059  # the format is the Makefile's
	sed -e "s/\${nccl:Major}/$major/g" -e "s/\${nccl:Minor}/$minor/g" -e "s/\${nccl:Patch}/$patch/g" \
		-e "s/\${nccl:Suffix}/$suffix/g" -e "s/\${nccl:Version}/$(printf "$fmt" "$major" "$minor" "$patch")/g" \
		"$t/src/nccl.h.in" >"$t/gen/nccl.h"
}

# CUDA 13 dropped the unversioned PFN_cu* typedefs that cudawrap.h of 2.21 to
# 2.26 declares its pointers with (DECLARE_CUDA_PFN_EXTERN(sym), one argument;
# before and after, the version is named). Map each to the newest versioned
# typedef of cudaTypedefs.h, unless the CUDA headers still define it;
# tuning.cc never calls them.
gen_pfn_shim() {
	local t=$1 wrap=$1/src/include/cudawrap.h sym v syms
	[ -f "$wrap" ] || return 0
	syms=$(grep -v '#define' "$wrap" | grep -o 'DECLARE_CUDA_PFN_EXTERN([A-Za-z0-9_]*)' |
		sed 's/.*(\(.*\))/\1/') || true
	[ -n "$syms" ] || return 0
	{
		echo "#include <cuda.h>"
		echo "#include <cudaTypedefs.h>"
		for sym in $syms; do
			v=$(grep -o "PFN_${sym}_v[0-9]*" "$cuda/include/cudaTypedefs.h" | sed 's/.*_v//' | sort -n | tail -1)
			[ -n "$v" ] || continue
			echo "#ifndef PFN_$sym"
			echo "typedef PFN_${sym}_v$v PFN_$sym;"
			echo "#endif"
		done
	} >"$t/gen/pfn_shim.h"
}

# The tag's unmodified src/graph/tuning.cc and a harness, with the tag's own
# headers. -O0 builds fastest; without -ffast-math the float arithmetic is the
# same at any level (x86-64: SSE, no FMA contraction).
build_oracle() {
	local tag=$1 t=$work/$1 minor pre=() std harness ld=()
	mkdir -p "$t/gen"
	git --git-dir "$nccl_git" archive "$tag" src makefiles | tar -x -C "$t" ||
		die "cannot export $tag from $nccl_git (is the tag there?)"
	gen_nccl_h "$t"
	gen_pfn_shim "$t"
	[ -f "$t/gen/pfn_shim.h" ] && pre=(-include "$t/gen/pfn_shim.h")
	minor=$(sed -n 's/^NCCL_MINOR *:= *//p' "$t/makefiles/version.mk")
	local inc=(-I"$t/gen" -I"$t/src/include" -I"$t/src/graph" -I"$cuda/include")
	if [ "$minor" -ge 28 ]; then
		# common.mk: C++17 under CUDA 13 (:89-94), -DNCCL_OS_LINUX (:26-27), the cccl
		# headers (:96-99), and the plugin headers; --gc-sections drops the unused
		# inline helpers of comm.h's headers, which need symbols of NCCL's other files.
		std=-std=c++17
		harness=oracle30.cc
		inc+=(-I"$t/src" -I"$t/src/include/plugin" -I"$cuda/include/cccl")
		pre+=(-DNCCL_OS_LINUX -ffunction-sections -fdata-sections)
		ld=("-Wl,--gc-sections")
	else
		std=-std=c++11 # these tags' common.mk
		harness=oracle.cc
	fi
	# shellcheck disable=SC2086  # $cuda_def is two words
	{
		g++ $std -O0 $cuda_def "${pre[@]}" "${inc[@]}" -c "$t/src/graph/tuning.cc" -o "$t/tuning.o" &&
			g++ $std -O0 $cuda_def "${pre[@]}" "${inc[@]}" -c "$here/$harness" -o "$t/harness.o" &&
			g++ "${ld[@]}" -o "$work/oracle-$tag" "$t/harness.o" "$t/tuning.o" -ldl -lpthread
	} >"$t/build.log" 2>&1 || { cat "$t/build.log" >&2; die "building the oracle of $tag failed"; }
}

start=$SECONDS
IFS=, read -ra rels <<<"$releases"
for r in "${rels[@]}"; do
	case $r in
	2.8.4 | 2.12.12 | 2.19.3 | 2.21.5 | 2.30.7) ;;
	*) die "unknown release $r (known: 2.8.4,2.12.12,2.19.3,2.21.5,2.30.7)" ;;
	esac
done
pids=()
for r in "${rels[@]}"; do # one tag a job: independent, and the compiles are the wait
	build_oracle "v$r-1" &
	pids+=($!)
done
failed=0
for p in "${pids[@]}"; do
	wait "$p" || failed=1 # build_oracle said why; let the others finish before cleaning up
done
[ "$failed" = 0 ] || exit 2
cc -std=gnu11 -O1 -I"$repo/engine" "$here/engine_graphs.c" "$engine_lib" -lyaml -lm \
	-o "$work/engine-graphs" 2>"$work/engine-graphs.log" ||
	{ cat "$work/engine-graphs.log" >&2; die "building engine_graphs.c against $engine_lib failed"; }
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
