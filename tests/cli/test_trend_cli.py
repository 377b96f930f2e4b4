#!/usr/bin/env python3
"""End-to-end tests of the native `visprobe data2db` CLI (trend-analyzer.md §2-§8, §12, §13).

Runs the real binary on folders written in temporary directories, on msProbe's sample dumps (through
symlinks into ../shared) and on data made by scripts/gen_trend_data.py, and reads the databases with
Python's sqlite3. Expected values come from the spec's worked examples or from how the data was
generated (the generator's manifest), never from an earlier run of the program.

  python3 tests/cli/test_trend_cli.py --visprobe build/native/visprobe --shared ../shared
"""
import argparse
import hashlib
import json
import os
import shutil
import sys
import tempfile
import unittest

import vp_test
from vp_test import columns, log_lines
from vp_test import rows as query

ARGS = None
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GEN = os.path.join(REPO, "scripts", "gen_trend_data.py")
CREATED = {"VISPROBE_CREATED_UTC": "2024-01-01T00:00:00Z"}   # the runs' environment: a fixed trend_meta.created_utc
SENT_POS, SENT_NEG = 1000000001.0, -1000000001.0
DUMP_STATS = "norm,max,min,mean"


def samples(*parts):
    return os.path.join(ARGS.shared, "fixtures", "msprobe-samples", *parts)


def global_stats(db):
    got = query(db, "SELECT * FROM global_stats")
    assert len(got) == 1, got
    return dict(zip(columns(db, "global_stats"), got[0]))


def targets(db):
    return query(db, "SELECT target_name, vpp_stage, micro_step FROM monitoring_targets ORDER BY target_id")


def all_tables(db):
    out = {}
    for (name,) in query(db, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"):
        n = len(columns(db, name))
        out[name] = query(db, 'SELECT * FROM "%s" ORDER BY %s' % (name, ", ".join(str(i + 1) for i in range(n))))
    return out


def sha(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def tensor(norm=1.0, mx=0.5, mn=-0.5, mean=0.25, dtype="torch.float32"):
    return {"type": "torch.Tensor", "dtype": dtype, "shape": [2, 2], "Max": mx, "Min": mn, "Mean": mean,
            "Norm": norm, "requires_grad": True}


def dump_text(data):
    return json.dumps({"task": "statistics", "level": "mix", "framework": "pytorch", "dump_data_dir": None,
                       "data": data}, indent=1)


class TrendCase(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="visprobe_trend_cli_")
        self.data = os.path.join(self.tmp, "data")
        self.out = os.path.join(self.tmp, "out")
        os.makedirs(self.data)

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    @property
    def dump_db(self):
        return os.path.join(self.out, "dump_data.trend.db")

    @property
    def monitor_db(self):
        return os.path.join(self.out, "monitor_data.trend.db")

    def data2db(self, *extra, data=None, out=None, rc=0):
        r = vp_test.run(ARGS.visprobe, ["data2db", "--db", out or self.out, "--data", data or self.data] + list(extra),
                        env=CREATED)
        self.assertEqual(r.returncode, rc, r.stdout + r.stderr)
        self.assertNotIn("Traceback", r.stderr)
        return r

    def assert_logged(self, r, level, text):
        self.assertIn((level, text), log_lines(r.stdout), r.stdout)

    def assert_out_files(self, names):
        got = sorted(os.listdir(self.out)) if os.path.isdir(self.out) else []
        self.assertEqual(got, sorted(names))

    def rank_dump(self, step, rank, data, construct=None):
        d = os.path.join(self.data, "step%d" % step, rank)
        write(os.path.join(d, "dump.json"), dump_text(data))
        if construct is not None:
            write(os.path.join(d, "construct.json"), construct if isinstance(construct, str) else json.dumps(construct))
        write(os.path.join(d, "stack.json"), "{}")

    def monitor_csv(self, folder, name, text):
        write(os.path.join(self.data, folder, name), text)


# -------------------------------------------------------------------------------------------------------------
# §12.1 usage errors, §12.2 validation


class Usage(TrendCase):
    def usage_error(self, args, message):
        r = vp_test.run(ARGS.visprobe, ["data2db"] + args, env=CREATED)
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        self.assertIn("usage: visprobe data2db", r.stderr)
        self.assertIn("visprobe data2db: error: " + message, r.stderr)
        self.assertFalse(os.path.exists(self.out))

    def test_micro_step_choice(self):
        self.usage_error(["--db", self.out, "--data", self.data, "--micro_step", "TRUE"],
                         "argument --micro_step: invalid choice: 'TRUE' (choose from 'true', 'false', 'True', 'False')")
        self.usage_error(["--db", self.out, "--data", self.data, "--micro_step", "1"],
                         "argument --micro_step: invalid choice: '1'")

    def test_process_num_not_int(self):
        self.usage_error(["--db", self.out, "--data", self.data, "--process_num", "1.5"],
                         "argument --process_num: invalid int value: '1.5'")
        self.usage_error(["--db", self.out, "--data", self.data, "--process_num", "abc"],
                         "argument --process_num: invalid int value: 'abc'")

    def test_missing_required(self):
        self.usage_error(["--data", self.data], "the following arguments are required: --db")
        self.usage_error(["--db", self.out], "the following arguments are required: --data")
        self.usage_error([], "the following arguments are required: --db, --data")

    def test_other_usage_errors(self):
        self.usage_error(["--db", self.out, "--data", self.data, "--format", "json"],
                         "argument --format: invalid choice: 'json' (choose from 'auto', 'dump', 'monitor')")
        self.usage_error(["--db", self.out, "--data", self.data, "--bogus"], "unrecognized arguments: --bogus")
        self.usage_error(["--data", self.data, "--db"], "argument --db: expected one argument")

    def test_help(self):
        r = vp_test.run(ARGS.visprobe, ["data2db", "--help"], env=CREATED)
        self.assertEqual(r.returncode, 0)
        for flag in ("--db", "--data", "--format", "--mapping", "--micro_step", "--process_num"):
            self.assertIn(flag, r.stdout)

    def test_micro_step_spellings_accepted(self):
        for v in ("true", "True", "false", "False"):
            self.data2db("--micro_step", v)
            self.data2db("--micro_step=" + v)


class Validation(TrendCase):
    def fails(self, args, message, data=None):
        r = vp_test.run(ARGS.visprobe, ["data2db", "--db", self.out, "--data", data or self.data] + args, env=CREATED)
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertIn("error: " + message, r.stderr)
        self.assertNotIn("Traceback", r.stderr)
        self.assertFalse(os.path.exists(self.dump_db))
        self.assertFalse(os.path.exists(self.monitor_db))
        return r

    def with_dump(self):
        self.rank_dump(0, "rank0", {"Module.a.forward.0": {"input_args": [tensor()]}}, {"Module.a.forward.0": None})

    def test_process_num_range(self):
        self.with_dump()   # validated even when there is no monitor data (§5.6)
        for v in ("0", "-1"):
            self.fails(["--process_num", v], "process_num must be a positive integer")
            self.fails(["--process_num=" + v], "process_num must be a positive integer")
        self.fails(["--process_num", "129"], "Maximum supported process_num is 128")
        for v in ("1", "4", "128"):
            self.data2db("--process_num", v)
            self.assertTrue(os.path.exists(self.dump_db))

    def test_data_missing_or_not_a_directory(self):
        missing = os.path.join(self.tmp, "nope")
        self.fails([], "The file path %s does not exist." % missing, data=missing)
        f = os.path.join(self.tmp, "file.txt")
        write(f, "x")
        self.fails([], "%s is not a directory" % f, data=f)

    def test_mapping_must_be_an_object_of_strings(self):
        self.with_dump()
        for i, text in enumerate(('[1, 2]', '{"a": 1}', '{"a": ["b"]}', '{"": "x"}', '{"a": "b"', '"s"')):
            path = os.path.join(self.tmp, "map%d.json" % i)
            write(path, text)
            self.fails(["--mapping", path], "Load json file %s failed." % path)
        missing = os.path.join(self.tmp, "nomap.json")
        self.fails(["--mapping", missing], "Load json file %s failed." % missing)

    def test_mapping_that_could_blow_names_up_is_refused(self):
        # Replacements apply one after another: eleven "x": "xx" style pairs could make a name
        # 2^11 times longer; the engine refuses growth beyond 1024x, and accepts 1024x exactly.
        self.with_dump()
        bomb = os.path.join(self.tmp, "bomb.json")
        write(bomb, json.dumps({c: c * 2 for c in "abcdefghijk"}))
        self.fails(["--mapping", bomb], "Load json file %s failed. Its replacements could make names more than "
                   "1024 times longer." % bomb)
        ok = os.path.join(self.tmp, "ten.json")
        write(ok, json.dumps({c: c * 2 for c in "abcdefghij"}))
        self.data2db("--mapping", ok)

    def test_validation_order(self):
        bad_map = os.path.join(self.tmp, "bad.json")
        write(bad_map, "[1]")
        missing = os.path.join(self.tmp, "nope")
        self.fails(["--mapping", bad_map, "--process_num", "0"], "Load json file %s failed." % bad_map, data=missing)
        self.fails(["--process_num", "0"], "The file path %s does not exist." % missing, data=missing)

    def test_path_rules(self):
        self.with_dump()
        spaced = os.path.join(self.tmp, "with space")
        os.makedirs(spaced)
        self.fails([], "The file path %s contains special characters." % spaced, data=spaced)
        out = os.path.join(self.tmp, "out dir")
        r = vp_test.run(ARGS.visprobe, ["data2db", "--db", out, "--data", self.data], env=CREATED)
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertIn("error: The file path %s contains special characters." % out, r.stderr)
        self.assertFalse(os.path.exists(out))
        mapping = os.path.join(self.tmp, "m ap.json")
        write(mapping, "{}")
        self.fails(["--mapping", mapping], "Load json file %s failed." % mapping)

    def test_empty_mapping_means_none(self):
        self.with_dump()
        self.data2db("--mapping", "")
        self.assertEqual(targets(self.dump_db), [("Module.a.input.0", 0, 0)])


# -------------------------------------------------------------------------------------------------------------
# §2.1 / §2.4 formats and messages


class Formats(TrendCase):
    def none_dump(self, level):
        return (level, "No valid dump data discovered in: %s, dump import skipped. See preceding scan warnings "
                       "for the exact reason." % self.data)

    def add_dump(self):
        self.rank_dump(0, "rank0", {"Module.a.forward.0": {"input_args": [tensor()]}}, {"Module.a.forward.0": None})

    def add_monitor(self):
        self.monitor_csv("Dec03_21-34-40-rank0-abcd1234", "actv_0-0.csv", "vpp_stage,name,step,norm\n0,m.x,0,1.5\n")

    def test_empty_auto(self):
        r = self.data2db()
        lines = log_lines(r.stdout)
        self.assertIn(("INFO", "Auto-detect mode: attempting both dump and monitor imports"), lines)
        self.assertIn(("INFO", "Trying dump import..."), lines)
        self.assertIn(("INFO", "Trying monitor import..."), lines)
        self.assertIn(("WARNING", "No valid 'step*' directories found in: %s, Expected directory names like "
                                  "'step0'." % self.data), lines)
        self.assertIn(self.none_dump("INFO"), lines)
        self.assertNotIn(self.none_dump("ERROR"), lines)
        self.assertIn(("WARNING", "No valid monitor directories found in: %s" % self.data), lines)
        self.assert_out_files([])

    def test_empty_dump_format_is_an_error_message_but_exit_0(self):
        r = self.data2db("--format", "dump")
        lines = log_lines(r.stdout)
        self.assertIn(("INFO", "Importing data in 'dump' format"), lines)
        self.assertIn(self.none_dump("ERROR"), lines)
        self.assertFalse(any("monitor" in m for _, m in lines), r.stdout)
        self.assert_out_files([])

    def test_step_without_rank_in_auto_mode_is_error(self):
        os.makedirs(os.path.join(self.data, "step0", "rankabc"))
        r = self.data2db()
        self.assertIn(self.none_dump("ERROR"), log_lines(r.stdout))
        self.assert_out_files([])

    def test_dump_only(self):
        self.add_dump()
        r = self.data2db()
        self.assert_out_files(["dump_data.trend.db"])
        self.assertIn(("WARNING", "No valid monitor directories found in: %s" % self.data), log_lines(r.stdout))
        self.assertIn(("INFO", "Dump data import completed. DB: %s" % self.dump_db), log_lines(r.stdout))

    def test_monitor_only(self):
        self.add_monitor()
        r = self.data2db()
        self.assert_out_files(["monitor_data.trend.db"])
        self.assertIn(self.none_dump("INFO"), log_lines(r.stdout))
        self.assertIn(("INFO", "Monitor data import completed. DB: %s" % self.monitor_db), log_lines(r.stdout))
        self.assertIn(("INFO", "Rank 0 inserted 1 rows"), log_lines(r.stdout))

    def test_both_and_explicit_formats(self):
        self.add_dump()
        self.add_monitor()
        self.data2db()
        self.assert_out_files(["dump_data.trend.db", "monitor_data.trend.db"])
        shutil.rmtree(self.out)
        r = self.data2db("--format", "dump")
        self.assert_out_files(["dump_data.trend.db"])
        self.assertIn(("INFO", "Importing data in 'dump' format"), log_lines(r.stdout))
        shutil.rmtree(self.out)
        r = self.data2db("--format", "monitor")
        self.assert_out_files(["monitor_data.trend.db"])
        self.assertIn(("INFO", "Importing data in 'monitor' format"), log_lines(r.stdout))

    def test_db_folder_created_with_parents(self):
        self.add_dump()
        out = os.path.join(self.tmp, "a", "b", "c")
        self.data2db(out=out)
        self.assertTrue(os.path.isfile(os.path.join(out, "dump_data.trend.db")))

    def test_auto_one_importer_fails_the_other_runs(self):
        write(os.path.join(self.data, "step0", "rank0", "dump.json"), '{"data": {"Module.a.forward.0": {"input_args": [')
        write(os.path.join(self.data, "step0", "rank0", "construct.json"), "{}")
        self.add_monitor()
        r = self.data2db(rc=1)
        self.assertRegex(r.stderr, r"error: .*step0/rank0/dump\.json")
        self.assert_out_files(["monitor_data.trend.db"])
        self.assertEqual(len(query(self.monitor_db, "SELECT * FROM trend_data")), 1)


# -------------------------------------------------------------------------------------------------------------
# §4.8 shared fixtures


class SharedFixtures(TrendCase):
    def pangu(self):
        os.makedirs(os.path.join(self.data, "step0"))
        os.symlink(samples("cross_framework_pangu", "pytorch_data"), os.path.join(self.data, "step0", "rank0"))
        os.symlink(samples("cross_framework_pangu", "mindspore_data"), os.path.join(self.data, "step0", "rank1"))

    def test_cross_framework_pangu(self):
        self.pangu()
        for micro in ("true", "false"):
            with self.subTest(micro=micro):
                self.data2db("--micro_step", micro)
                gs = global_stats(self.dump_db)
                self.assertEqual((gs["max_rank"], gs["min_step"], gs["max_step"]), (1, 0, 0))
                for m in ("forward", "backward", "recompute", "parameters_grad"):
                    self.assertEqual(gs[m], DUMP_STATS)
                self.assertEqual(query(self.dump_db, "SELECT COUNT(*) FROM monitoring_targets"), [(38,)])
                self.assertEqual(query(self.dump_db, "SELECT COUNT(*) FROM trend_data"), [(46,)])
                self.assertEqual(
                    query(self.dump_db, "SELECT rank, metric_name, COUNT(*) FROM trend_data JOIN monitoring_metrics "
                                        "USING (metric_id) GROUP BY 1, 2 ORDER BY 1, 2"),
                    [(0, "backward", 4), (0, "forward", 22), (1, "backward", 6), (1, "forward", 14)])
                self.assertEqual(query(self.dump_db, "SELECT COUNT(*) FROM monitoring_tags"), [(35,)])
                self.assertEqual(query(self.dump_db, "SELECT COUNT(*) FROM tag_target_mapping"), [(117,)])
                self.assertEqual(query(self.dump_db, "SELECT COUNT(*) FROM monitoring_targets WHERE target_name LIKE "
                                                     "'Tensor.\\_\\_add\\_\\_%' ESCAPE '\\' OR target_name LIKE "
                                                     "'Tensor.\\_\\_or\\_\\_%' ESCAPE '\\'"), [(0,)])
                self.assertEqual(query(self.dump_db, "SELECT DISTINCT step FROM trend_data"), [(0,)])

    def test_vis_multi_step_rank(self):
        src = samples("vis_multi_step_rank")
        for micro in ("true", "false"):
            with self.subTest(micro=micro):
                r = self.data2db("--micro_step", micro, data=src)
                gs = global_stats(self.dump_db)
                self.assertEqual((gs["max_rank"], gs["min_step"], gs["max_step"]), (1, 0, 2))
                self.assertEqual(query(self.dump_db, "SELECT COUNT(*) FROM trend_data"), [(0,)])
                if micro == "true":
                    self.assertIn(("INFO", "Step 0 processing completed. Total micro steps identified: [1, 1]"),
                                  log_lines(r.stdout))

    def test_vis_bad_layout(self):
        src = samples("vis_bad_layout")
        for micro in ("true", "false"):
            with self.subTest(micro=micro):
                r = self.data2db("--micro_step", micro, data=src)
                gs = global_stats(self.dump_db)
                self.assertEqual((gs["max_rank"], gs["min_step"], gs["max_step"]), (1, 0, 1))
                self.assertEqual(query(self.dump_db, "SELECT COUNT(*) FROM trend_data"), [(0,)])
                warnings = [m for lvl, m in log_lines(r.stdout) if lvl == "WARNING"]
                if micro == "true":
                    # D-5: rank folders without construct.json are read as an empty construct.
                    self.assertTrue(any(os.path.join(src, "step0", "rank1") in m for m in warnings), warnings)
                else:
                    self.assertFalse(any("construct.json" in m for m in warnings), warnings)


# -------------------------------------------------------------------------------------------------------------
# §3.3.7 dump worked example


WORKED_CONSTRUCT = """{
 "Module.model.GPT.forward.0": null,
 "Module.model.layers.0.Layer.forward.0": "Module.model.GPT.forward.0",
 "Tensor.add.5.forward": "Module.model.layers.0.Layer.forward.0",
 "Module.model.GPT.forward.1": null,
 "Module.model.layers.0.Layer.forward.1": "Module.model.GPT.forward.1",
 "Module.model.layers.0.Layer.forward.2": "Module.model.GPT.forward.1",
 "Tensor.add.9.forward": "Module.model.layers.0.Layer.forward.1",
 "Module.model.GPT.backward.0": null,
 "Module.model.layers.0.Layer.backward.0": "Module.model.GPT.backward.0",
 "Module.model.GPT.backward.1": null,
 "optimizer": null,
 "Tensor.mul.3.forward": "optimizer"
}"""

GPT = "Module.model.GPT"
LAYER = "Module.model.layers.0.Layer"


def worked_dump():
    inf, nan = float("inf"), float("nan")
    t = tensor
    int64 = {"type": "torch.Tensor", "dtype": "torch.int64", "shape": [2], "Max": 3, "Min": 1, "Mean": 2, "Norm": 4}
    data = {
        GPT + ".forward.0": {"input_args": [t(1)], "output": [t(2)]},
        LAYER + ".forward.0": {"input_args": [t(3)], "output": [t(5e12, inf, -inf, nan)]},
        "Tensor.add.5.forward": {"input_args": [int64, t(6)], "output": [t(None, "7.5", "  -2 ", "bad")]},
        GPT + ".forward.1": {"input_args": [t(7)], "output": [t(8)]},
        LAYER + ".forward.1": {"input_args": [t(9)], "output": [t(10)]},
        LAYER + ".forward.2": {"is_recompute": True, "input_args": [t(4.0, 15.0, -3.0, 0.3)], "output": [t(11)]},
        "Tensor.add.9.forward": {"input_args": [t(12), t(13)], "output": [t(14)]},
        GPT + ".backward.0": {"input": [t(15)]},
        LAYER + ".backward.0": {"input": [t(16)], "output": [t(17)]},
        GPT + ".backward.1": {"input": [t(18)]},
        "Tensor.mul.3.forward": {"input_args": [t(19)], "output": [t(20)]},
        LAYER + ".parameters_grad.0": {"weight": [t(21)], "bias": [t(22)]},
    }
    return data


class DumpWorkedExample(TrendCase):
    def setUp(self):
        super().setUp()
        for s in (0, 1):
            self.rank_dump(s, "rank0", worked_dump(), WORKED_CONSTRUCT)

    def rows(self):
        return query(self.dump_db, "SELECT d.step, m.metric_name, t.target_name, t.micro_step, d.norm, d.max, d.min, "
                                   "d.mean FROM trend_data d JOIN monitoring_targets t USING (target_id) JOIN "
                                   "monitoring_metrics m USING (metric_id) WHERE d.rank = 0 ORDER BY 1, 2, 3, 4")

    def test_micro_on(self):
        r = self.data2db()
        self.assertIn(("INFO", "Step 0 processing completed. Total micro steps identified: [3]"), log_lines(r.stdout))
        self.assertIn(("INFO", "Step 1 processing completed. Total micro steps identified: [3]"), log_lines(r.stdout))
        gs = global_stats(self.dump_db)
        self.assertEqual(gs, {"max_rank": 0, "min_step": 0, "max_step": 5, "forward": DUMP_STATS,
                              "backward": DUMP_STATS, "recompute": DUMP_STATS, "parameters_grad": DUMP_STATS})
        self.assertEqual(columns(self.dump_db, "global_stats"),
                         ["max_rank", "min_step", "max_step", "forward", "backward", "recompute", "parameters_grad"])
        self.assertEqual(query(self.dump_db, "SELECT * FROM monitoring_metrics ORDER BY 1"),
                         [(1, "forward"), (2, "backward"), (3, "recompute"), (4, "parameters_grad")])
        # Per micro step (slot): the table of §3.3.7 with renumbered call indices.
        per_slot = {
            0: {("forward", GPT + ".input.0", 0), ("forward", GPT + ".output.0", 0),
                ("forward", LAYER + ".input.0", 0), ("forward", LAYER + ".output.0", 0),
                ("forward", "Tensor.add.input.1", 0), ("forward", "Tensor.add.output.0", 0),
                ("backward", GPT + ".input.0", 0), ("backward", LAYER + ".input.0", 0),
                ("backward", LAYER + ".output.0", 0)},
            1: {("forward", GPT + ".input.0", 0), ("forward", GPT + ".output.0", 0),
                ("forward", LAYER + ".input.0", 0), ("forward", LAYER + ".output.0", 0),
                ("recompute", LAYER + ".input.0", 1), ("recompute", LAYER + ".output.0", 1),
                ("forward", "Tensor.add.input.0", 0), ("forward", "Tensor.add.input.1", 0),
                ("forward", "Tensor.add.output.0", 0), ("backward", GPT + ".input.0", 0)},
            2: {("forward", "Tensor.mul.input.0", 0), ("forward", "Tensor.mul.output.0", 0)},
        }
        rows = self.rows()
        for folder_step in (0, 1):
            for slot, want in per_slot.items():
                got = {(m, t, mu) for s, m, t, mu, *_ in rows if s == folder_step * 3 + slot}
                self.assertEqual(got, want, "step%d slot %d" % (folder_step, slot))
        self.assertEqual(len(rows), 2 * sum(len(v) for v in per_slot.values()))
        self.assertEqual(set(targets(self.dump_db)),
                         {(n, 0, mu) for slot in per_slot.values() for _, n, mu in slot})
        self.assertEqual(len(targets(self.dump_db)), 11)
        # §4.7 sample rows (and their copies one step folder later).
        by_key = {(s, m, t, mu): v for s, m, t, mu, *v in rows}
        for off in (0, 3):
            self.assertEqual(by_key[(off, "forward", LAYER + ".output.0", 0)], [1e9, SENT_POS, SENT_NEG, None])
            self.assertEqual(by_key[(off, "forward", "Tensor.add.output.0", 0)], [None, 7.5, -2.0, None])
            self.assertEqual(by_key[(off + 1, "recompute", LAYER + ".input.0", 1)], [4.0, 15.0, -3.0, 0.3])
            self.assertEqual(by_key[(off + 2, "forward", "Tensor.mul.output.0", 0)], [20.0, 0.5, -0.5, 0.25])
            # the int64 input 0 of Tensor.add.5 is not a target, but positions still count
            self.assertNotIn((off, "forward", "Tensor.add.input.0", 0), by_key)
            self.assertEqual(by_key[(off, "forward", "Tensor.add.input.1", 0)], [6.0, 0.5, -0.5, 0.25])
        self.assertFalse(any(m == "parameters_grad" for _, m, *_ in rows))   # K-1
        self.assertEqual(query(self.dump_db, "SELECT * FROM trend_step_map ORDER BY step"),
                         [(0, 0, 0), (1, 0, 1), (2, 0, 2), (3, 1, 0), (4, 1, 1), (5, 1, 2)])
        self.assertEqual(query(self.dump_db, "SELECT value FROM trend_meta WHERE key = 'micro_step'"), [("true",)])
        self.assertEqual(columns(self.dump_db, "trend_data"),
                         ["rank", "step", "target_id", "metric_id", "norm", "max", "min", "mean"])
        tags = query(self.dump_db, "SELECT metric_name FROM monitoring_tags JOIN monitoring_metrics USING (metric_id) "
                                   "WHERE tag_name = 'layers.0' AND category = 'layer' ORDER BY metric_id")
        self.assertEqual(tags, [("forward",), ("backward",), ("recompute",)])

    def test_micro_off(self):
        self.data2db("--micro_step", "false")
        gs = global_stats(self.dump_db)
        self.assertEqual((gs["max_rank"], gs["min_step"], gs["max_step"]), (0, 0, 1))
        rows = self.rows()
        want = {
            ("forward", GPT + ".input.0", 0), ("forward", GPT + ".output.0", 0), ("forward", LAYER + ".input.0", 0),
            ("forward", LAYER + ".output.0", 0), ("forward", "Tensor.add.input.1", 5),
            ("forward", "Tensor.add.output.0", 5), ("backward", GPT + ".input.0", 0),
            ("backward", LAYER + ".input.0", 0), ("backward", LAYER + ".output.0", 0),
            ("forward", GPT + ".input.0", 1), ("forward", GPT + ".output.0", 1), ("forward", LAYER + ".input.0", 1),
            ("forward", LAYER + ".output.0", 1), ("recompute", LAYER + ".input.0", 2),
            ("recompute", LAYER + ".output.0", 2), ("forward", "Tensor.add.input.0", 9),
            ("forward", "Tensor.add.input.1", 9), ("forward", "Tensor.add.output.0", 9),
            ("backward", GPT + ".input.0", 1), ("forward", "Tensor.mul.input.0", 3),
            ("forward", "Tensor.mul.output.0", 3), ("parameters_grad", LAYER + ".weight", 0),
            ("parameters_grad", LAYER + ".bias", 0),
        }
        for step in (0, 1):
            self.assertEqual({(m, t, mu) for s, m, t, mu, *_ in rows if s == step}, want)
        self.assertEqual(len(rows), 2 * len(want))
        self.assertEqual(len(targets(self.dump_db)), 19)
        by_key = {(s, m, t, mu): v for s, m, t, mu, *v in rows}
        self.assertEqual(by_key[(1, "parameters_grad", LAYER + ".bias", 0)], [22.0, 0.5, -0.5, 0.25])
        self.assertEqual(by_key[(0, "recompute", LAYER + ".input.0", 2)], [4.0, 15.0, -3.0, 0.3])


# -------------------------------------------------------------------------------------------------------------
# §5.7 monitor worked example


MON_MLP = "module.decoder.layers.0.mlp.output"
MON_SA = "module.decoder.layers.1.self_attention.input"
MON_FC1 = "module.decoder.layers.0.mlp.linear_fc1.weight"
MON_OUT = "module.output_layer.weight"


class MonitorWorkedExample(TrendCase):
    def setUp(self):
        super().setUp()
        actv = ["vpp_stage,name,step,micro_step,norm,min,max,zeros,nans,shape,dtype"]
        for s in (0, 1):
            for mu in (0, 1):
                actv.append('0,%s,%d,%d,1.5,-0.5,2.0,0.1,0,"[2, 4]",torch.bfloat16' % (MON_MLP, s, mu))
                actv.append('0,%s,%d,%d,%s,-inf,inf,0.0,1,"[2, 4]",torch.bfloat16' % (MON_SA, s, mu,
                                                                                     "nan" if mu else "3.0"))
        grad = ["vpp_stage,name,step,norm,max,mean"]
        for s in (0, 1):
            grad.append("0,%s,%d,0.01,20000000000.0,0.001" % (MON_FC1, s))
            grad.append("1,%s,%d,0.02,0.5,0.0" % (MON_OUT, s))
        for folder in ("Dec03_21-34-40-rank0-abcd1234", "Dec03_21-34-41-rank1-efgh5678"):
            self.monitor_csv(folder, "actv_0-1.csv", "\n".join(actv) + "\n")
            self.monitor_csv(folder, "grad_reduced_0-1.csv", "\n".join(grad) + "\n")
            self.monitor_csv(folder, "exp_avg_0-1.csv", "vpp_stage,name,step,norm,id\n0,%s,0,0.3,7\n" % MON_FC1)
            self.monitor_csv(folder, "linear_hook_0-1.csv", "vpp_stage,name,step,norm\n0,hook.x,0,1\n")
            self.monitor_csv(folder, "anomaly.json", "{}\n")

    def row(self, rank, step, metric, name, vpp=0, micro=0):
        r = query(self.monitor_db, "SELECT d.norm, d.min, d.max, d.zeros, d.nans, d.mean FROM trend_data d JOIN "
                                   "monitoring_targets t USING (target_id) JOIN monitoring_metrics m USING "
                                   "(metric_id) WHERE d.rank = ? AND d.step = ? AND m.metric_name = ? AND "
                                   "t.target_name = ? AND t.vpp_stage = ? AND t.micro_step = ?",
                  (rank, step, metric, name, vpp, micro))
        self.assertEqual(len(r), 1, (rank, step, metric, name))
        return list(r[0])

    def common(self):
        self.assertEqual(query(self.monitor_db, "SELECT * FROM monitoring_metrics ORDER BY 1"),
                         [(1, "actv"), (2, "exp_avg"), (3, "grad_reduced")])
        self.assertEqual(columns(self.monitor_db, "trend_data"),
                         ["rank", "step", "target_id", "metric_id", "norm", "min", "max", "zeros", "nans", "mean"])
        self.assertEqual(query(self.monitor_db, "SELECT COUNT(*) FROM monitoring_targets WHERE target_name = 'hook.x'"),
                         [(0,)])

    def test_micro_on(self):
        r = self.data2db()
        self.common()
        self.assertEqual(targets(self.monitor_db), [(MON_MLP, 0, 0), (MON_SA, 0, 0), (MON_FC1, 0, 0), (MON_OUT, 1, 0)])
        gs = global_stats(self.monitor_db)
        self.assertEqual(gs, {"min_step": 0, "max_step": 3, "max_rank": 1, "actv": "norm,min,max,zeros,nans",
                              "exp_avg": "norm", "grad_reduced": "norm,max,mean"})
        self.assertEqual(columns(self.monitor_db, "global_stats"),
                         ["min_step", "max_step", "max_rank", "actv", "exp_avg", "grad_reduced"])
        for rank in (0, 1):
            self.assertEqual(self.row(rank, 0, "actv", MON_SA), [3.0, SENT_NEG, SENT_POS, 0.0, 1.0, None])
            self.assertEqual(self.row(rank, 1, "actv", MON_SA), [None, SENT_NEG, SENT_POS, 0.0, 1.0, None])
            self.assertEqual(self.row(rank, 2, "actv", MON_SA)[0], 3.0)
            self.assertEqual(self.row(rank, 3, "actv", MON_SA)[0], None)
            self.assertEqual(self.row(rank, 3, "actv", MON_MLP), [1.5, -0.5, 2.0, 0.1, 0.0, None])
            self.assertEqual(self.row(rank, 0, "grad_reduced", MON_FC1), [0.01, None, 1e9, None, None, 0.001])
            self.assertEqual(self.row(rank, 2, "grad_reduced", MON_FC1), [0.01, None, 1e9, None, None, 0.001])
            self.assertEqual(self.row(rank, 2, "grad_reduced", MON_OUT, vpp=1), [0.02, None, 0.5, None, None, 0.0])
            self.assertEqual(self.row(rank, 0, "exp_avg", MON_FC1), [0.3, None, None, None, None, None])
        self.assertEqual(query(self.monitor_db, "SELECT metric_name, COUNT(*) FROM trend_data JOIN monitoring_metrics "
                                                "USING (metric_id) GROUP BY 1 ORDER BY 1"),
                         [("actv", 16), ("exp_avg", 2), ("grad_reduced", 8)])
        self.assertEqual(query(self.monitor_db, "SELECT DISTINCT step FROM trend_data WHERE metric_id = 3 ORDER BY 1"),
                         [(0,), (2,)])
        self.assertEqual(query(self.monitor_db, "SELECT * FROM trend_step_map ORDER BY step"),
                         [(0, 0, 0), (1, 0, 1), (2, 1, 0), (3, 1, 1)])
        # §7.2 tags per metric: actv 9 tags / 12 links, exp_avg 7 / 7, grad_reduced 8 / 10.
        self.assertEqual(query(self.monitor_db, "SELECT metric_id, COUNT(*) FROM monitoring_tags GROUP BY 1 ORDER BY 1"),
                         [(1, 9), (2, 7), (3, 8)])
        self.assertEqual(query(self.monitor_db, "SELECT g.metric_id, COUNT(*) FROM tag_target_mapping JOIN "
                                                "monitoring_tags g USING (tag_id) GROUP BY 1 ORDER BY 1"),
                         [(1, 12), (2, 7), (3, 10)])
        self.assertEqual(query(self.monitor_db, "SELECT DISTINCT category FROM monitoring_tags ORDER BY 1"),
                         [("layer",), ("module",)])
        self.assertIn(("INFO", "Split 2 ranks into 2 batches (batch_size=100, total_files=6)"), log_lines(r.stdout))
        self.assertIn(("INFO", "Rank 1 inserted 13 rows"), log_lines(r.stdout))

    def test_micro_off(self):
        self.data2db("--micro_step", "False")
        self.common()
        self.assertEqual(targets(self.monitor_db), [(MON_MLP, 0, 0), (MON_SA, 0, 0), (MON_MLP, 0, 1), (MON_SA, 0, 1),
                                                    (MON_FC1, 0, 0), (MON_OUT, 1, 0)])
        gs = global_stats(self.monitor_db)
        self.assertEqual((gs["min_step"], gs["max_step"], gs["max_rank"]), (0, 1, 1))
        self.assertEqual(self.row(0, 0, "actv", MON_SA, micro=1), [None, SENT_NEG, SENT_POS, 0.0, 1.0, None])
        self.assertEqual(self.row(1, 1, "actv", MON_SA, micro=0)[0], 3.0)
        self.assertEqual(self.row(0, 1, "grad_reduced", MON_FC1), [0.01, None, 1e9, None, None, 0.001])
        self.assertEqual(query(self.monitor_db, "SELECT DISTINCT step FROM trend_data ORDER BY 1"), [(0,), (1,)])

    def test_process_num_does_not_change_the_database(self):
        self.data2db("--process_num", "1")
        one = all_tables(self.monitor_db)
        self.data2db("--process_num", "4")   # a second run keeps the first file and writes monitor_data_1
        self.assertEqual(all_tables(os.path.join(self.out, "monitor_data_1.trend.db")), one)


# -------------------------------------------------------------------------------------------------------------
# §8.1 replacement, D-8, D-19


class Replacement(TrendCase):
    def test_dump_and_monitor_kept_second_run_writes_a_free_name(self):
        self.rank_dump(0, "rank0", {"Module.a.forward.0": {"input_args": [tensor()]}}, {"Module.a.forward.0": None})
        self.monitor_csv("Dec03_21-34-40-rank0-abcd1234", "actv_0-0.csv", "vpp_stage,name,step,norm\n0,old,0,1\n")
        r = self.data2db()
        self.assertFalse(any("already exists" in m for _, m in log_lines(r.stdout)))
        self.rank_dump(0, "rank0", {"Module.b.forward.0": {"input_args": [tensor()]}}, {"Module.b.forward.0": None})
        self.monitor_csv("Dec03_21-34-40-rank0-abcd1234", "actv_0-0.csv", "vpp_stage,name,step,norm\n0,new,0,1\n")
        r = self.data2db()
        # A finished database is never replaced (issue 18; the reference replaces it): the second run
        # writes the first free name and says which.
        dump_1, monitor_1 = (os.path.join(self.out, n) for n in ("dump_data_1.trend.db", "monitor_data_1.trend.db"))
        # The same words as graph_visualize's (db/run_plan.h ClaimOutput).
        for db, db_1 in ((self.dump_db, dump_1), (self.monitor_db, monitor_1)):
            self.assert_logged(r, "WARNING", "%s already exists in %s (or another run is writing it); this run writes %s."
                               % (os.path.basename(db), self.out, os.path.basename(db_1)))
        self.assertEqual(targets(self.dump_db), [("Module.a.input.0", 0, 0)])
        self.assertEqual(targets(self.monitor_db), [("old", 0, 0)])
        self.assertEqual(targets(dump_1), [("Module.b.input.0", 0, 0)])
        self.assertEqual(targets(monitor_1), [("new", 0, 0)])
        self.assert_out_files(["dump_data.trend.db", "dump_data_1.trend.db", "monitor_data.trend.db", "monitor_data_1.trend.db"])

    def test_d19_monitor_folders_without_usable_csv_keep_old_database(self):
        folder = "Dec03_21-34-40-rank0-abcd1234"
        self.monitor_csv(folder, "actv_0-0.csv", "vpp_stage,name,step,norm\n0,old,0,1\n")
        self.data2db("--format", "monitor")
        before = sha(self.monitor_db)
        os.remove(os.path.join(self.data, folder, "actv_0-0.csv"))
        self.monitor_csv(folder, "stack_info.csv", "x\n")
        self.monitor_csv(folder, "actv_0-0.csv.bak", "vpp_stage,name,step,norm\n0,bak,0,1\n")
        r = self.data2db("--format", "monitor")
        self.assert_logged(r, "WARNING", "No valid CSV files found")
        self.assert_logged(r, "ERROR", "No valid data files found during pre-scan")
        self.assertEqual(sha(self.monitor_db), before)
        self.assert_out_files(["monitor_data.trend.db"])

    def test_failed_import_keeps_old_database(self):
        self.rank_dump(0, "rank0", {"Module.a.forward.0": {"input_args": [tensor()]}}, {"Module.a.forward.0": None})
        self.data2db()
        before = sha(self.dump_db)
        self.rank_dump(1, "rank0", {"Module.a.forward.0": {"input_args": [tensor()]}}, {"Module.a.forward.0": None})
        write(os.path.join(self.data, "step1", "rank0", "dump.json"), '{"data": {"Module.a.forward.0": {"input_args"')
        self.rank_dump(2, "rank0", {"Module.a.forward.0": {"input_args": [tensor()]}}, {"Module.a.forward.0": None})
        r = self.data2db(rc=1)
        self.assertIn("step1/rank0/dump.json", r.stderr)
        self.assertEqual(sha(self.dump_db), before)
        self.assert_out_files(["dump_data.trend.db"])


# -------------------------------------------------------------------------------------------------------------
# Generated data (scripts/gen_trend_data.py)


def generate(kind, out, manifest, *args):
    vp_test.run([sys.executable, GEN, kind, out, "--manifest", manifest], args, check=True)
    with open(manifest) as f:
        return json.load(f)


class GeneratedDump(TrendCase):
    PARAMS = ("--layers", 2, "--ranks", 3, "--steps", 3, "--micro", 2, "--seed", 7)

    def setUp(self):
        super().setUp()
        self.m = generate("dump", self.data, os.path.join(self.tmp, "manifest.json"), *self.PARAMS)

    def check(self, micro):
        key = "micro_on" if micro else "micro_off"
        exp = self.m[key]
        self.data2db("--micro_step", "true" if micro else "false", "--format", "dump")
        self.assertEqual(global_stats(self.dump_db), exp["global_stats"])
        self.assertEqual(query(self.dump_db, "SELECT COUNT(*) FROM trend_data"), [(exp["rows"],)])
        got = dict(query(self.dump_db, "SELECT metric_name, COUNT(d.rank) FROM monitoring_metrics LEFT JOIN trend_data d "
                                       "USING (metric_id) GROUP BY 1"))
        self.assertEqual(got, exp["rows_per_metric"])
        self.assertEqual(len(targets(self.dump_db)), exp["targets"])
        self.assertEqual({(n, mu) for n, _, mu in targets(self.dump_db)}, {tuple(t) for t in exp["target_list"]})
        self.assertEqual(query(self.dump_db, "SELECT COUNT(*) FROM monitoring_targets WHERE vpp_stage <> 0"), [(0,)])
        checked = 0
        for s in self.m["samples"]:
            step = s["db_step_on"] if micro else s["db_step_off"]
            mu = s["micro_on"] if micro else s["micro_off"]
            if step is None:
                continue
            r = query(self.dump_db, "SELECT d.norm, d.max, d.min, d.mean FROM trend_data d JOIN monitoring_targets t "
                                    "USING (target_id) JOIN monitoring_metrics m USING (metric_id) WHERE d.rank = ? "
                                    "AND d.step = ? AND m.metric_name = ? AND t.target_name = ? AND t.micro_step = ?",
                      (s["rank"], step, s["metric"], s["target"], mu))
            self.assertEqual(r, [(s["norm"], s["max"], s["min"], s["mean"])], s)
            checked += 1
        self.assertGreater(checked, 40)
        # int64 tensors are never targets (Functional.embedding input 0, Tensor.__add__ entirely).
        self.assertEqual(query(self.dump_db, "SELECT COUNT(*) FROM monitoring_targets WHERE target_name IN "
                                             "('Functional.embedding.input.0', 'Tensor.__add__.input.0', "
                                             "'Tensor.__add__.output.0')"), [(0,)])
        self.assertGreater(self.m["ignored_int_tensors"], 0)

    def test_micro_on(self):
        self.check(True)
        p = self.m["params"]
        self.assertEqual(query(self.dump_db, "SELECT COUNT(*) FROM trend_step_map"), [(p["steps"] * p["micro"],)])
        self.assertEqual(self.m["micro_on"]["rows_per_metric"]["parameters_grad"], 0)
        # the specials: output_layer Norm 2e9 -> 1e9 everywhere, Max inf -> sentinel on rank 0 only
        rows = query(self.dump_db, "SELECT d.rank, d.norm, d.max FROM trend_data d JOIN monitoring_targets t USING "
                                   "(target_id) WHERE t.target_name = 'Module.module.output_layer.ColumnParallelLinear."
                                   "output.0' AND d.metric_id = 1")
        self.assertEqual(len(rows), p["ranks"] * p["steps"] * p["micro"])
        self.assertTrue(all(n == 1e9 for _, n, _ in rows))
        self.assertTrue(all((mx == SENT_POS) == (rank == 0) for rank, _, mx in rows))

    def test_micro_off(self):
        self.check(False)
        self.assertGreater(self.m["micro_off"]["rows_per_metric"]["parameters_grad"], 0)

    def test_deterministic(self):
        again = os.path.join(self.tmp, "again")
        m2 = generate("dump", again, os.path.join(self.tmp, "manifest2.json"), *self.PARAMS)
        self.assertEqual(m2, self.m)
        for f in ("dump.json", "construct.json"):
            self.assertEqual(sha(os.path.join(self.data, "step2", "rank1", f)), sha(os.path.join(again, "step2", "rank1", f)))


class GeneratedMonitor(TrendCase):
    PARAMS = ("--ranks", 3, "--steps", 5, "--layers", 3, "--micro", 3, "--vpp", 2, "--step-stride", 10,
              "--steps-per-file", 2, "--seed", 3)

    def setUp(self):
        super().setUp()
        self.m = generate("monitor", self.data, os.path.join(self.tmp, "manifest.json"), *self.PARAMS)

    def check(self, micro, process_num="1"):
        key = "micro_on" if micro else "micro_off"
        exp = self.m[key]
        if os.path.exists(self.monitor_db):
            os.remove(self.monitor_db)   # a finished database is never replaced: each check starts afresh
        r = self.data2db("--micro_step", "true" if micro else "false", "--process_num", process_num)
        self.assertEqual(global_stats(self.monitor_db), exp["global_stats"])
        self.assertEqual(columns(self.monitor_db, "trend_data"),
                         ["rank", "step", "target_id", "metric_id"] + self.m["stat_columns"])
        self.assertEqual([n for _, n in query(self.monitor_db, "SELECT * FROM monitoring_metrics ORDER BY 1")],
                         self.m["metrics"])
        got = dict(query(self.monitor_db, "SELECT metric_name, COUNT(*) FROM trend_data JOIN monitoring_metrics "
                                          "USING (metric_id) GROUP BY 1"))
        self.assertEqual(got, self.m["rows_per_metric"])
        self.assertEqual(len(targets(self.monitor_db)), exp["targets"])
        per_metric = dict(query(self.monitor_db, "SELECT metric_name, COUNT(DISTINCT target_id) FROM trend_data JOIN "
                                                 "monitoring_metrics USING (metric_id) GROUP BY 1"))
        self.assertEqual(per_metric, exp["targets_per_metric"])
        self.assertEqual(query(self.monitor_db, "SELECT COUNT(*) FROM monitoring_targets WHERE target_name LIKE "
                                                "'module.ignored.%'"), [(0,)])
        stats = self.m["stat_columns"]
        for s in self.m["samples"]:
            step = s["db_step_on"] if micro else s["db_step_off"]
            mu = 0 if micro else s["micro"]
            r2 = query(self.monitor_db, "SELECT %s FROM trend_data d JOIN monitoring_targets t USING (target_id) JOIN "
                                        "monitoring_metrics m USING (metric_id) WHERE d.rank = ? AND d.step = ? AND "
                                        "m.metric_name = ? AND t.target_name = ? AND t.vpp_stage = ? AND "
                                        "t.micro_step = ?" % ", ".join("d." + c for c in stats),
                       (s["rank"], step, s["metric"], s["name"], s["vpp_stage"], mu))
            want = tuple(s["values"].get(c) for c in stats)
            self.assertEqual(r2, [want], s)
        self.assertGreater(len(self.m["samples"]), 20)
        files = self.m["csv_files"]
        ranks = self.m["params"]["ranks"]
        self.assertIn(("INFO", "Split %d ranks into %d batches (batch_size=100, total_files=%d)" % (ranks, ranks, files)),
                      log_lines(r.stdout))
        return all_tables(self.monitor_db)

    def test_micro_on(self):
        self.check(True)
        p = self.m["params"]
        self.assertEqual(query(self.monitor_db, "SELECT COUNT(*) FROM trend_step_map"), [(p["steps"] * p["micro"],)])
        # the inf max and the nan norm of the generator's specials
        self.assertTrue(any(s["values"].get("max") == SENT_POS for s in self.m["samples"]))
        self.assertTrue(any(s["values"].get("norm") is None for s in self.m["samples"]))

    def test_micro_off(self):
        self.check(False)

    def test_process_num_identical(self):
        for micro in (True, False):
            with self.subTest(micro=micro):
                one = self.check(micro, "1")
                four = self.check(micro, "4")
                self.assertEqual(four, one)


def main():
    global ARGS
    p = argparse.ArgumentParser()
    p.add_argument("--visprobe", required=True)
    p.add_argument("--shared", required=True)
    ARGS, rest = p.parse_known_args()
    ARGS.visprobe = os.path.abspath(ARGS.visprobe)
    ARGS.shared = os.path.abspath(ARGS.shared)
    unittest.main(argv=[sys.argv[0]] + rest, verbosity=1)


if __name__ == "__main__":
    main()
