#!/usr/bin/env bash
# Builds the page's engine (installing only what that needs on a fresh Debian machine: no Chromium,
# Slurm or sanitizer toolchain; scripts/test.sh installs those), bundles the web app into
# build/web with a generated sample dump one click away ("Load the sample"), and serves it on
# http://127.0.0.1:${PORT:-8080}/ . build/web is a folder of static files for any static host.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh serve
./scripts/build.sh web
node web/build.mjs build/web
./scripts/make_sample.sh build/web/sample
exec python3 scripts/static_server.py build/web "${PORT:-8080}"
