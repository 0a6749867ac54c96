#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# One entry point for a fresh Debian 12 machine:
#
#   ./setup.sh run    install what is missing, build, run the default scenario
#   ./setup.sh test   install what is missing, build, run the whole test suite:
#                     unit/CLI/scenario tests with -Werror, the unit tests again
#                     under ASan+UBSan, and each libFuzzer target for a while
#   ./setup.sh deps   only install the Debian packages
#   ./setup.sh build  only build (build/)
#
# Packages come from Debian (apt-get, with sudo when not root). Environment:
#   GDRLAB_FUZZ_SECONDS  seconds per fuzz target in 'test' (default 30)
#   JOBS                 parallel build jobs (default: nproc)
set -euo pipefail

cd "$(dirname "$0")"
JOBS=${JOBS:-$(nproc)}
FUZZ_SECONDS=${GDRLAB_FUZZ_SECONDS:-30}

# What the build and the tests need. clang and libclang-rt-14-dev are for the
# libFuzzer targets (gcc has no libFuzzer; clang only recommends the runtime).
# The emu backend and its SoftRoCE VM harness need rdma-core, Open MPI and
# qemu (the list of emu/vm/deps; ibverbs-providers must be named because
# libibverbs1 only recommends it). Slurm's daemons and client are for the
# srun test, which starts a one-node cluster inside the VM guest. zlib
# reads gzip profiler traces (gdrlab import kineto). protobuf-c reads Chakra
# execution traces (gdrlab import chakra; protoc-c compiles its schema).
PACKAGES=(build-essential cmake pkg-config libyaml-dev libjansson-dev zlib1g-dev
          protobuf-c-compiler libprotobuf-c-dev
          libcriterion-dev clang libclang-rt-14-dev libsimgrid-dev
          libibverbs-dev librdmacm-dev ibverbs-providers rdma-core
          ibverbs-utils rdmacm-utils perftest openmpi-bin libopenmpi-dev
          qemu-system-x86 busybox-static cpio kmod xz-utils iproute2
          valgrind slurmctld slurmd slurm-client)

say() { printf '== %s\n' "$*" >&2; }

install_deps() {
    local missing=() p sudo=()
    for p in "${PACKAGES[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
            missing+=("$p")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    if [ "$(id -u)" -ne 0 ]; then
        command -v sudo >/dev/null || { echo "setup.sh: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
        sudo=(sudo)
    fi
    say "installing ${missing[*]}"
    "${sudo[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq \
        --no-install-recommends "${missing[@]}" >/dev/null
}

# build DIR [cmake options...]
build() {
    local dir=$1
    shift
    say "building in $dir"
    cmake -S . -B "$dir" -DGDRLAB_WERROR=ON "$@" >/dev/null
    cmake --build "$dir" -j "$JOBS" >/dev/null
}

run_tests() {
    build build
    say "unit, CLI and scenario tests"
    ctest --test-dir build --output-on-failure -j "$JOBS"

    build build-asan -DGDRLAB_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug
    say "unit tests under ASan+UBSan"
    ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
        ctest --test-dir build-asan --output-on-failure -j "$JOBS" -L unit

    CC=clang build build-fuzz -DGDRLAB_FUZZ=ON -DGDRLAB_TESTS=OFF \
        -DGDRLAB_FUZZ_SECONDS="$FUZZ_SECONDS"
    say "fuzzing each reader for ${FUZZ_SECONDS} s"
    ctest --test-dir build-fuzz --output-on-failure -j "$JOBS" -L fuzz
}

case "${1:-}" in
run)
    install_deps
    build build
    shift
    exec ./build/cli/gdrlab "$@"
    ;;
test)
    install_deps
    run_tests
    ;;
deps) install_deps ;;
build)
    install_deps
    build build
    ;;
*)
    sed -n '3,17p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
    ;;
esac
