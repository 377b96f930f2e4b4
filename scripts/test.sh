#!/usr/bin/env bash
# Sets up what is missing, builds native and wasm, runs every test. CI calls this (.ci/run).
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
./scripts/setup.sh
./scripts/build.sh all
echo "== native tests" >&2
ctest --test-dir build/native --output-on-failure
python3 tests/cli/test_trend_cli.py --visprobe build/native/visprobe --shared ../shared
python3 tests/cli/test_plot_cli.py --visprobe build/native/visprobe
python3 tests/cli/test_merge_cli.py --visprobe build/native/visprobe --source .
if [ "${VISPROBE_SKIP_SANITIZERS:-0}" != 1 ]; then
  echo "== native tests under AddressSanitizer + UndefinedBehaviorSanitizer" >&2
  cmake -S . -B build/asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DVISPROBE_JEMALLOC=OFF \
    -DCMAKE_CXX_FLAGS="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined" \
    -DCMAKE_C_FLAGS="-O1 -g -fsanitize=address,undefined" -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" >/dev/null
  ninja -C build/asan -j "${VISPROBE_JOBS:-$(nproc)}" visprobe core_tests
  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 ./build/asan/core_tests
  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
    python3 tests/cli/test_cli.py --visprobe build/asan/visprobe --shared ../shared --source .
  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
    python3 tests/cli/test_malformed.py --visprobe build/asan/visprobe --source .
fi
if [ "${VISPROBE_SKIP_WASM:-0}" != 1 ]; then
  echo "== wasm tests (core under Node)" >&2
  NODE_PATH=/usr/share/nodejs ctest --test-dir build/wasm --output-on-failure
  echo "== parity: wasm rows == native rows" >&2
  python3 tests/parity/test_parity.py --native build/native/visprobe --wasm build/wasm/visprobe.js \
    --shared ../shared --source .
  echo "== malformed corpus through the wasm CLI" >&2
  python3 tests/cli/test_malformed.py --visprobe build/native/visprobe --wasm build/wasm/visprobe.js --source .
  echo "== browser: the web app in headless Chromium" >&2
  node web/build.mjs build/web
  node --test tests/browser/test_browser.mjs
  node --test tests/browser/test_graph.mjs
  node --test tests/browser/test_trend.mjs
  node --test tests/browser/test_trend_ab.mjs
  node --test tests/browser/test_beyond.mjs
  node --test tests/browser/test_hostile.mjs
fi
if [ "${VISPROBE_SKIP_FUZZ:-0}" != 1 ]; then
  echo "== short libFuzzer runs of every reader" >&2
  ./scripts/fuzz.sh all "${VISPROBE_FUZZ_SECONDS:-10}"
fi
echo "test.sh: all tests passed in $(( $(date +%s) - start )) s" >&2
