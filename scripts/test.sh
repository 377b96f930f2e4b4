#!/usr/bin/env bash
# Sets up what is missing, builds the three builds and runs every test through ctest. CI calls
# this (.ci/run) on a clean clone.
#   build/native  release CLI + Catch2 tests (gcc)
#   build/san     clang ASan + UBSan: the CLI, the Catch2 tests and the libFuzzer targets
#   build/wasm    the same core under Emscripten (the page's engine, the wasm CLI, the tests for Node)
#   build/web     the bundled app the browser tests serve
# Every suite is a ctest test with a label (unit, cli, parity, browser, fuzz), registered in
# build/native: `ctest --test-dir build/native -L cli` runs one kind (README, "Checks that guard
# the product"); the tests that need the wasm build also carry the label "wasm". Running the native
# suites beside the wasm build was tried and lost (817 s against 723 s from a clean clone).
# Knobs: VISPROBE_SKIP_WASM=1 / VISPROBE_SKIP_SANITIZERS=1 / VISPROBE_SKIP_FUZZ=1 /
# VISPROBE_SKIP_SLURM=1 (not root) / VISPROBE_SKIP_AARCH64=1 leave a build
# and its tests out; VISPROBE_FUZZ_SECONDS (default 10) per fuzz target; VISPROBE_CCACHE=0 builds
# without ccache (a clean clone on a new machine has no cache either way).
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
stage_start=$start
times=()
stage() {
  local now; now=$(date +%s)
  times+=("$1 $((now - stage_start)) s")
  stage_start=$now
}
./scripts/setup.sh
stage setup
./scripts/build.sh native
stage "build native"
exclude=()
if [ "${VISPROBE_SKIP_SANITIZERS:-0}" != 1 ]; then
  ./scripts/fuzz.sh build
  stage "build san (ASan + UBSan + fuzz targets)"
else
  exclude+=(_san fuzz_)
fi
[ "${VISPROBE_SKIP_FUZZ:-0}" = 1 ] && exclude+=(fuzz_)
# The Slurm test starts slurmctld / slurmd / munged and needs root (CI is root).
[ "${VISPROBE_SKIP_SLURM:-0}" = 1 ] && exclude+=('^slurm$')
if [ "${VISPROBE_SKIP_WASM:-0}" != 1 ]; then
  ./scripts/build.sh wasm
  node web/build.mjs build/web
  stage "build wasm + web"
  # The release artefacts the package tests unpack (x86_64: one link; aarch64: a cross build,
  # left out with VISPROBE_SKIP_AARCH64=1, and its qemu test with it).
  if [ "${VISPROBE_SKIP_AARCH64:-0}" = 1 ]; then
    ./scripts/package.sh x86_64 web
    exclude+=('^package_aarch64$')
  else
    ./scripts/package.sh x86_64 aarch64 web
  fi
  stage "package (x86_64, aarch64 cross, web zip)"
else
  exclude+=(_wasm parity browser_ '^package')
fi
cmake -S . -B build/native -DVISPROBE_FUZZ_SECONDS="${VISPROBE_FUZZ_SECONDS:-10}" >/dev/null
# One more test than cores: the browser tests (one at a time) wait on Chromium much of the time.
args=(--test-dir build/native --output-on-failure -j "${VISPROBE_TEST_JOBS:-$(( $(nproc) + 1 ))}")
if [ ${#exclude[@]} -gt 0 ]; then
  args+=(-E "$(IFS='|'; echo "${exclude[*]}")")
fi
ctest "${args[@]}"
stage "ctest (unit, cli, parity, browser, fuzz)"
echo "test.sh stages: $(IFS=';'; echo "${times[*]}")" >&2
echo "test.sh: all tests passed in $(( $(date +%s) - start )) s" >&2
