#!/usr/bin/env bash
# Sets up what is missing, builds the three builds and runs every test through ctest. CI calls
# this (.ci/run) on a clean clone.
#   build/native  release CLI + Catch2 tests (gcc)
#   build/san     clang ASan + UBSan: the CLI, the Catch2 tests and the libFuzzer targets
#   build/wasm    the same core under Emscripten (the page's engine, the wasm CLI, the tests for Node)
#   build/web     the bundled app the browser tests serve
# Every suite is a ctest test with a label (unit, cli, parity, browser, fuzz; those that need the
# wasm build also carry "wasm"), registered in build/native: `ctest --test-dir build/native -L cli`
# runs one kind (README, "Checks that guard the product"). The native and sanitizer suites run
# beside the wasm build (its links leave a core idle much of the time), the wasm ones after it.
# Knobs: VISPROBE_SKIP_WASM=1 / VISPROBE_SKIP_SANITIZERS=1 / VISPROBE_SKIP_FUZZ=1 leave a build
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
cmake -S . -B build/native -DVISPROBE_FUZZ_SECONDS="${VISPROBE_FUZZ_SECONDS:-10}" >/dev/null
jobs=$(nproc)
base=(--test-dir build/native --output-on-failure)
if [ ${#exclude[@]} -gt 0 ]; then
  base+=(-E "$(IFS='|'; echo "${exclude[*]}")")
fi
# The suites that need no wasm build, beside it (one at a time: the build has the cores).
log=build/native/ctest_native.log
ctest "${base[@]}" -LE wasm -j 1 >"$log" 2>&1 &
native_tests=$!
wasm_status=0
if [ "${VISPROBE_SKIP_WASM:-0}" != 1 ]; then
  ./scripts/build.sh wasm && node web/build.mjs build/web || wasm_status=$?
fi
stage "build wasm + web (native and sanitizer suites beside it)"
native_status=0
wait "$native_tests" || native_status=$?
cat "$log"
[ "$wasm_status" -eq 0 ] || { echo "test.sh: the wasm build failed" >&2; exit 1; }
[ "$native_status" -eq 0 ] || { echo "test.sh: native / sanitizer suites failed (above)" >&2; exit 1; }
stage "rest of the native and sanitizer suites"
if [ "${VISPROBE_SKIP_WASM:-0}" != 1 ]; then
  # One more test than cores: the browser tests (one at a time) wait on Chromium much of the time.
  ctest "${base[@]}" -L wasm -j "${VISPROBE_TEST_JOBS:-$((jobs + 1))}"
  stage "wasm suites (unit under Node, parity, browser)"
fi
echo "test.sh stages: $(IFS=';'; echo "${times[*]}")" >&2
echo "test.sh: all tests passed in $(( $(date +%s) - start )) s" >&2
