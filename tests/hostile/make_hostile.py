#!/usr/bin/env python3
"""Writes the hostile-dump corpus (issue #8): msProbe dumps whose module names, API names, stack
frames and dtype strings hold HTML, script, SQL quotes, LIKE wildcards, backslashes and control
characters, laid out as stepN/rankN, plus a copy under a folder whose own name holds quotes and a
percent sign (msProbe's path check must refuse it, §16.3).

  python3 tests/hostile/make_hostile.py OUT

OUT/run/step0/rank{0,1}/   the dumps          OUT/<HOSTILE_FOLDER>/step0/rank0/   the same dump
OUT/hostile.json           what the tests check: names, dtypes, frames, searches (ASCII JSON)
Nothing here is committed: the tests run this into a temporary folder."""
import json
import os
import sys

# A folder name the path check (real path must match ^[a-zA-Z0-9_.:/-]+$) refuses.
HOSTILE_FOLDER = "run'\"%_<b>x"

M_SCRIPT = "Module.<script>alert('m1')</script>.Evil.forward.0"
M_ENTITY = "Module.&lt;b&gt;amp&amp;.Ent.forward.0"
F_IMG = 'Functional.<img src=x onerror=alert("f1")>.0.forward'
F_PERCENT = "Functional.50%_off'--.0.forward"
F_SQL = 'Torch.x"); DROP TABLE tb_nodes;--.0.forward'
F_CONTROL = "Tensor.ctl\x01\x07\x1b[31m\t\x7f\u202eend.0.forward"
F_UNDERSCORE = "Functional.plain_name.0.forward"
F_DECOY_UNDERSCORE = "Functional.plainXname.0.forward"   # "_" as a LIKE wildcard would match it
F_DECOY_PERCENT = "Functional.fifty.0.forward"            # "%" as a LIKE wildcard would match it
F_BACKSLASH = "Functional.back\\slash\\u0041\\%.0.forward"
F_UNICODE = "Functional.名前\U0001F600.0.forward"

CONSTRUCT = {
    M_SCRIPT: None,
    F_IMG: M_SCRIPT,
    F_PERCENT: M_SCRIPT,
    F_SQL: M_SCRIPT,
    F_CONTROL: M_SCRIPT,
    M_ENTITY: None,
    F_UNDERSCORE: M_ENTITY,
    F_DECOY_UNDERSCORE: M_ENTITY,
    F_DECOY_PERCENT: M_ENTITY,
    F_BACKSLASH: M_ENTITY,
    F_UNICODE: M_ENTITY,
}

DTYPES = [
    "torch.<b>float32</b>",
    '"><svg onload=alert(2)>',
    "it's 100%_\"dtype\"",
    "ctl\x01\x1b[0m\\",
]

FRAMES = [
    'File "<script>alert(\'s\')</script>.py", line 1, in <module>',
    "  x = '%_\"' + \"\x07\x1b[1m\" -- ; DROP TABLE tb_stack; <img src=x onerror=alert(3)>",
    'File "/work/名前\U0001F600.py", line 7, in forward',
]

# Searches the page must answer literally: query -> names containing it (case-insensitive).
SEARCHES = ["'", '"', "%", "_", "<script>", "\\", "&amp;", "DROP TABLE"]


def tensor(dtype, k):
    return {"type": "torch.Tensor", "dtype": dtype, "shape": [2, k + 1], "Max": 1.5 + k, "Min": -0.5,
            "Mean": 0.25, "Norm": 2.0, "requires_grad": False}


def dump(names):
    data = {}
    for i, name in enumerate(names):
        data[name] = {
            "input_args": [tensor(DTYPES[i % len(DTYPES)], i)],
            "input_kwargs": {"note<script>": {"type": "str", "value": "'%_\"<i>"}},
            "output": [tensor(DTYPES[(i + 1) % len(DTYPES)], i)],
        }
    return {"task": "statistics", "level": "mix", "framework": "pytorch", "dump_data_dir": None, "data": data}


def write_rank(folder):
    os.makedirs(folder, exist_ok=True)
    names = list(CONSTRUCT)
    files = {
        "construct.json": CONSTRUCT,
        "dump.json": dump(names),
        "stack.json": {name: FRAMES for name in names},
    }
    for fname, obj in files.items():
        # ensure_ascii=False: the raw UTF-8 and control characters (escaped as \\u00XX by json)
        # reach the engine the way msProbe writes them.
        with open(os.path.join(folder, fname), "w", encoding="utf-8") as f:
            json.dump(obj, f, ensure_ascii=False, indent=1)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    for rank in (0, 1):
        write_rank(os.path.join(out, "run", "step0", f"rank{rank}"))
    write_rank(os.path.join(out, HOSTILE_FOLDER, "step0", "rank0"))
    names = list(CONSTRUCT) + ["DefaultModel"]
    spec = {
        "run": os.path.join(out, "run"),
        "hostile_folder": os.path.join(out, HOSTILE_FOLDER),
        "names": names,
        "dtypes": DTYPES,
        # What the rows hold: §12 removes every "'" from item strings and writes None as null.
        "stored_dtypes": [d.replace("'", "").replace("None", "null") for d in DTYPES],
        "frames": FRAMES,
        "searches": {q: sorted(n for n in names if q.lower() in n.lower()) for q in SEARCHES},
        "modules": [M_SCRIPT, M_ENTITY],
    }
    with open(os.path.join(out, "hostile.json"), "w", encoding="ascii") as f:
        json.dump(spec, f, ensure_ascii=True, indent=1)
    print(f"hostile corpus written to {out}")


if __name__ == "__main__":
    main()
