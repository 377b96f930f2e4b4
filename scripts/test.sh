#!/usr/bin/env bash
# Sets up what is missing, builds native and wasm, runs every test. CI calls this (.ci/run).
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
./scripts/setup.sh
./scripts/build.sh all
echo "== native tests" >&2
ctest --test-dir build/native --output-on-failure
if [ "${VISPROBE_SKIP_WASM:-0}" != 1 ]; then
  echo "== wasm tests (core under Node)" >&2
  NODE_PATH=/usr/share/nodejs ctest --test-dir build/wasm --output-on-failure
  echo "== parity: wasm rows == native rows" >&2
  python3 tests/parity/test_parity.py --native build/native/visprobe --wasm build/wasm/visprobe.js \
    --shared ../shared --source .
  echo "== browser: the web app in headless Chromium" >&2
  node web/build.mjs build/web
  node --test tests/browser/test_browser.mjs
fi
echo "test.sh: all tests passed in $(( $(date +%s) - start )) s" >&2
