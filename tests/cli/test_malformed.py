#!/usr/bin/env python3
"""The malformed-input corpus (tests/malformed/cases, made by tests/malformed/make_corpus.py): every
case must end with exit status 1, exactly one ERROR line naming the file and the problem, no output
file left behind, and no hang — for the native CLI and, when given, the wasm CLI under Node.

  python3 tests/cli/test_malformed.py --visprobe build/native/visprobe [--wasm build/wasm/visprobe.js] --source .
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

ARGS = None
LOG_LINE = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d \(\d+\) \[(DEBUG|INFO|WARNING|ERROR)\] (.*)$")


class Malformed(unittest.TestCase):
    def run_case(self, cmd, name, must, env=None):
        case = os.path.join(ARGS.source, "tests", "malformed", "cases", name)
        out = tempfile.mkdtemp(prefix="visprobe_bad_")
        try:
            t0 = time.monotonic()
            r = subprocess.run(cmd + ["graph_visualize", "-tp", case, "-o", os.path.join(out, "o")], capture_output=True,
                               text=True, errors="replace", timeout=60, env=dict(os.environ, **(env or {})))
            elapsed = time.monotonic() - t0
            self.assertEqual(r.returncode, 1, f"{name}: {r.stdout[-1000:]} {r.stderr[-1000:]}")
            errors = [m.group(2) for m in map(LOG_LINE.match, r.stdout.splitlines()) if m and m.group(1) == "ERROR"]
            self.assertEqual(len(errors), 1, f"{name}: {r.stdout}")
            for text in must:
                self.assertIn(text, errors[0], name)
            leftovers = os.listdir(os.path.join(out, "o")) if os.path.isdir(os.path.join(out, "o")) else []
            self.assertEqual(leftovers, [], name)
            self.assertLess(elapsed, 30, name)
        finally:
            shutil.rmtree(out, ignore_errors=True)

    def test_corpus(self):
        with open(os.path.join(ARGS.source, "tests", "malformed", "expected.json")) as f:
            expected = json.load(f)
        self.assertGreaterEqual(len(expected), 30)
        tools = [("native", [ARGS.visprobe])]
        if ARGS.wasm:
            tools.append(("wasm", ["node", "--no-experimental-fetch", "--liftoff-only", ARGS.wasm]))   # baseline compiler: small inputs
        for tool, cmd in tools:
            for name, must in sorted(expected.items()):
                with self.subTest(tool=tool, case=name):
                    self.run_case(cmd, name, must, {"NODE_PATH": "/usr/share/nodejs"})
                    if name.startswith("dump_") and tool == "native":
                        self.run_case(cmd, name, must, {"VISPROBE_WINDOW_BYTES": "64"})   # tiny windows too


def main():
    global ARGS
    p = argparse.ArgumentParser()
    p.add_argument("--visprobe", required=True)
    p.add_argument("--wasm")
    p.add_argument("--source", required=True)
    ARGS, rest = p.parse_known_args()
    ARGS.visprobe = os.path.abspath(ARGS.visprobe)
    if ARGS.wasm:
        ARGS.wasm = os.path.abspath(ARGS.wasm)
    unittest.main(argv=[sys.argv[0]] + rest, verbosity=1)


if __name__ == "__main__":
    main()
