#!/usr/bin/env bash
# Runs a visprobe command sharded over a Slurm job array, then gathers the parts.
#
#   scripts/slurm/visprobe_array.sh -n N -o OUT [--visprobe BIN] [--sbatch "ARGS"] [--no-wait] -- \
#       graph_visualize -tp TARGET [-gp GOLDEN] [other graph_visualize flags]
#   scripts/slurm/visprobe_array.sh -n N -o OUT -- data2db --data DATA [other data2db flags]
#
# Submits `sbatch --array=0-(N-1)`: task I runs the command with --shard I/N and writes its part into
# OUT/parts/shard_I (its -o / --db); then a gather job (--dependency=afterok on the array) writes
# the one database into OUT, as the one-process run would. The flags after -- are visprobe's,
# without -o / --db (the script sets them). Logs: OUT/logs/shard_I.log, OUT/logs/gather.log.
# --sbatch passes options to both submissions (e.g. "--partition=cpu --time=60 --cpus-per-task=8").
# Waits for the gather by default, polling squeue / scontrol (sbatch --wait is slow), and exits 1
# naming the failed shard and its log when any shard fails (the gather job is then cancelled:
# the cluster needs DependencyParameters=kill_invalid_depend, or it stays pending and this script
# cancels it). --no-wait prints the job ids and returns.
# All nodes must see OUT and the inputs at the same paths (a shared file system); nothing else is
# shared: each shard plans the whole run itself and takes its units.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
n="" out="" bin="$here/../../build/native/visprobe" extra="" wait=1
while [ $# -gt 0 ]; do
  case "$1" in
    -n) n="$2"; shift 2 ;;
    -o) out="$2"; shift 2 ;;
    --visprobe) bin="$2"; shift 2 ;;
    --sbatch) extra="$2"; shift 2 ;;
    --no-wait) wait=0; shift ;;
    --) shift; break ;;
    -h|--help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "visprobe_array: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done
[ -n "$n" ] && [ -n "$out" ] && [ $# -ge 1 ] || { echo "visprobe_array: usage: $0 -n N -o OUT -- COMMAND ARGS... (see --help)" >&2; exit 2; }
[[ "$n" =~ ^[1-9][0-9]*$ ]] || { echo "visprobe_array: -n must be a positive number of shards, not '$n'" >&2; exit 2; }
case "$1" in
  graph_visualize) oflag=-o ;;
  data2db) oflag=--db ;;
  *) echo "visprobe_array: the command must be graph_visualize or data2db, not '$1'" >&2; exit 2 ;;
esac
for a in "$@"; do
  case "$a" in -o|--output_path|--output_path=*|--db|--db=*|--shard|--shard=*)
    echo "visprobe_array: leave $a to the script (it gives every shard its own folder under -o OUT)" >&2; exit 2 ;; esac
done
command -v sbatch >/dev/null || { echo "visprobe_array: sbatch not found: run on a Slurm login node" >&2; exit 1; }
[ -x "$bin" ] || { echo "visprobe_array: $bin is not an executable visprobe (build it, or give --visprobe)" >&2; exit 1; }
bin="$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")"
mkdir -p "$out/logs" "$out/parts"
out="$(cd "$out" && pwd)"
if compgen -G "$out/parts/shard_*" >/dev/null; then
  echo "visprobe_array: $out/parts already holds parts of a run: use a new -o folder" >&2; exit 1
fi

cat > "$out/logs/shard.sbatch" <<SH
#!/usr/bin/env bash
# visprobe shard \$SLURM_ARRAY_TASK_ID of $n (scripts/slurm/visprobe_array.sh)
exec "$bin" "\$@" $oflag "$out/parts/shard_\$SLURM_ARRAY_TASK_ID" --shard "\$SLURM_ARRAY_TASK_ID/$n"
SH
cat > "$out/logs/gather.sbatch" <<SH
#!/usr/bin/env bash
# visprobe gather of the $n parts (scripts/slurm/visprobe_array.sh)
shopt -s nullglob
exec "$bin" gather -o "$out" "$out"/parts/shard_*/*.part-*
SH
# shellcheck disable=SC2086
array=$(sbatch --parsable --array="0-$((n - 1))" --job-name=visprobe-shard --output="$out/logs/shard_%a.log" \
        $extra "$out/logs/shard.sbatch" "$@")
array="${array%%;*}"
# shellcheck disable=SC2086
gather=$(sbatch --parsable --dependency="afterok:$array" --kill-on-invalid-dep=yes --job-name=visprobe-gather \
         --output="$out/logs/gather.log" $extra "$out/logs/gather.sbatch")
gather="${gather%%;*}"
echo "visprobe_array: shards: job $array (array 0-$((n - 1))), gather: job $gather; logs in $out/logs" >&2
[ "$wait" = 1 ] || { echo "$array $gather"; exit 0; }

# Job states from scontrol (sacct needs accounting): one line per array task.
states() { scontrol -o show job "$1" 2>/dev/null | sed -n 's/.*ArrayTaskId=\([0-9]*\).*JobState=\([A-Z_]*\).*ExitCode=\([0-9:]*\).*/\1 \2 \3/p; s/^JobId=[0-9]* JobName=visprobe-gather.*JobState=\([A-Z_]*\).*ExitCode=\([0-9:]*\).*/gather \1 \2/p'; }
failed=""
while :; do
  shard_states="$(states "$array")"
  failed="$(echo "$shard_states" | awk '$2 ~ /FAILED|CANCELLED|TIMEOUT|NODE_FAIL|OUT_OF_MEMORY|BOOT_FAIL|DEADLINE/ {print $1 " " $2 " " $3}')"
  g="$(states "$gather" | awk '{print $2}')"
  if [ -n "$failed" ]; then break; fi
  case "$g" in COMPLETED|FAILED|CANCELLED|TIMEOUT|NODE_FAIL|OUT_OF_MEMORY) break ;; esac
  sleep 0.5
done
if [ -n "$failed" ]; then
  while read -r task state code; do
    echo "visprobe_array: shard $task of $n $state (exit $code); its log, $out/logs/shard_$task.log, ends:" >&2
    tail -n 5 "$out/logs/shard_$task.log" >&2 2>/dev/null || true
  done <<< "$failed"
  # With kill_invalid_depend the gather is already gone; without it, it would stay pending forever.
  scancel "$gather" 2>/dev/null || true
  echo "visprobe_array: the run failed: no gathered database (fix the shard and run again)" >&2
  exit 1
fi
if [ "$g" != COMPLETED ]; then
  echo "visprobe_array: the gather job $g; its log, $out/logs/gather.log, ends:" >&2
  tail -n 5 "$out/logs/gather.log" >&2 2>/dev/null || true
  exit 1
fi
db="$(ls -t "$out"/*.db 2>/dev/null | head -1)"
echo "visprobe_array: gathered into $db" >&2
echo "$db"
