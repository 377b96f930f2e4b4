#!/usr/bin/env bash
# Benchmark (not a test): builds generated dumps of three sizes with -oc and prints, per input,
# the dump.json MB (both sides for compare), wall seconds, MB/s of dump.json, peak RSS
# (/usr/bin/time -v) and tb_nodes rows, for a build with -oc and a compare with -oc.
# Usage: scripts/bench.sh [small|m40|medium|c200|large|all|trend|tensor|floor [SIZE:MODE ...]]   (default all; large = one rank,
#        >= 1 GB; c200 = the comparison benchmark of issue 3: two dumps of at least 200 MB each)
#   tensor: a real-tensor compare (task tensor, 2 layers) whose 4096-element samples are tiled to
#           262,144 elements (1 MB of float32 each, about 1 GB on both sides), written twice with the
#           same data: as .npy and as .pt (torch.save); read from the page cache, three interleaved
#           runs each (and msProbe once each with MSPROBE_MIRROR set); prints MB, GB/s, peak RSS.
#   floor: how fast SQLite alone can write what the engine writes. For the medium and large builds and
#          the c200 compare, the engine's database is made, then its rows are copied into a new file
#          with the same schema, page size and cache by the sqlite3 shell built on the engine's own
#          SQLite (target vp_sqlite3): once with the indexes kept during the inserts (as the engine
#          does with threads), once with the indexes made after them. Prints each copy's seconds and
#          the MB/s of dump.json they leave as a ceiling for the engine (the time to read the source
#          rows taken off), beside the engine's own run. `floor SIZE:MODE ...` picks the runs (default
#          medium:build c200:compare large:build; m40:build and m40:compare are the pair timed
#          against msProbe).
#   trend: data2db on a generated dump run (8 ranks, 10 steps, 24 layers) and monitor run (8 ranks,
#          200 steps), native and wasm (Node), with wall, MB/s of input, peak RSS and trend rows.
# Inputs are generated once into bench-out/ (deterministic, seed 7) and reused.
set -euo pipefail
cd "$(dirname "$0")/.."
which="${1:-all}"
OUT=bench-out
mkdir -p "$OUT"
[ -x build/native/visprobe ] || ./scripts/build.sh native >/dev/null
# Wall seconds from a /usr/bin/time -v report.
wall_of() { awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$1" | awk -F: '{ if (NF==3) print $1*3600+$2*60+$3; else print $1*60+$2 }'; }

if [ "$which" = trend ]; then
  [ -f build/wasm/visprobe.js ] || ./scripts/build.sh wasm >/dev/null
  [ -d "$OUT/trend_dump" ] || python3 scripts/gen_trend_data.py dump "$OUT/trend_dump" --layers 24 --ranks 8 --steps 10 --micro 2 --seed 7 >&2
  [ -d "$OUT/trend_monitor" ] || python3 scripts/gen_trend_data.py monitor "$OUT/trend_monitor" --ranks 8 --steps 200 --layers 24 --seed 7 >&2
  printf '| input | MB | build | wall s | MB/s | peak RSS MB | trend_data rows |\n'
  printf '| --- | ---: | --- | ---: | ---: | ---: | ---: |\n'
  for kind in dump monitor; do
    dir="$OUT/trend_$kind"
    bytes=$(find "$dir" -type f \( -name dump.json -o -name '*.csv' \) -printf '%s\n' | awk '{t+=$1} END {print t}')
    for build in native wasm; do
      res="$OUT/trend_$kind.$build"
      rm -rf "$res"
      if [ "$build" = native ]; then cmd=(build/native/visprobe); else cmd=(node --no-experimental-fetch build/wasm/visprobe.js); fi
      NODE_PATH=/usr/share/nodejs /usr/bin/time -v "${cmd[@]}" data2db --data "$dir" --db "$res" --format "$kind" >"$res.log" 2>"$res.time"
      wall=$(wall_of "$res.time")
      rss=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$res.time")
      rows=$(sqlite3 "$res"/*.trend.db 'SELECT count(*) FROM trend_data')
      awk -v n="$kind" -v m="$build" -v b="$bytes" -v w="$wall" -v r="$rss" -v rows="$rows" 'BEGIN {
        mb = b / 1e6; printf "| %s | %.1f | %s | %.2f | %.1f | %.0f | %d |\n", n, mb, m, w, (w > 0 ? mb / w : 0), r / 1024, rows }'
      rm -rf "$res"
    done
  done
  exit 0
fi

if [ "$which" = tensor ]; then
  # The same tensors as .npy (MindSpore's files) and as .pt (torch.save, PyTorch's): two dumps of
  # identical data, so the two readers are timed on the same bytes, interleaved (npy, pt, npy, ...).
  for fmt in npy pt; do
    dir="$OUT/tensor_$fmt"
    [ -f "$dir/manifest.json" ] && continue
    rm -rf "$dir"
    mkdir -p "$dir"
    python3 scripts/gen_dump.py "$dir/target" --task tensor --tensor-format "$fmt" --layers 2 --seed 7 \
      --golden "$dir/golden" --noise 0.001 --diverge-layer 1 --manifest "$dir/manifest.json.tmp" >&2
    # Tile every 4096-element sample 64 times (the same values repeated: metrics are unchanged in
    # kind, the bytes to read and compare grow 64x).
    python3 - "$dir" <<'PY'
import ast, glob, os, struct, sys, zipfile
sys.path.insert(0, 'scripts')
from gen_dump import torch_pt_bytes
for p in glob.glob(os.path.join(sys.argv[1], '*', 'dump_tensor_data', '*')):
    if p.endswith('.npy'):
        b = open(p, 'rb').read()
        hl = struct.unpack('<H', b[8:10])[0]
        hdr = ast.literal_eval(b[10:10 + hl].decode('latin1'))
        if hdr['shape'] != (4096,):
            continue
        h = "{'descr': '%s', 'fortran_order': False, 'shape': (%d,), }" % (hdr['descr'], 4096 * 64)
        h += ' ' * (63 - (10 + len(h)) % 64) + '\n'
        out = b'\x93NUMPY\x01\x00' + struct.pack('<H', len(h)) + h.encode('latin1') + b[10 + hl:] * 64
    else:
        z = zipfile.ZipFile(p)
        name = z.namelist()[0].split('/')[0]
        data = z.read(name + '/data/0')
        if len(data) != 4096 * 4:
            continue
        out = torch_pt_bytes(name, data * 64, [4096 * 64])
    with open(p + '.tmp', 'wb') as f:
        f.write(out)
    os.replace(p + '.tmp', p)
PY
    mv "$dir/manifest.json.tmp" "$dir/manifest.json"
  done
  printf '| input | tensor MB | files | run | wall s | GB/s of tensor files | peak RSS MB | tb_nodes rows |\n'
  printf '| --- | ---: | ---: | --- | ---: | ---: | ---: | ---: |\n'
  # msProbe on the same pair once per format when it can run here (MSPROBE_MIRROR, torch for .pt).
  peers=(); [ -n "${MSPROBE_MIRROR:-}" ] && peers=(msprobe)
  for run in 1 2 3 "${peers[@]}"; do
    for fmt in npy pt; do
      dir="$OUT/tensor_$fmt"
      bytes=$(find "$dir" -name "*.$fmt" -printf '%s\n' | awk '{t+=$1} END {print t}')
      files=$(find "$dir" -name "*.$fmt" | wc -l)
      find "$dir" -name "*.$fmt" -exec cat {} + >/dev/null   # into the page cache
      res="$OUT/tensor.compare"
      rm -rf "$res"
      if [ "$run" = msprobe ]; then
        MSPROBE_PEER_TIMESTAMP=20260101000000 /usr/bin/time -v ../shared/reference/msprobe.sh graph_visualize \
          -tp "$dir/target" -gp "$dir/golden" -o "$res" >"$res.log" 2>"$res.time" || { tail -5 "$res.log" >&2; continue; }
      else
        /usr/bin/time -v build/native/visprobe graph_visualize -tp "$dir/target" -gp "$dir/golden" -o "$res" >"$res.log" 2>"$res.time"
      fi
      wall=$(wall_of "$res.time")
      rss=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$res.time")
      rows=$(sqlite3 "$res"/*.vis.db 'SELECT count(*) FROM tb_nodes')
      awk -v f="$fmt" -v n="$files" -v b="$bytes" -v w="$wall" -v r="$rss" -v rows="$rows" -v run="$run" 'BEGIN {
        mb = b / 1e6; printf "| .%s | %.1f | %d | %s | %.2f | %.2f | %.0f | %d |\n", f, mb, n, run, w, (w > 0 ? mb / 1000 / w : 0), r / 1024, rows }'
      rm -rf "$res"
    done
  done
  exit 0
fi

declare -A MB=([small]=10 [m40]=40 [medium]=120 [c200]=205 [large]=1100)


if [ "$which" = floor ]; then
  cmake --build build/native --target vp_sqlite3 >/dev/null
  SQ=build/native/vp_sqlite3
  printf '| input | mode | dump.json MB | tb_nodes rows | .vis.db MB | engine wall s | reading the rows s | SQLite copy, indexes during: s | MB/s ceiling | SQLite copy, indexes after: s | MB/s ceiling |\n'
  printf '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n'
  runs=("${@:2}"); [ ${#runs[@]} -gt 0 ] || runs=(medium:build c200:compare large:build)
  for job in "${runs[@]}"; do
    s=${job%%:*}; mode=${job##*:}
    [ -f "$OUT/$s/manifest.json" ] || { echo "bench-out/$s missing: run scripts/bench.sh $s first" >&2; exit 1; }
    dir="$OUT/$s"
    res="$OUT/$s.floor"
    rm -rf "$res" "$res.copy.db"
    args=(-tp "$dir/target" -o "$res" -oc)
    [ "$mode" = compare ] && args=(-tp "$dir/target" -gp "$dir/golden" -o "$res" -oc)
    bytes=$(find "$dir/target" -name dump.json -printf '%s\n' | awk '{t+=$1} END {print t}')
    [ "$mode" = compare ] && bytes=$((bytes + $(find "$dir/golden" -name dump.json -printf '%s\n' | awk '{t+=$1} END {print t}')))
    /usr/bin/time -v build/native/visprobe graph_visualize "${args[@]}" >"$res.log" 2>"$res.time" ||
      { cat "$res.time" >&2; exit 1; }
    engine=$(wall_of "$res.time")
    dbs=("$res"/*.vis.db)
    [ ${#dbs[@]} = 1 ] && [ -f "${dbs[0]}" ] || { echo "floor: expected one .vis.db in $res" >&2; exit 1; }
    db=${dbs[0]}
    rows=$($SQ "$db" 'SELECT count(*) FROM tb_nodes')
    # The engine's page cache: a quarter of the largest dump.json, 16-256 MiB (session.cc).
    big=$(find "$dir" -name dump.json -printf '%s\n' | sort -n | tail -1)
    cache=$(( big / 4096 )); [ $cache -lt 16384 ] && cache=16384; [ $cache -gt 262144 ] && cache=262144
    tables=$($SQ "$db" "SELECT sql || ';' FROM sqlite_master WHERE type = 'table'")
    indexes=$($SQ "$db" "SELECT sql || ';' FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL")
    copy="ATTACH '$db' AS o; BEGIN;"
    for t in $($SQ "$db" "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"); do
      copy="$copy INSERT INTO $t SELECT * FROM o.$t ORDER BY rowid;"
    done
    pragmas="PRAGMA page_size=65536; PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; PRAGMA cache_size=-$cache;"
    # Reading the source rows is part of each copy but not of the engine's work: timed alone (every
    # column of every row loaded) and taken off the copies, so the ceilings are on the generous side.
    # octet_length, not length: length counts a text's characters, a scan of every byte the copy
    # never makes (on the small build's rows 150 M instructions against 71 M).
    cols=$($SQ "$db" "SELECT group_concat('ifnull(octet_length(' || name || '), 0)', ' + ') FROM pragma_table_info('tb_nodes')")
    echo "SELECT sum($cols) FROM tb_nodes; SELECT sum(octet_length(stack_info)) FROM tb_stack;" |
      /usr/bin/time -v "$SQ" -bail "$db" >/dev/null 2>"$res.read.time" || { cat "$res.read.time" >&2; exit 1; }
    read_s=$(wall_of "$res.read.time")
    times=()
    for order in during after; do
      rm -f "$res.copy.db"
      if [ $order = during ]; then sql="$pragmas $tables $indexes $copy COMMIT;"
      else sql="$pragmas $tables $copy $indexes COMMIT;"; fi
      echo "$sql" | /usr/bin/time -v "$SQ" -bail "$res.copy.db" >/dev/null 2>"$res.copy.time" ||
        { cat "$res.copy.time" >&2; exit 1; }
      [ "$($SQ "$res.copy.db" 'SELECT count(*) FROM tb_nodes')" = "$rows" ] || { echo "floor: copy of $db incomplete" >&2; exit 1; }
      times+=("$(wall_of "$res.copy.time")")
    done
    dbmb=$(stat -c %s "$db")
    awk -v n="$s" -v m="$mode -oc" -v b="$bytes" -v rows="$rows" -v f="$dbmb" -v e="$engine" -v r="$read_s" -v d="${times[0]}" -v a="${times[1]}" 'BEGIN {
      mb = b / 1e6; printf "| %s | %s | %.1f | %d | %.0f | %.2f | %.2f | %.2f | %.1f | %.2f | %.1f |\n", n, m, mb, rows, f / 1e6, e, r, d, (d > r ? mb / (d - r) : 0), a, (a > r ? mb / (a - r) : 0) }'
    rm -rf "$res" "$res.copy.db" "$res.log" "$res.time" "$res.copy.time" "$res.read.time"
  done
  exit 0
fi
sizes=(small medium c200 large)
[ "$which" != all ] && sizes=("$which")

gen() {  # gen NAME MB
  local dir="$OUT/$1"
  if [ ! -f "$dir/manifest.json" ]; then
    rm -rf "$dir"
    mkdir -p "$dir"
    python3 scripts/gen_dump.py "$dir/target" --framework pytorch --level mix --task statistics \
      --target-mb "$2" --seed 7 --golden "$dir/golden" --noise 0.001 --diverge-layer 3 --overflow-layer 2 \
      --manifest "$dir/manifest.json" >&2
  fi
}

printf '| input | dump.json MB | mode | wall s | MB/s | peak RSS MB | tb_nodes rows |\n'
printf '| --- | ---: | --- | ---: | ---: | ---: | ---: |\n'
for s in "${sizes[@]}"; do
  gen "$s" "${MB[$s]}"
  dir="$OUT/$s"
  bytes=$(find "$dir/target" -name dump.json -printf '%s\n' | awk '{t+=$1} END {print t}')
  for mode in build compare; do
    res="$OUT/$s.$mode"
    rm -rf "$res"
    if [ "$mode" = build ]; then
      args=(-tp "$dir/target" -o "$res" -oc); mb_bytes=$bytes
    else
      gbytes=$(find "$dir/golden" -name dump.json -printf '%s\n' | awk '{t+=$1} END {print t}')
      args=(-tp "$dir/target" -gp "$dir/golden" -o "$res" -oc); mb_bytes=$((bytes + gbytes))
    fi
    /usr/bin/time -v build/native/visprobe graph_visualize "${args[@]}" >"$res.log" 2>"$res.time"
    wall=$(wall_of "$res.time")
    rss=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$res.time")
    rows=$(sqlite3 "$res"/*.vis.db 'SELECT count(*) FROM tb_nodes')
    awk -v n="$s" -v m="$mode -oc" -v b="$mb_bytes" -v w="$wall" -v r="$rss" -v rows="$rows" 'BEGIN {
      mb = b / 1e6; printf "| %s | %.1f | %s | %.2f | %.1f | %.0f | %d |\n", n, mb, m, w, (w > 0 ? mb / w : 0), r / 1024, rows }'
    rm -rf "$res"
  done
done
