#!/usr/bin/env python3
"""Parity: the wasm build writes the same rows as the native build (spec: one code path).

Runs `graph_visualize` with the native CLI and with the wasm CLI under Node on the same inputs —
the spec's worked example, msProbe's sample dumps and generated dumps — and compares the tables
row by row (msProbe's three and the vp_badges extension table).

  python3 tests/parity/test_parity.py --native build/native/visprobe --wasm build/wasm/visprobe.js \
      --shared ../shared --source .
"""
import argparse
import glob
import os
import shutil
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cli"))
import vp_test  # noqa: E402  (tests/cli/vp_test.py)
from test_cli import dump_db  # noqa: E402  (the same row reader as the CLI tests)
from vp_test import rows as query  # noqa: E402

ARGS = None
THREADS = {"VISPROBE_THREADS": "2"}   # both CLIs on two worker threads


def badge_rows(path):
    """The vp_badges extension table (web-ui BEY-08), rows sorted."""
    return query(path, "SELECT * FROM vp_badges ORDER BY step, rank, data_source, node_name")


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
            vp_test.run([sys.executable, gen, t, "--golden", g, "--layers", "2", "--hidden", "128", "--seed", "3",
                         "--manifest", os.path.join(cls.tmp, name, "manifest.json")], extra, check=True)
            cls.gen[name] = (t, g)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def same(self, args):
        outs = {}
        for kind in ("native", "wasm"):
            out = tempfile.mkdtemp(prefix=kind + "_", dir=self.tmp)
            r = vp_test.run(vp_test.cli_cmd(kind, ARGS.native, ARGS.wasm), ["graph_visualize"] + args + ["-o", out], env=THREADS)
            self.assertEqual(r.returncode, 0, kind + ": " + r.stdout[-2000:] + r.stderr[-2000:])
            db = glob.glob(os.path.join(out, "*.vis.db"))[0]
            outs[kind] = dump_db(db)
            outs[kind]["vp_badges"] = badge_rows(db)
            # msProbe's rowid order (node_order, target before golden), which the writer makes.
            outs[kind]["rowid_order"] = query(db, "SELECT id FROM tb_nodes ORDER BY rowid")
        self.assertGreater(len(outs["native"]["tb_nodes"]), 0)
        for table in ("tb_config", "tb_stack", "tb_nodes", "vp_badges", "rowid_order"):
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


def trend_rows(path):
    """Every table of a .trend.db, rows sorted; trend_meta without its creation time."""
    out = {}
    for (t,) in query(path, "SELECT name FROM sqlite_master WHERE type IN ('table', 'index') ORDER BY name"):
        if t.startswith("sqlite_autoindex") or t.startswith("idx_"):
            out[t] = "index"
            continue
        rows = query(path, f'SELECT * FROM "{t}"')
        if t == "trend_meta":
            rows = [r for r in rows if r[0] != "created_utc"]
        out[t] = sorted(rows, key=repr)
    return out


class TrendParity(unittest.TestCase):
    """data2db: the wasm CLI writes the same .trend.db content as the native one."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="visprobe_trend_parity_")
        # Dump run: msProbe's two framework samples as two ranks, and a generated multi-step run.
        pangu = os.path.join(cls.tmp, "pangu", "step0")
        os.makedirs(pangu)
        base = os.path.abspath(os.path.join(ARGS.shared, "fixtures", "msprobe-samples", "cross_framework_pangu"))
        os.symlink(os.path.join(base, "pytorch_data"), os.path.join(pangu, "rank0"))
        os.symlink(os.path.join(base, "mindspore_data"), os.path.join(pangu, "rank1"))
        cls.steps = os.path.join(cls.tmp, "steps")
        vp_test.run([sys.executable, os.path.join(ARGS.source, "scripts", "gen_dump.py"), cls.steps, "--layers", "2",
                     "--hidden", "64", "--steps", "2", "--ranks", "2", "--pp", "2", "--micro-batches", "2", "--seed", "5",
                     "--manifest", os.path.join(cls.tmp, "steps_manifest.json")], check=True)
        # Monitor run: two ranks, quoted shape cells, NaN / inf cells, micro steps.
        cls.monitor = os.path.join(cls.tmp, "monitor")
        for rank in (0, 1):
            d = os.path.join(cls.monitor, f"Dec03_21-34-4{rank}-rank{rank}-abcd123{rank}")
            os.makedirs(d)
            with open(os.path.join(d, "actv_0-1.csv"), "w") as f:
                f.write("vpp_stage,name,step,micro_step,norm,min,max,shape\n")
                for step in (0, 1):
                    for micro in (0, 1):
                        for layer in range(3):
                            v = "nan" if (layer + micro) % 4 == 3 else f"{rank + step * 0.5 + layer * 0.25 + micro:.3f}"
                            f.write(f'0,module.decoder.layers.{layer}.mlp.output,{step},{micro},{v},-inf,inf,"[2, 4]"\n')
            with open(os.path.join(d, "grad_reduced_0-1.csv"), "w") as f:
                f.write("vpp_stage,name,step,norm,mean\n")
                for step in (0, 1):
                    f.write(f"0,module.decoder.layers.0.mlp.linear_fc1.weight,{step},{0.01 * (step + 1)},2e10\n")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def same(self, args, names):
        outs = {}
        for kind in ("native", "wasm"):
            out = tempfile.mkdtemp(prefix=kind + "_", dir=self.tmp)
            r = vp_test.run(vp_test.cli_cmd(kind, ARGS.native, ARGS.wasm), ["data2db"] + args + ["--db", out], env=THREADS)
            self.assertEqual(r.returncode, 0, kind + ": " + r.stdout[-2000:] + r.stderr[-2000:])
            self.assertEqual(sorted(os.listdir(out)), sorted(names), kind + ": " + r.stdout[-3000:])
            outs[kind] = {n: trend_rows(os.path.join(out, n)) for n in names}
        for n in names:
            self.assertGreater(len(outs["native"][n]["monitoring_targets"]), 0, n)
            self.assertEqual(outs["native"][n], outs["wasm"][n], n)

    def test_dump(self):
        for micro in ("true", "false"):
            self.same(["--data", os.path.join(self.tmp, "pangu"), "--micro_step", micro], ["dump_data.trend.db"])
            self.same(["--data", self.steps, "--micro_step", micro, "--format", "dump"], ["dump_data.trend.db"])

    def test_monitor(self):
        for micro in ("true", "false"):
            self.same(["--data", self.monitor, "--micro_step", micro, "--process_num", "2"], ["monitor_data.trend.db"])


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
