#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# One entry point for a fresh Debian 12 machine:
#
#   ./setup.sh run    install what running needs, build, run the default scenario
#   ./setup.sh test   install what the tests need too, build, run the whole suite:
#                     unit/CLI/scenario tests with -Werror, the unit and CLI tests again
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

# What running needs (`./setup.sh run`): the compiler and the libraries
# the build requires (YAML, JSON, zlib for gzip profiler traces,
# protobuf-c for Chakra traces, protoc-c compiling its schema), SimGrid for
# the model backend and jemalloc, which takes a third off its runs
# (SimGrid allocates an activity a slice), rdma-core's headers for the
# emu backend (the build leaves out what it cannot find), and gnuplot,
# which draws the charts of `gdrlab plot` and `gdrlab report`. No VM, no
# Slurm, no browser.
RUN_PACKAGES=(build-essential cmake pkg-config libyaml-dev libjansson-dev zlib1g-dev
              protobuf-c-compiler libprotobuf-c-dev libsimgrid-dev libjemalloc-dev
              libibverbs-dev librdmacm-dev gnuplot-nox)
# What the tests add (`./setup.sh test`). Criterion runs the unit tests;
# clang and libclang-rt-14-dev are for the libFuzzer targets (gcc has no
# libFuzzer; clang only recommends the runtime). The emu backend's
# SoftRoCE VM harness needs rdma-core, Open MPI and qemu (the list of
# emu/vm/deps; ibverbs-providers must be named because libibverbs1 only
# recommends it). Slurm's daemons and client are for the srun test, which
# starts a one-node cluster inside the VM guest; valgrind checks the fault
# paths for leaks; perftest is the emu benchmark's yardstick; Chromium
# opens `gdrlab report`'s page headless, as a person's browser would.
# python3 reads the run's JSON in tests/emu/test_emu_fabric.sh: only
# libsimgrid-dev's dependencies bring it, so it is named.
TEST_PACKAGES=(libcriterion-dev clang libclang-rt-14-dev chromium python3
               ibverbs-providers rdma-core ibverbs-utils rdmacm-utils perftest
               openmpi-bin libopenmpi-dev
               qemu-system-x86 busybox-static cpio kmod xz-utils iproute2
               valgrind slurmctld slurmd slurm-client)

say() { printf '== %s\n' "$*" >&2; }

install_deps() { # install_deps PACKAGE...: those not installed yet
    local missing=() p sudo=()
    for p in "$@"; do
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
    # DEBIAN_FRONTEND through env, not before sudo: sudo's env_reset drops
    # it, and a debconf question (libc6's restart-services, when libc6-dev
    # upgrades libc6) then waits unseen behind >/dev/null.
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
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
    build build -DGDRLAB_TESTS=ON # (a run set-up may have left them off)
    say "unit, CLI and scenario tests"
    ctest --test-dir build --output-on-failure -j "$JOBS"

    build build-asan -DGDRLAB_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug
    # the command-line tests too: they drive the sanitized gdrlab itself
    # (the command's own code: sweep plans, plots, imports)
    say "unit and CLI tests under ASan+UBSan"
    ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
        ctest --test-dir build-asan --output-on-failure -j "$JOBS" -L 'unit|cli'

    CC=clang build build-fuzz -DGDRLAB_FUZZ=ON -DGDRLAB_TESTS=OFF \
        -DGDRLAB_FUZZ_SECONDS="$FUZZ_SECONDS"
    say "fuzzing each reader for ${FUZZ_SECONDS} s"
    ctest --test-dir build-fuzz --output-on-failure -j "$JOBS" -L fuzz
}

case "${1:-}" in
run)
    install_deps "${RUN_PACKAGES[@]}"
    # no tests to build: Criterion may not be there
    build build -DGDRLAB_TESTS=OFF
    shift
    exec ./build/cli/gdrlab "$@"
    ;;
test)
    install_deps "${RUN_PACKAGES[@]}" "${TEST_PACKAGES[@]}"
    run_tests
    ;;
deps) install_deps "${RUN_PACKAGES[@]}" "${TEST_PACKAGES[@]}" ;;
build)
    install_deps "${RUN_PACKAGES[@]}" "${TEST_PACKAGES[@]}"
    build build -DGDRLAB_TESTS=ON
    ;;
*)
    sed -n '3,17p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
    ;;
esac
