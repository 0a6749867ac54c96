# SPDX-License-Identifier: MIT
# shellcheck shell=bash
#
# Sourced by run.sh and search.sh: their common set-up and what building any
# of the tag's files needs. Expects die().
# setup_oracle NAME    checks the tools, CUDA_HOME, $gdrlab, ENGINE_LIB and
#                      $nccl_git; makes $gdrlab absolute; sets $cuda,
#                      $cuda_def, $engine_lib and $work, a folder of NAME
#                      removed on exit (KEEP=1 keeps it)
# export_tag TAG DIR   src/ and makefiles/ of TAG into DIR, with gen/nccl.h
#                      and gen/pfn_shim.h
# tag_flags DIR        sets std, inc (array), pre (array), ld (array): the
#                      tag's compile and link flags, as its makefiles give them
# shellcheck disable=SC2154  # $gdrlab, $nccl_git, $releases, $here, $repo: the caller's

# read_releases       $releases (a comma list) into rels (array), each one a
#                      release the oracles have
read_releases() {
	local r
	IFS=, read -ra rels <<<"$releases"
	for r in "${rels[@]}"; do
		case $r in
		2.8.4 | 2.12.12 | 2.19.3 | 2.21.5 | 2.30.7) ;;
		*) die "unknown release $r (known: 2.8.4,2.12.12,2.19.3,2.21.5,2.30.7)" ;;
		esac
	done
}

# build_helper FILE EXE  FILE of this folder against the engine library into
#                      $work/EXE; exits on a failure, saying why
build_helper() {
	cc -std=gnu11 -O1 -I"$repo/engine" "$here/$1" "$engine_lib" -lyaml -lm \
		-o "$work/$2" 2>"$work/$2.log" ||
		{ cat "$work/$2.log" >&2; die "building $1 against $engine_lib failed"; }
}

# build_all FUNC FILE EXE  FUNC TAG for every release's tag at once, then
#                      build_helper FILE EXE; exits on the first failure,
#                      each said why
build_all() {
	local r p failed=0 pids=()
	for r in "${rels[@]}"; do # one tag a job: the compiles are the wait
		"$1" "v$r-1" &
		pids+=($!)
	done
	for p in "${pids[@]}"; do
		wait "$p" || failed=1 # let the others finish before cleaning up
	done
	[ "$failed" = 0 ] || exit 2
	build_helper "$2" "$3"
}

# shellcheck disable=SC2317  # called by the trap
cleanup() {
	if [ "${KEEP:-0}" = 1 ]; then echo "kept $work"; else rm -rf "$work" || true; fi
}

setup_oracle() {
	local t cudart
	for t in g++ cc python3 git; do
		command -v "$t" >/dev/null || die "$t not found (the oracles are built with g++ and cc, driven by python3, from tags git exports)"
	done
	cuda=${CUDA_HOME:-/usr/local/cuda}
	[ -f "$cuda/include/cuda_runtime.h" ] ||
		die "$cuda/include/cuda_runtime.h not found: set CUDA_HOME to a CUDA toolkit (its headers are enough)"
	[ -x "$gdrlab" ] || die "$gdrlab is not an executable (build gdrlab first: ./setup.sh)"
	gdrlab=$(cd "$(dirname "$gdrlab")" && pwd)/$(basename "$gdrlab")
	engine_lib=${ENGINE_LIB:-$(dirname "$gdrlab")/../engine/libgdrlab_engine.a}
	[ -f "$engine_lib" ] || die "$engine_lib not found: set ENGINE_LIB to the built libgdrlab_engine.a"
	git --git-dir "$nccl_git" rev-parse --git-dir >/dev/null 2>&1 || die "$nccl_git is not a git directory"
	# CUDA_MAJOR/CUDA_MINOR, which NCCL's makefiles/common.mk takes from nvcc
	# and passes to every compile; here from the headers (CUDART_VERSION
	# 13000 = 13.0).
	cudart=$(sed -n 's/^#define CUDART_VERSION *\([0-9]*\).*/\1/p' "$cuda/include/cuda_runtime_api.h")
	[ -n "$cudart" ] || die "no CUDART_VERSION in $cuda/include/cuda_runtime_api.h"
	# shellcheck disable=SC2034  # the caller's compile lines use it
	cuda_def="-DCUDA_MAJOR=$((cudart / 1000)) -DCUDA_MINOR=$((cudart % 1000 / 10))"
	work=$(mktemp -d "${TMPDIR:-/tmp}/$1.XXXXXX")
	trap cleanup EXIT
}

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
# neither tuning.cc nor the graph search calls them.
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

export_tag() {
	local tag=$1 t=$2
	mkdir -p "$t/gen"
	git --git-dir "$nccl_git" archive "$tag" src makefiles | tar -x -C "$t" ||
		die "cannot export $tag from $nccl_git (is the tag there?)"
	gen_nccl_h "$t"
	gen_pfn_shim "$t"
}

# shellcheck disable=SC2034  # the caller uses them
tag_flags() {
	local t=$1 minor
	pre=()
	ld=()
	[ -f "$t/gen/pfn_shim.h" ] && pre=(-include "$t/gen/pfn_shim.h")
	minor=$(sed -n 's/^NCCL_MINOR *:= *//p' "$t/makefiles/version.mk")
	inc=(-I"$t/gen" -I"$t/src/include" -I"$t/src/graph" -I"$cuda/include")
	if [ "$minor" -ge 28 ]; then
		# common.mk: C++17 under CUDA 13 (:89-94), -DNCCL_OS_LINUX (:26-27), the cccl
		# headers (:96-99), and the plugin headers; --gc-sections drops the unused
		# inline helpers of comm.h's headers, which need symbols of NCCL's other files.
		std=-std=c++17
		inc+=(-I"$t/src" -I"$t/src/include/plugin" -I"$cuda/include/cccl")
		pre+=(-DNCCL_OS_LINUX -ffunction-sections -fdata-sections)
		ld=("-Wl,--gc-sections")
	else
		std=-std=c++11 # these tags' common.mk
	fi
}
