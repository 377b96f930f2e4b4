#!/usr/bin/env python3
"""A sharded compare through a real Slurm: scripts/slurm/local_cluster.sh starts a one-node cluster
(Debian's slurmctld, slurmd, munge), scripts/slurm/visprobe_array.sh submits the shards as a job array
and the gather as a dependent job; the gathered database equals the one-process run row for row.
A run with a shard that fails (a truncated dump.json in one of its ranks) exits 1 naming the shard and
its log, and no database is gathered. Needs root (the daemons); the cluster is stopped at the end.

  python3 tests/shard/test_slurm.py --visprobe build/native/visprobe --source .
"""
import argparse
import glob
import os
import shutil
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cli"))   # tests/cli/vp_test.py
import vp_test  # noqa: E402
from dbrows import same_rows  # noqa: E402  (this folder: first on sys.path when run as a script)

ARGS = None
TMP = None
SLURM = {}   # the runs' environment on top of the caller's: the one-node cluster's folder and configuration


class SlurmCase(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if os.geteuid() != 0:
            raise AssertionError("the Slurm test starts slurmctld, slurmd and munged: run it as root (CI does)")
        SLURM["VISPROBE_SLURM_DIR"] = os.path.join(TMP, "cluster")
        r = vp_test.run(os.path.join(ARGS.source, "scripts", "slurm", "local_cluster.sh"), ["start"], env=SLURM, timeout=120)
        if r.returncode != 0:
            raise AssertionError("the one-node Slurm did not start:\n" + r.stdout + r.stderr)
        SLURM["SLURM_CONF"] = r.stdout.strip().split("=", 1)[1]
        cls.target = os.path.join(TMP, "t")
        cls.golden = os.path.join(TMP, "g")
        vp_test.run([sys.executable, os.path.join(ARGS.source, "scripts", "gen_dump.py"), cls.target, "--hidden", "128",
                     "--ranks", "4", "--steps", "2", "--tp", "2", "--pp", "2", "--golden", cls.golden, "--overflow-layer", "1",
                     "--diverge-layer", "2", "--manifest", os.path.join(TMP, "manifest.json")], check=True)

    @classmethod
    def tearDownClass(cls):
        vp_test.run(os.path.join(ARGS.source, "scripts", "slurm", "local_cluster.sh"), ["stop"], env=SLURM, timeout=60)

    def submit(self, out, n, *command):
        return vp_test.run(os.path.join(ARGS.source, "scripts", "slurm", "visprobe_array.sh"),
                           ["-n", n, "-o", out, "--visprobe", ARGS.visprobe, "--"] + list(command), env=SLURM)

    def test_sharded_compare_equals_one_process(self):
        one = os.path.join(TMP, "one")
        vp_test.run(ARGS.visprobe, ["graph_visualize", "-tp", self.target, "-gp", self.golden, "-oc", "-o", one], check=True)
        for n in (3, 4):
            out = os.path.join(TMP, f"slurm{n}")
            r = self.submit(out, n, "graph_visualize", "-tp", self.target, "-gp", self.golden, "-oc")
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            gathered = r.stdout.strip()
            self.assertTrue(gathered.endswith(".vis.db") and os.path.dirname(gathered) == out, r.stdout)
            self.assertEqual(len(glob.glob(os.path.join(out, "parts", "shard_*", "*.part-*"))), n)
            self.assertIn(f"array 0-{n - 1}", r.stderr)
            self.assertTrue(same_rows(glob.glob(os.path.join(one, "*.vis.db"))[0], gathered))

    def test_failed_shard_fails_the_submission(self):
        bad = os.path.join(TMP, "bad")
        shutil.copytree(self.target, bad)
        with open(os.path.join(bad, "step1", "rank1", "dump.json"), "w") as f:
            f.write('{"task": "statistics", "data": {"x": [')
        out = os.path.join(TMP, "failed")
        r = self.submit(out, 2, "graph_visualize", "-tp", bad)
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertIn("shard 1 of 2 FAILED", r.stderr)            # units 1 and 3 (step1/rank1) are shard 1's
        self.assertIn("shard_1.log", r.stderr)
        self.assertIn("truncated JSON", r.stderr)
        self.assertIn("no gathered database", r.stderr)
        self.assertEqual(glob.glob(os.path.join(out, "*.db")), [])
        q = vp_test.run("squeue", ["-h"], env=SLURM)
        self.assertEqual(q.stdout.strip(), "", "a job was left in the queue")

    def test_refuses_its_own_flags(self):
        r = self.submit(os.path.join(TMP, "flags"), 2, "graph_visualize", "-tp", self.target, "-o", "/tmp/x")
        self.assertEqual(r.returncode, 2)
        self.assertIn("leave -o to the script", r.stderr)


def main():
    global ARGS, TMP
    p = argparse.ArgumentParser()
    p.add_argument("--visprobe", required=True)
    p.add_argument("--source", default=os.path.join(os.path.dirname(__file__), "..", ".."))
    ARGS, rest = p.parse_known_args()
    ARGS.visprobe = os.path.abspath(ARGS.visprobe)
    ARGS.source = os.path.abspath(ARGS.source)
    TMP = tempfile.mkdtemp(prefix="vp_slurm_")
    try:
        unittest.main(argv=[sys.argv[0]] + rest, verbosity=2)
    finally:
        shutil.rmtree(TMP, ignore_errors=True)


if __name__ == "__main__":
    main()
