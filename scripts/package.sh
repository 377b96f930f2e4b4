#!/usr/bin/env bash
# Release artefacts from one source tree, into dist/:
#   visprobe-<version>-linux-x86_64.tar.gz    the CLI (libstdc++, libgcc, jemalloc linked in: needs glibc
#   visprobe-<version>-linux-aarch64.tar.gz   only), the page it serves (web/), README, LICENSE, notices
#   visprobe-web-<version>.zip                the static page for any host, with visprobe.html (one file
#                                             that works opened from disk) and the sample
# <version> is `git describe --tags --always --dirty` (VISPROBE_VERSION overrides it). aarch64 is cross-
# compiled with Debian's g++-aarch64-linux-gnu, without jemalloc (glibc's malloc). Needs the wasm build
# (./scripts/build.sh wasm) for the page. Usage: scripts/package.sh [x86_64|aarch64|web ...] (default all)
set -euo pipefail
cd "$(dirname "$0")/.."
what=("$@")
[ ${#what[@]} -gt 0 ] || what=(x86_64 aarch64 web)
version="${VISPROBE_VERSION:-$(git describe --tags --always --dirty 2>/dev/null || echo 0.0.0-unknown)}"
jobs="${VISPROBE_JOBS:-$(nproc)}"
launcher=()
if command -v ccache >/dev/null && [ "${VISPROBE_CCACHE:-1}" != 0 ]; then
  launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
mkdir -p dist
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT

# The page (the same bundle as build/web) with the sample one click away.
web_bundle() {
  local out="$1"
  [ -f build/wasm/visprobe_web.wasm ] || ./scripts/build.sh wasm >&2
  VISPROBE_VERSION="$version" node web/build.mjs "$out" >&2
  rm -f "$out"/*.map
  ./scripts/make_sample.sh "$out/sample" >&2
}

docs() {
  cp README.md LICENSE THIRD_PARTY_NOTICES.md "$1/"
  cp -r docs "$1/docs"
  mkdir -p "$1/licenses"
  cp node_modules/@nozbe/simdjson/LICENSE "$1/licenses/simdjson.txt"
  cp node_modules/d3/LICENSE "$1/licenses/d3.txt"
  cp node_modules/sql.js/LICENSE "$1/licenses/sql.js.txt"
  cp node_modules/js-yaml/LICENSE "$1/licenses/js-yaml.txt"
  cp third_party/cpp-httplib/LICENSE "$1/licenses/cpp-httplib.txt"
  sed -n '/Copyright (c) 2018, Arm Limited/,/SPDX/p' core/base/pypow/pow_fma.c > "$1/licenses/musl-pow.txt"
  for deb in libfmt-dev libjemalloc-dev emscripten libstdc++6; do
    [ -f "/usr/share/doc/$deb/copyright" ] && cp "/usr/share/doc/$deb/copyright" "$1/licenses/$deb.copyright.txt"
  done
  printf 'SQLite is in the public domain: https://sqlite.org/copyright.html\n' > "$1/licenses/sqlite.txt"
}

cli() {
  local arch="$1" bin
  if [ "$arch" = x86_64 ]; then
    # The native build's objects, linked as the release (target visprobe_release: one link).
    cmake -S . -B build/native -G Ninja -DCMAKE_BUILD_TYPE=Release -DVISPROBE_VERSION_OVERRIDE="${VISPROBE_VERSION:-}" "${launcher[@]}" >/dev/null
    ninja -C build/native -j "$jobs" visprobe_release >&2
    bin=build/native/visprobe_release
  else
    command -v aarch64-linux-gnu-g++ >/dev/null ||
      { echo "package: installing g++-aarch64-linux-gnu" >&2; DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends g++-aarch64-linux-gnu >/dev/null; }
    cmake -S . -B build/release-aarch64 -G Ninja -DCMAKE_BUILD_TYPE=Release -DVISPROBE_STATIC_RUNTIME=ON \
      -DVISPROBE_VERSION_OVERRIDE="${VISPROBE_VERSION:-}" -DCMAKE_TOOLCHAIN_FILE="$PWD/cmake/aarch64-linux-gnu.cmake" \
      -DVISPROBE_JEMALLOC=OFF "${launcher[@]}" >/dev/null
    ninja -C build/release-aarch64 -j "$jobs" visprobe >&2
    bin=build/release-aarch64/visprobe
  fi
  local name="visprobe-$version-linux-$arch"
  mkdir -p "$stage/$name"
  cp "$bin" "$stage/$name/visprobe"
  "${STRIP:-$([ "$arch" = aarch64 ] && echo aarch64-linux-gnu-strip || echo strip)}" "$stage/$name/visprobe"
  web_bundle "$stage/$name/web"
  docs "$stage/$name"
  tar -C "$stage" -czf "dist/$name.tar.gz.tmp" "$name"
  mv "dist/$name.tar.gz.tmp" "dist/$name.tar.gz"
  # The newest glibc symbol version the binary needs: the oldest glibc it runs on.
  local glibc
  glibc=$(objdump -T "$stage/$name/visprobe" 2>/dev/null | grep -o 'GLIBC_[0-9.]*' | sort -uV | tail -1 || true)
  echo "package: dist/$name.tar.gz ($(du -k "dist/$name.tar.gz" | cut -f1) KiB; needs ${glibc:-glibc})" >&2
}

for w in "${what[@]}"; do
  case "$w" in
    x86_64|aarch64) cli "$w" ;;
    web)
      name="visprobe-web-$version"
      web_bundle "$stage/$name"
      docs "$stage/$name"
      rm -f "dist/$name.zip"
      (cd "$stage" && zip -qr "$OLDPWD/dist/$name.zip.tmp" "$name")
      mv "dist/$name.zip.tmp" "dist/$name.zip"
      echo "package: dist/$name.zip ($(du -k "dist/$name.zip" | cut -f1) KiB)" >&2 ;;
    *) echo "usage: scripts/package.sh [x86_64|aarch64|web ...]" >&2; exit 2 ;;
  esac
done
