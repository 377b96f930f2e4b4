#!/usr/bin/env python3
"""The malformed-input corpus (tests/malformed/cases, made by tests/malformed/make_corpus.py): every
case must end with exit status 1, exactly one ERROR line naming the file and the problem, no output
file left behind, and no hang — for the native CLI and, when given, the wasm CLI under Node.

  python3 tests/cli/test_malformed.py --visprobe build/native/visprobe [--wasm build/wasm/visprobe.js] --source .
"""
import argparse
import json
import os
import shutil
import sys
import tempfile
import time
import unittest

import vp_test
from vp_test import log_lines

ARGS = None


class Malformed(unittest.TestCase):
    def run_case(self, cmd, name, must, env=None):
        case = os.path.join(ARGS.source, "tests", "malformed", "cases", name)
        out = tempfile.mkdtemp(prefix="visprobe_bad_")
        try:
            t0 = time.monotonic()
            r = vp_test.run(cmd, ["graph_visualize", "-tp", case, "-o", os.path.join(out, "o")], env=env,
                            errors="replace", timeout=60)   # a hang fails fast here; the budget is the 30 s below
            elapsed = time.monotonic() - t0
            self.assertEqual(r.returncode, 1, f"{name}: {r.stdout[-1000:]} {r.stderr[-1000:]}")
            errors = [m for lvl, m in log_lines(r.stdout) if lvl == "ERROR"]
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
        for tool in ["native"] + (["wasm"] if ARGS.wasm else []):
            cmd = vp_test.cli_cmd(tool, ARGS.visprobe, ARGS.wasm)   # wasm: the baseline compiler, small inputs
            for name, must in sorted(expected.items()):
                with self.subTest(tool=tool, case=name):
                    self.run_case(cmd, name, must)
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
