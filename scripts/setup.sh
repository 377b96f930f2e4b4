#!/usr/bin/env bash
# Idempotent set-up for a fresh Debian 12 machine: apt packages for the native and wasm
# builds, npm packages (pinned by package-lock.json) for the vendored amalgamations.
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PKGS=(cmake ninja-build g++ pkg-config libsqlite3-dev catch2 libyaml-cpp-dev libfmt-dev libjemalloc-dev robin-map-dev emscripten
          python3 time sqlite3 chromium clang libclang-rt-14-dev ccache
          slurmctld slurmd slurm-client munge procps)
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
echo "setup: ok" >&2
