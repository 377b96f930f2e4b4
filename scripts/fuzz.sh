#!/usr/bin/env bash
# Runs one libFuzzer target for a number of seconds:  scripts/fuzz.sh TARGET SECONDS [extra libFuzzer flags]
# Targets: fuzz_dump_reader fuzz_rank_folder fuzz_npy fuzz_yaml fuzz_stored_items fuzz_trend_dump fuzz_trend_csv fuzz_trend_mapping fuzz_csv fuzz_layout (or "all")
# Seeds: tests/fuzz/seeds/<target>/ (committed, small); the growing corpus stays in build/fuzz-corpus.
# A crash leaves its input in build/fuzz-artifacts/ and fails the run: turn it into a regression
# test (tests/fuzz/regressions/<target>/ are replayed on every run).
set -euo pipefail
cd "$(dirname "$0")/.."
target="${1:?usage: scripts/fuzz.sh TARGET SECONDS}"
seconds="${2:?usage: scripts/fuzz.sh TARGET SECONDS}"
shift 2
command -v clang++ >/dev/null || { echo "fuzz: installing clang" >&2; DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends clang libclang-rt-14-dev >/dev/null; }
flags="-O1 -g -fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined"
CC=clang CXX=clang++ cmake -S . -B build/fuzz -G Ninja -DCMAKE_BUILD_TYPE=Debug -DVISPROBE_FUZZ=ON -DVISPROBE_JEMALLOC=OFF \
  -DCMAKE_C_FLAGS="$flags" -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" >/dev/null
targets=("$target")
[ "$target" = all ] && targets=(fuzz_dump_reader fuzz_rank_folder fuzz_npy fuzz_yaml fuzz_stored_items fuzz_trend_dump fuzz_trend_csv fuzz_trend_mapping fuzz_csv fuzz_layout)
ninja -C build/fuzz "${targets[@]}" >/dev/null
for t in "${targets[@]}"; do
  corpus="build/fuzz-corpus/$t"
  mkdir -p "$corpus" build/fuzz-artifacts
  seeds=(); [ -d "tests/fuzz/seeds/$t" ] && seeds+=("tests/fuzz/seeds/$t")
  if [ -d "tests/fuzz/regressions/$t" ] && [ -n "$(ls -A "tests/fuzz/regressions/$t")" ]; then
    "build/fuzz/$t" "tests/fuzz/regressions/$t"/* >/dev/null 2>&1 || { echo "fuzz: regression of $t fails" >&2; exit 1; }
  fi
  echo "== $t for ${seconds}s" >&2
  "build/fuzz/$t" -max_total_time="$seconds" -artifact_prefix=build/fuzz-artifacts/"$t"- -print_final_stats=1 \
    "$@" "$corpus" "${seeds[@]}" 2>&1 | grep -E "stat::number_of_executed_units|stat::peak_rss|ERROR|SUMMARY|crash-|Done" || true
  ls build/fuzz-artifacts/"$t"-* >/dev/null 2>&1 && { echo "fuzz: $t found a crash (build/fuzz-artifacts)" >&2; exit 1; }
done
exit 0
