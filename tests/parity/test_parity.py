#!/usr/bin/env python3
"""Parity: the wasm build writes the same rows as the native build (spec: one code path).

Runs `graph_visualize` with the native CLI and with the wasm CLI under Node on the same inputs —
the spec's worked example, msProbe's sample dumps and generated dumps — and compares the three
tables row by row.

  python3 tests/parity/test_parity.py --native build/native/visprobe --wasm build/wasm/visprobe.js \
      --shared ../shared --source .
"""
import argparse
import glob
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cli"))
from test_cli import dump_db  # noqa: E402  (same row reader as the CLI tests)

ARGS = None


def run_tool(kind, args, out):
    if kind == "native":
        cmd = [ARGS.native]
    else:
        cmd = ["node", "--no-experimental-fetch", ARGS.wasm]
    env = dict(os.environ, NODE_PATH="/usr/share/nodejs", VISPROBE_THREADS="2")
    r = subprocess.run(cmd + ["graph_visualize"] + args + ["-o", out], capture_output=True, text=True, env=env, timeout=600)
    return r


class Parity(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="visprobe_parity_")
        gen = os.path.join(ARGS.source, "scripts", "gen_dump.py")
        cls.gen = {}
        for name, extra in (
            ("stats", ["--ranks", "2", "--tp", "2", "--noise", "0.01", "--diverge-layer", "1", "--overflow-layer", "0"]),
            ("md5", ["--task", "md5", "--noise", "0.01"]),
            ("structure", ["--task", "structure"]),
            ("mindspore", ["--framework", "mindspore", "--noise", "0.01"]),
            ("steps", ["--steps", "2", "--ranks", "2", "--pp", "2", "--micro-batches", "2", "--noise", "0.02"]),
            ("tensor", ["--task", "tensor", "--hidden", "64", "--noise", "0.01", "--diverge-layer", "1"]),
        ):
            t = os.path.join(cls.tmp, name, "target")
            g = os.path.join(cls.tmp, name, "golden")
            subprocess.run([sys.executable, gen, t, "--golden", g, "--layers", "2", "--hidden", "128", "--seed", "3",
                            "--manifest", os.path.join(cls.tmp, name, "manifest.json")] + extra,
                           check=True, capture_output=True)
            cls.gen[name] = (t, g)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def same(self, args):
        outs = {}
        for kind in ("native", "wasm"):
            out = tempfile.mkdtemp(prefix=kind + "_", dir=self.tmp)
            r = run_tool(kind, args, out)
            self.assertEqual(r.returncode, 0, kind + ": " + r.stdout[-2000:] + r.stderr[-2000:])
            outs[kind] = dump_db(glob.glob(os.path.join(out, "*.vis.db"))[0])
        self.assertGreater(len(outs["native"]["tb_nodes"]), 0)
        for table in ("tb_config", "tb_stack", "tb_nodes"):
            self.assertEqual(len(outs["native"][table]), len(outs["wasm"][table]), table)
            for a, b in zip(outs["native"][table], outs["wasm"][table]):
                self.assertEqual(a, b, table)

    def worked(self, side):
        return os.path.join(ARGS.source, "tests", "data", "worked_example", side, "step0", "rank0")

    def sample(self, *parts):
        return os.path.join(ARGS.shared, "fixtures", "msprobe-samples", *parts)

    def test_worked_example(self):
        self.same(["-tp", self.worked("npu"), "-oc"])
        self.same(["-tp", self.worked("npu"), "-gp", self.worked("bench"), "-oc"])
        self.same(["-tp", self.worked("npu"), "-gp", self.worked("bench"), "-fm"])

    def test_samples(self):
        self.same(["-tp", self.sample("vis_builder")])
        self.same(["-tp", self.sample("vis_multi_step_rank"), "-oc"])
        self.same(["-tp", self.sample("vis_multi_step_rank"), "-gp", self.sample("vis_multi_step_rank")])
        for side in ("mindspore_data", "pytorch_data"):
            self.same(["-tp", self.sample("cross_framework_pangu", side)])
        self.same(["-tp", self.sample("cross_framework_pangu", "mindspore_data"),
                   "-gp", self.sample("cross_framework_pangu", "pytorch_data"),
                   "-lm", self.sample("cross_framework_pangu", "layer_mapping.yaml")])

    def test_generated(self):
        for name in ("stats", "md5", "structure", "mindspore", "steps", "tensor"):
            t, g = self.gen[name]
            with self.subTest(name=name):
                self.same(["-tp", t, "-oc"])
                self.same(["-tp", t, "-gp", g, "-oc"])
        t, g = self.gen["stats"]
        self.same(["-tp", t, "-gp", g, "-fm"])


def main():
    global ARGS
    p = argparse.ArgumentParser()
    p.add_argument("--native", required=True)
    p.add_argument("--wasm", required=True)
    p.add_argument("--shared", required=True)
    p.add_argument("--source", required=True)
    ARGS, rest = p.parse_known_args()
    ARGS.native = os.path.abspath(ARGS.native)
    ARGS.wasm = os.path.abspath(ARGS.wasm)
    unittest.main(argv=[sys.argv[0]] + rest, verbosity=1)


if __name__ == "__main__":
    main()
