#!/usr/bin/env python3
"""The engine's layers (README "Shape"): core/ below app/ never includes app/ (the run pipelines and
the command line live there; merge/ and trend/ take parameters and a base/reporter.h Reporter), and
nothing in core/ includes emscripten (the browser's glue is wasm/). And a reader finds a .cc's
declarations by its name (issue 47, item 6): every core/**/*.cc has a header of the same name beside
it, or its first line says where they are, `// Part of dir/name.h: ...` (a second .cc of that
header's class or functions) or `// No header: ...` (main, a libc shim). Fails naming each offender."""
import pathlib
import re
import sys

root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parents[2])
core = root / 'core'
bad = []
include = re.compile(r'^\s*#\s*include\s*[<"]([^>"]+)[>"]')
files = sorted(p for p in core.rglob('*') if p.suffix in ('.h', '.cc'))
assert files, f'no sources under {core}'
for p in files:
    rel = p.relative_to(core)
    for n, line in enumerate(p.read_text(encoding='utf-8', errors='replace').splitlines(), 1):
        m = include.match(line)
        if not m:
            continue
        inc = m.group(1)
        if inc.startswith('app/') and rel.parts[0] != 'app':
            bad.append(f'core/{rel}:{n}: includes {inc} from below app/')
        if inc.startswith('emscripten'):
            bad.append(f'core/{rel}:{n}: includes {inc} (emscripten belongs in wasm/)')
part_of = re.compile(r'^// (?:Part of ([\w/]+\.h)|No header): ')
parts = 0
for p in files:
    if p.suffix != '.cc' or p.with_suffix('.h').exists():
        continue
    rel = p.relative_to(core)
    lines = p.read_text(encoding='utf-8', errors='replace').splitlines()
    m = part_of.match(lines[0]) if lines else None
    if not m:
        bad.append(f'core/{rel}:1: has no core/{rel.with_suffix(".h")} and its first line names no header '
                   '("// Part of dir/name.h: ..." or "// No header: ...")')
    elif m.group(1) and not (core / m.group(1)).exists():
        bad.append(f'core/{rel}:1: names core/{m.group(1)}, which does not exist')
    else:
        parts += 1
if bad:
    print('\n'.join(bad))
    sys.exit(1)
print(f'layering: {len(files)} files of core/ checked, none includes app/ from below it or emscripten; '
      f'every .cc has its header ({parts} say in their first line where theirs is, or that they have none)')
