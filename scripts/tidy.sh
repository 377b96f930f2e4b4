#!/usr/bin/env bash
# The C++ checks beyond the format, for core/ (issue 47; the ctest core_tidy): clang-tidy with the
# repository's .clang-tidy (no function over 80 lines, the bugprone checks that find real defects)
# over every core/**/*.cc and the core headers they include, with every warning an error; and no
# file in core/ over 500 lines. clang-tidy reads the native build's compile_commands.json
# (CMAKE_EXPORT_COMPILE_COMMANDS): usage scripts/tidy.sh [BUILD_DIR], default build/native.
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build/native}"
mapfile -t files < <(git ls-files 'core/*.cc' 'core/*.h')

status=0
for f in "${files[@]}"; do
  n=$(wc -l <"$f")
  if [ "$n" -gt 500 ]; then
    echo "$f: $n lines, over the limit of 500 lines for a file in core/"
    status=1
  fi
done

if [ ! -f "$build/compile_commands.json" ]; then
  echo "$build/compile_commands.json is missing: configure the native build first (scripts/build.sh native)" >&2
  exit 1
fi
# Warnings in the headers are reported for core's own headers (not the third-party ones they
# include): the header filter is the list of them, dots escaped.
header_filter="$(printf '%s\n' "${files[@]}" | grep '\.h$' | sed 's/\./\\./g' | paste -sd'|')"
printf '%s\n' "${files[@]}" | grep '\.cc$' |
  xargs -P2 -n4 clang-tidy -p "$build" --quiet --warnings-as-errors='*' --header-filter="^$PWD/($header_filter)$" \
    2> >(grep -v ' warnings\? generated\.$' >&2) || status=1
exit $status
