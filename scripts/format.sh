#!/usr/bin/env bash
# The C++ sources in .clang-format's style: rewrites them in place, or with --check lists the files
# clang-format would change and fails (the ctest `core_format`). New files count before they are
# added to git (untracked files git does not ignore).
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t files < <(git ls-files --cached --others --exclude-standard 'core/*.cc' 'core/*.h' 'wasm/*.cc' 'tests/core/*.cc' 'tests/core/*.h')
if [ "${1:-}" = --check ]; then
  exec clang-format --dry-run --Werror "${files[@]}"
fi
clang-format -i "${files[@]}"
