#!/usr/bin/env python3
"""The engine's layers (README "Shape"): core/ below app/ never includes app/ (the run pipelines and
the command line live there; merge/ and trend/ take parameters and a base/reporter.h Reporter), and
nothing in core/ includes emscripten (the browser's glue is wasm/). Fails naming each offending line."""
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
if bad:
    print('\n'.join(bad))
    sys.exit(1)
print(f'layering: {len(files)} files of core/ checked, none includes app/ from below it or emscripten')
