#!/usr/bin/env bash
# libFuzzer runs of the readers, on the sanitizer build (build/san: clang, ASan + UBSan, the same
# build the sanitizer tests use).
#   scripts/fuzz.sh build                        configure and build build/san (what test.sh does)
#   scripts/fuzz.sh run TARGET SECONDS [flags]   run a built target (ctest's fuzz label does this)
#   scripts/fuzz.sh TARGET|all SECONDS [flags]   build, then run
# Targets: fuzz_dump_reader fuzz_rank_folder fuzz_npy fuzz_pt fuzz_yaml fuzz_stored_items fuzz_trend_dump
#          fuzz_trend_csv fuzz_trend_mapping fuzz_csv fuzz_layout
# Seeds: tests/fuzz/seeds/<target>/ (committed, small); the growing corpus stays in build/fuzz-corpus.
# A run fails when the fuzzer exits non-zero (a crash, a leak, a timeout), leaves an artifact in
# build/fuzz-artifacts/, or when a committed regression input (tests/fuzz/regressions/<target>/)
# fails again: turn every crash into such a regression.
set -euo pipefail
cd "$(dirname "$0")/.."
san="${VISPROBE_SAN_DIR:-build/san}"
all=(fuzz_dump_reader fuzz_rank_folder fuzz_npy fuzz_pt fuzz_yaml fuzz_stored_items fuzz_trend_dump fuzz_trend_csv
     fuzz_trend_mapping fuzz_csv fuzz_layout)

build() {
  command -v clang++ >/dev/null || { echo "fuzz: installing clang" >&2; DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends clang libclang-rt-14-dev >/dev/null; }
  local launcher=()
  if command -v ccache >/dev/null && [ "${VISPROBE_CCACHE:-1}" != 0 ]; then
    launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  fi
  # The release build's SQLite when there is one (test.sh builds it first): not instrumented anyway.
  [ -f build/native/libsqlite3_native.a ] && launcher+=(-DVISPROBE_SQLITE_FROM="$PWD/build/native")
  CC=clang CXX=clang++ cmake -S . -B "$san" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DVISPROBE_SANITIZE=ON \
    -DVISPROBE_JEMALLOC=OFF -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only" \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only" "${launcher[@]}" >/dev/null
  ninja -C "$san" -j "${VISPROBE_JOBS:-$(nproc)}" "$@"
}

run() {
  local t="$1" seconds="$2"
  shift 2
  local bin="$san/$t"
  [ -x "$bin" ] || { echo "fuzz: $bin is not built (scripts/fuzz.sh build)" >&2; return 1; }
  local corpus="build/fuzz-corpus/$t"
  mkdir -p "$corpus" build/fuzz-artifacts
  rm -f build/fuzz-artifacts/"$t"-*
  if [ -d "tests/fuzz/regressions/$t" ] && [ -n "$(ls -A "tests/fuzz/regressions/$t" | grep -v '^\.keep$' || true)" ]; then
    "$bin" $(ls -d "tests/fuzz/regressions/$t"/* | grep -v '/\.keep$') >/dev/null 2>&1 ||
      { echo "fuzz: a regression input of $t fails again" >&2; return 1; }
  fi
  local seeds=()
  [ -d "tests/fuzz/seeds/$t" ] && seeds+=("tests/fuzz/seeds/$t")
  # The real dumper's .pt files (read in place, never copied into the repository).
  if [ "$t" = fuzz_pt ]; then
    local real="${VISPROBE_SHARED_DIR:-../shared}/fixtures/msprobe-real-dumper"
    for d in "$real"/pt_tensor_*/step0/rank0/dump_tensor_data; do [ -d "$d" ] && seeds+=("$d"); done
  fi
  echo "== $t for ${seconds}s" >&2
  local log="build/fuzz-artifacts/$t.log" rc=0
  "$bin" -max_total_time="$seconds" -artifact_prefix=build/fuzz-artifacts/"$t"- -print_final_stats=1 \
    "$@" "$corpus" "${seeds[@]}" >"$log" 2>&1 || rc=$?
  grep -E "stat::number_of_executed_units|stat::peak_rss|ERROR|SUMMARY|Done" "$log" >&2 || true
  if [ "$rc" -ne 0 ]; then
    echo "fuzz: $t exited with status $rc (log: $log)" >&2
    tail -30 "$log" >&2
    return 1
  fi
  if ls build/fuzz-artifacts/"$t"-* >/dev/null 2>&1; then
    echo "fuzz: $t left an input in build/fuzz-artifacts" >&2
    return 1
  fi
}

case "${1:-}" in
  build) shift; build "$@" ;;
  run) shift; run "${1:?usage: scripts/fuzz.sh run TARGET SECONDS}" "${2:?usage: scripts/fuzz.sh run TARGET SECONDS}" "${@:3}" ;;
  "") echo "usage: scripts/fuzz.sh build | run TARGET SECONDS | TARGET|all SECONDS" >&2; exit 2 ;;
  *)
    target="$1"; seconds="${2:?usage: scripts/fuzz.sh TARGET SECONDS}"; shift 2
    targets=("$target"); [ "$target" = all ] && targets=("${all[@]}")
    build "${targets[@]}"
    for t in "${targets[@]}"; do run "$t" "$seconds" "$@"; done ;;
esac
