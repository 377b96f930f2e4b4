#!/usr/bin/env python3
"""Sharded runs (--shard I/N) gathered with `visprobe gather` equal the one-process run row for row.

For a multi-step multi-rank compare (-oc), a build, a TP/PP/DP merge compare and build (units: step, DP
replica), a data2db dump run whose
ranks hold different modules (pipeline stages: the parts number their targets differently) and a
monitor run: N = 2..5 shards, each its own process (started together), gathered, compared with the
one-process database table by table, row by row, in rowid order (tests/shard/dbrows.py). Then the
refusals: a missing shard, a shard given twice, a part of another run, a part of another kind, a
file that is no part, a damaged part; each exits 1 with one message naming the file, and leaves no
database (nor temporary file) behind.

  python3 tests/shard/test_shard.py --visprobe build/native/visprobe --source .
"""
import argparse
import glob
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cli"))   # tests/cli/vp_test.py
import vp_test  # noqa: E402
from dbrows import same_rows  # noqa: E402  (this folder: first on sys.path when run as a script)

ARGS = None
TMP = None
CREATED = {"VISPROBE_CREATED_UTC": "2026-01-01T00:00:00Z"}   # the runs' environment: the same timestamps in every file


def gen_dump(name, *args):
    out = os.path.join(TMP, name)
    if not os.path.isdir(out):
        vp_test.run([sys.executable, os.path.join(ARGS.source, "scripts", "gen_dump.py"), out, "--hidden", "128",
                     "--seed", "5", "--manifest", out + ".manifest.json"], args, check=True)
    return out


def gen_trend(kind, name, *args):
    out = os.path.join(TMP, name)
    if not os.path.isdir(out):
        vp_test.run([sys.executable, os.path.join(ARGS.source, "scripts", "gen_trend_data.py"), kind, out, "--seed", "7"],
                    args, check=True)
    return out


def only_db(folder, pattern):
    found = glob.glob(os.path.join(folder, pattern))
    assert len(found) == 1, f"{folder}: {os.listdir(folder) if os.path.isdir(folder) else 'missing'}"
    return found[0]


def shards(base_args, out_flag, work, n):
    """Runs shards 0..n-1 as n processes at once; returns their part files."""
    procs = []
    for i in range(n):
        out = os.path.join(work, f"part{i}")
        procs.append(subprocess.Popen([ARGS.visprobe] + base_args + [out_flag, out, "--shard", f"{i}/{n}"],
                                      stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=dict(os.environ, **CREATED)))
    parts = []
    for i, p in enumerate(procs):
        text, _ = p.communicate(timeout=600)
        if p.returncode != 0:
            raise AssertionError(f"shard {i}/{n} exited {p.returncode}:\n{text}")
        parts.append(only_db(os.path.join(work, f"part{i}"), "*.part-*"))
    return parts


class ShardCase(unittest.TestCase):
    def check_sharded(self, name, base_args, out_flag, pattern, ns=(2, 3, 4, 5)):
        if ARGS.shards:
            ns = ARGS.shards
        work = os.path.join(TMP, "work_" + name)
        shutil.rmtree(work, ignore_errors=True)
        os.makedirs(work)
        vp_test.run(ARGS.visprobe, base_args + [out_flag, os.path.join(work, "one")], env=CREATED, check=True)
        one = only_db(os.path.join(work, "one"), pattern)
        for n in ns:
            with self.subTest(shards=n):
                wn = os.path.join(work, f"n{n}")
                parts = shards(base_args, out_flag, wn, n)
                self.assertEqual(len(parts), n)
                r = vp_test.run(ARGS.visprobe, ["gather", "-o", os.path.join(wn, "gathered")] + parts[::-1],   # any order
                                env=CREATED, check=True)
                gathered = only_db(os.path.join(wn, "gathered"), pattern)
                self.assertNotIn(".part-", gathered)
                self.assertTrue(same_rows(one, gathered), f"{name}, {n} shards: the gathered file differs (see above)\n{r.stdout}")
        return one

    def test_compare_multi_step_multi_rank(self):
        t = gen_dump("cmp_t", "--ranks", "4", "--steps", "2", "--tp", "2", "--pp", "2", "--golden", os.path.join(TMP, "cmp_g"),
                     "--diverge-layer", "2", "--overflow-layer", "1")
        one = self.check_sharded("compare", ["graph_visualize", "-tp", t, "-gp", os.path.join(TMP, "cmp_g"), "-oc"], "-o",
                                 "compare_*.vis.db")
        # The cross-rank links are made by the gather (parts have none): the run has some.
        linked = vp_test.rows(one, "SELECT count(*) FROM tb_nodes WHERE matched_distributed NOT IN ('', '{}')")[0][0]
        self.assertGreater(linked, 0)

    def test_build(self):
        t = gen_dump("build_t", "--ranks", "3", "--steps", "2", "--pp", "3", "--layers", "6")
        self.check_sharded("build", ["graph_visualize", "-tp", t], "-o", "build_*.vis.db")

    def test_merge_compare(self):
        # 8 ranks = TP2 x PP2 x DP2, 2 steps: 4 units (step, DP replica).
        t = gen_dump("merge_t", "--ranks", "8", "--steps", "2", "--tp", "2", "--pp", "2", "--consistent-stats",
                     "--golden", os.path.join(TMP, "merge_g"))
        one = self.check_sharded("merge", ["graph_visualize", "-tp", t, "-gp", os.path.join(TMP, "merge_g"), "--rank_size", "8", "8",
                                           "--tp", "2", "2", "--pp", "2", "2"], "-o", "compare_*.vis.db", ns=(2, 3, 5))
        graphs = vp_test.rows(one, "SELECT count(DISTINCT graph_id) FROM tb_nodes")[0][0]
        self.assertEqual(graphs, 2 * 2 * 2)   # steps x replicas x sides

    def test_merge_build(self):
        t = gen_dump("merge_b", "--ranks", "8", "--steps", "1", "--tp", "2", "--pp", "2", "--consistent-stats")
        self.check_sharded("merge_build", ["graph_visualize", "-tp", t, "--rank_size", "8", "--tp", "2", "--pp", "2"], "-o",
                           "build_*.vis.db", ns=(2, 3))

    def test_data2db_dump(self):
        t = gen_dump("trend_pp", "--ranks", "4", "--steps", "2", "--pp", "4", "--layers", "8", "--micro-batches", "2")
        self.check_sharded("trend_dump", ["data2db", "--data", t, "--format", "dump"], "--db", "dump_data*.trend.db")

    def test_data2db_monitor(self):
        m = gen_trend("monitor", "trend_mon", "--ranks", "5", "--steps", "12", "--layers", "3")
        self.check_sharded("trend_monitor", ["data2db", "--data", m, "--format", "monitor", "--process_num", "2"], "--db",
                           "monitor_data*.trend.db")


class RefusalCase(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.work = os.path.join(TMP, "refuse")
        shutil.rmtree(cls.work, ignore_errors=True)
        t = gen_dump("ref_t", "--ranks", "2", "--steps", "2")
        cls.parts = shards(["graph_visualize", "-tp", t], "-o", os.path.join(cls.work, "a"), 3)
        cls.other = shards(["graph_visualize", "-tp", t, "-oc"], "-o", os.path.join(cls.work, "b"), 3)
        m = gen_trend("monitor", "ref_mon", "--ranks", "2", "--steps", "4", "--layers", "2")
        cls.trend = shards(["data2db", "--data", m, "--format", "monitor"], "--db", os.path.join(cls.work, "c"), 3)
        vp_test.run(ARGS.visprobe, ["graph_visualize", "-tp", t, "-o", os.path.join(cls.work, "whole")], env=CREATED, check=True)
        cls.whole = only_db(os.path.join(cls.work, "whole"), "build_*.vis.db")

    def refused(self, parts, *expected):
        out = os.path.join(self.work, "out")
        shutil.rmtree(out, ignore_errors=True)
        r = vp_test.run(ARGS.visprobe, ["gather", "-o", out] + parts, env=CREATED)
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        errors = [l for l in r.stdout.splitlines() if "[ERROR]" in l]
        self.assertEqual(len(errors), 1, r.stdout)
        for e in expected:
            self.assertIn(e, errors[0])
        left = os.listdir(out) if os.path.isdir(out) else []
        self.assertEqual(left, [], "a refused gather left files behind")
        return errors[0]

    def test_missing_shard(self):
        self.refused(self.parts[:1] + self.parts[2:], "missing: shard 1", "3 shards")

    def test_shard_twice(self):
        self.refused(self.parts + self.parts[1:2], "shard 1/3 is given twice", self.parts[1])

    def test_part_of_another_run(self):
        self.refused(self.parts[:2] + self.other[2:], self.other[2], "another run")

    def test_part_of_another_kind(self):
        self.refused(self.parts[:2] + self.trend[2:], self.trend[2], "trend part")

    def test_not_a_part(self):
        self.refused(self.parts[:2] + [self.whole], self.whole, "not a part of a sharded run")

    def test_damaged_part(self):
        bad = os.path.join(self.work, "damaged.vis.db")
        with open(self.parts[2], "rb") as f:
            data = f.read()
        with open(bad, "wb") as f:
            f.write(data[: len(data) // 3])
        msg = self.refused(self.parts[:2] + [bad], bad)
        self.assertNotIn("Traceback", msg)

    def test_missing_file(self):
        self.refused(self.parts[:2] + [os.path.join(self.work, "nothing.vis.db")], "nothing.vis.db")

    def test_bad_shard_flag(self):
        t = os.path.join(TMP, "ref_t")
        for bad in ("3/3", "x", "1/0", "1", "0/2/3"):
            r = vp_test.run(ARGS.visprobe, ["graph_visualize", "-tp", t, "-o", os.path.join(self.work, "flag"), "--shard", bad],
                            env=CREATED)
            self.assertEqual(r.returncode, 2, bad)
            self.assertIn("argument --shard: invalid shard", r.stderr)
        r = vp_test.run(ARGS.visprobe, ["data2db", "--data", t, "--db", os.path.join(self.work, "flag"), "--shard", "2/2"], env=CREATED)
        self.assertEqual(r.returncode, 2)
        self.assertIn("argument --shard: invalid shard '2/2'", r.stderr)
        r = vp_test.run(ARGS.visprobe, ["gather", "-o", os.path.join(self.work, "flag")], env=CREATED)
        self.assertEqual(r.returncode, 2)
        self.assertIn("the following arguments are required: PART", r.stderr)


def main():
    global ARGS, TMP
    p = argparse.ArgumentParser()
    p.add_argument("--visprobe", required=True)
    p.add_argument("--source", default=os.path.join(os.path.dirname(__file__), "..", ".."))
    p.add_argument("--shards", type=lambda s: tuple(int(x) for x in s.split(",")), default=None,
                   help="shard counts to try instead of each case's own (the sanitizer run: 3)")
    ARGS, rest = p.parse_known_args()
    ARGS.visprobe = os.path.abspath(ARGS.visprobe)
    TMP = tempfile.mkdtemp(prefix="vp_shard_")
    try:
        unittest.main(argv=[sys.argv[0]] + rest, verbosity=2)
    finally:
        shutil.rmtree(TMP, ignore_errors=True)


if __name__ == "__main__":
    main()
