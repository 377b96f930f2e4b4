#!/usr/bin/env bash
# Builds natively (build/native: the visprobe CLI and the Catch2 tests) and, unless
# VISPROBE_SKIP_WASM=1, with Emscripten (build/wasm: the same core, its tests for Node).
# Usage: scripts/build.sh [native|wasm|web|all]   (default all; web: only the page's engine module)
set -euo pipefail
cd "$(dirname "$0")/.."
what="${1:-all}"
jobs="${VISPROBE_JOBS:-$(nproc)}"
# ccache (Debian) makes repeated local builds quick; VISPROBE_CCACHE=0 builds without it.
launcher=()
if command -v ccache >/dev/null && [ "${VISPROBE_CCACHE:-1}" != 0 ]; then
  launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi

if [ "$what" = native ] || [ "$what" = all ]; then
  cmake -S . -B build/native -G Ninja -DCMAKE_BUILD_TYPE=Release "${launcher[@]}" >/dev/null
  ninja -C build/native -j "$jobs"
fi
if { [ "$what" = wasm ] || [ "$what" = web ] || [ "$what" = all ]; } && [ "${VISPROBE_SKIP_WASM:-0}" != 1 ]; then
  # Debian's emscripten needs its node modules on NODE_PATH.
  export NODE_PATH=/usr/share/nodejs
  emcmake cmake -S . -B build/wasm -G Ninja -DCMAKE_BUILD_TYPE=Release "${launcher[@]}" >/dev/null
  if [ "$what" = web ]; then ninja -C build/wasm -j "$jobs" visprobe_web; else ninja -C build/wasm -j "$jobs"; fi
fi
