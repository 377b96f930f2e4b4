#!/usr/bin/env bash
# Idempotent set-up for a fresh Debian 12 machine: apt packages for the native and wasm
# builds, npm packages (pinned by package-lock.json) for the vendored amalgamations.
#   scripts/setup.sh serve   what building and serving the page needs (scripts/serve.sh)
#   scripts/setup.sh         everything (scripts/test.sh)
set -euo pipefail
cd "$(dirname "$0")/.."

# Two sets: what building and serving the page needs (scripts/serve.sh: `setup.sh serve`), and the
# rest for the native CLI, the tests, the sanitizers, Chromium, Slurm, the aarch64 release and its
# qemu check (scripts/test.sh: `setup.sh`, the default).
SERVE_PKGS=(cmake ninja-build emscripten libfmt-dev robin-map-dev python3)
TEST_PKGS=(g++ pkg-config dpkg-dev curl patch libsqlite3-dev catch2 libyaml-cpp-dev libjemalloc-dev
           time sqlite3 chromium clang libclang-rt-14-dev ccache slurmctld slurmd slurm-client munge procps
           g++-aarch64-linux-gnu qemu-user-static zip unzip file binutils clang-format clang-tidy)
what="${1:-all}"
APT_PKGS=("${SERVE_PKGS[@]}")
[ "$what" = serve ] || APT_PKGS+=("${TEST_PKGS[@]}")
missing=()
for p in "${APT_PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
# Node may come from Debian or from NodeSource (which bundles npm): install only what is absent.
command -v node >/dev/null || missing+=(nodejs)
command -v npm >/dev/null || missing+=(npm)
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}" >&2
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if [ ! -d node_modules/@nozbe/simdjson ] || [ ! -d node_modules/@nozbe/sqlite ] || \
   [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "setup: npm ci" >&2
  npm ci --no-audit --no-fund --loglevel=error
fi
# cpp-httplib for `visprobe serve`: Debian's source package (header-only httplib.h with Debian's
# patches; checksums checked by dpkg-source against the .dsc), unpacked into third_party/, plus
# scripts/patches/ (why each: in the patch). The binary package is a shared library tied to libssl.
httplib_dir=third_party/cpp-httplib
if [ "$what" != serve ] && [ ! -f "$httplib_dir/httplib.h" ]; then
  echo "setup: cpp-httplib from Debian's source package" >&2
  v=$(apt-cache policy libcpp-httplib-dev | awk '/Candidate:/ {print $2}')
  [ -n "$v" ] && [ "$v" != "(none)" ] || { echo "setup: no libcpp-httplib-dev in the apt lists" >&2; exit 1; }
  src=$(mktemp -d)
  pool=http://deb.debian.org/debian/pool/main/c/cpp-httplib
  for f in "cpp-httplib_${v}.dsc" "cpp-httplib_${v}.debian.tar.xz" "cpp-httplib_${v%%-*}.orig.tar.xz"; do
    curl -sSf --retry 3 -o "$src/$f" "$pool/${f//+/%2b}"
  done
  # (no Debian keyring here: dpkg-source checks the files' checksums; its signature warning is kept out)
  (cd "$src" && dpkg-source -q -x "cpp-httplib_${v}.dsc" unpacked >/dev/null 2>"$src/log") || { cat "$src/log" >&2; exit 1; }
  for p in scripts/patches/cpp-httplib-*.patch; do (cd "$src/unpacked" && patch -s -p1) < "$p"; done
  mkdir -p "$httplib_dir.tmp"
  cp "$src/unpacked/httplib.h" "$src/unpacked/LICENSE" "$httplib_dir.tmp/"
  rm -rf "$src" "$httplib_dir"
  mv "$httplib_dir.tmp" "$httplib_dir"
fi
echo "setup: ok" >&2
