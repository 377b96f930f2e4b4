#!/usr/bin/env bash
# Builds everything (installing what a fresh Debian machine lacks), bundles the web app into
# build/web with a generated sample dump one click away ("Load the sample"), and serves it on
# http://127.0.0.1:${PORT:-8080}/ . build/web is a folder of static files for any static host.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
./scripts/build.sh wasm
node web/build.mjs build/web
sample=build/web/sample
if [ ! -f "$sample/index.json" ] || ! grep -q '"trend"' "$sample/index.json"; then
  rm -rf "$sample"
  mkdir -p "$sample"
  python3 scripts/gen_dump.py "$sample/target" --golden "$sample/golden" --layers 4 --hidden 256 \
    --noise 0.01 --diverge-layer 2 --overflow-layer 1 --seed 11 --manifest "$sample/manifest.json" >&2
  # A monitor run for the trend views ("Load the trend sample" runs data2db on it in the page).
  python3 scripts/gen_trend_data.py monitor "$sample/trend" --ranks 4 --steps 20 --layers 4 --seed 11 >&2
  python3 - "$sample" <<'PY'
import json, os, sys
root = sys.argv[1]
index = {side: sorted(os.path.relpath(os.path.join(d, f), os.path.join(root, side))
                      for d, _, fs in os.walk(os.path.join(root, side)) for f in fs) for side in ("target", "golden", "trend")}
json.dump(index, open(os.path.join(root, "index.json"), "w"))
PY
fi
exec python3 scripts/static_server.py build/web "${PORT:-8080}"
