#!/usr/bin/env bash
# Writes the sample the page loads with "Load the sample" / "Load the trend sample" into DIR
# (default build/web/sample): a generated compare pair (the golden drifts from layer 2 on, the
# target overflows in layer 1), a monitor run, and index.json listing their files.
set -euo pipefail
cd "$(dirname "$0")/.."
sample="${1:-build/web/sample}"
if [ -f "$sample/index.json" ] && grep -q '"trend"' "$sample/index.json"; then exit 0; fi
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
