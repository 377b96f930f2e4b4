#!/usr/bin/env python3
"""End-to-end tests of the native `visprobe graph_visualize` CLI (spec graph-engine §3, §13, §16, §18).

Runs the real binary on the spec's worked example, on msProbe's own sample dumps (read in place
from ../shared) and on malformed inputs made in temporary folders; reads the databases with
Python's sqlite3. Expected rows live in tests/expected/*.json; each was reviewed against the spec.

  python3 tests/cli/test_cli.py --visprobe build/native/visprobe --shared ../shared --source .
  (add --update to rewrite tests/expected after a reviewed change)
"""
import argparse
import glob
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import unittest

ARGS = None
NODE_COLUMNS = ["id", "graph_id", "node_order", "node_name", "node_type", "up_node", "sub_nodes",
                "precision_index", "overflow_level", "micro_step_id", "matched_node_link", "stack_id",
                "parallel_merge_info", "matched_distributed", "modified", "input_data", "output_data",
                "data_source", "dump_data_dir", "step", "rank", "is_distributed"]
LOG_LINE = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d \(\d+\) \[(DEBUG|INFO|WARNING|ERROR)\] (.*)$")


def samples(*parts):
    return os.path.join(ARGS.shared, "fixtures", "msprobe-samples", *parts)


def source(*parts):
    return os.path.join(ARGS.source, *parts)


def run(args, env=None, cwd=None):
    full_env = dict(os.environ)
    full_env.pop("MSPROBE_LOG_LEVEL", None)
    full_env.update(env or {})
    return subprocess.run([ARGS.visprobe] + args, capture_output=True, text=True, env=full_env, cwd=cwd, timeout=300)


def log_lines(stdout):
    out = []
    for line in stdout.splitlines():
        m = LOG_LINE.match(line)
        if m:
            out.append((m.group(1), m.group(2)))
    return out


def dump_db(path):
    """All rows of the three tables, as JSON-friendly lists (node rows keyed by column)."""
    con = sqlite3.connect(path)
    try:
        cur = con.execute("SELECT %s FROM tb_nodes ORDER BY step, rank, data_source, node_order" % ", ".join(NODE_COLUMNS))
        nodes = [dict(zip(NODE_COLUMNS, row)) for row in cur]
        stacks = [list(r) for r in con.execute("SELECT id, stack_info FROM tb_stack ORDER BY id")]
        config = [list(r) for r in con.execute("SELECT * FROM tb_config")]
    finally:
        con.close()
    return {"tb_nodes": nodes, "tb_stack": stacks, "tb_config": config}


class CliTestCase(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="visprobe_cli_")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def out_dir(self, name="out"):
        return os.path.join(self.tmp, name)

    def build_ok(self, target, extra=(), env=None, out=None):
        out = out or self.out_dir()
        r = run(["graph_visualize", "-tp", target, "-o", out] + list(extra), env=env)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        dbs = glob.glob(os.path.join(out, "build_*.vis.db"))
        self.assertEqual(len(dbs), 1, os.listdir(out))
        self.assertRegex(os.path.basename(dbs[0]), r"^build_\d{14}\.vis\.db$")
        leftovers = [f for f in os.listdir(out) if not f.endswith(".vis.db")]
        self.assertEqual(leftovers, [], "side files left next to the database")
        return dbs[0], r

    def assert_expected(self, name, got):
        path = source("tests", "expected", name + ".json")
        if ARGS.update:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                json.dump(got, f, indent=1, ensure_ascii=False)
                f.write("\n")
        with open(path) as f:
            want = json.load(f)
        self.assertEqual(got["tb_config"], want["tb_config"])
        self.assertEqual(got["tb_stack"], want["tb_stack"])
        self.assertEqual(len(got["tb_nodes"]), len(want["tb_nodes"]))
        for g, w in zip(got["tb_nodes"], want["tb_nodes"]):
            self.assertEqual(g, w)

    def refuse(self, target, must_mention, extra=(), env=None):
        """The run fails: non-zero exit, one ERROR line naming the problem, no database left."""
        out = self.out_dir()
        r = run(["graph_visualize", "-tp", target, "-o", out] + list(extra), env=env)
        self.assertNotEqual(r.returncode, 0)
        self.assertNotIn("Traceback", r.stderr)
        errors = [m for lvl, m in log_lines(r.stdout) if lvl == "ERROR"]
        self.assertEqual(len(errors), 1, r.stdout)
        for text in must_mention:
            self.assertIn(text, errors[0])
        if os.path.isdir(out):
            self.assertEqual(os.listdir(out), [], "a failed run must leave no .vis.db or temporary file")
        return errors[0]


class HelpAndArguments(CliTestCase):
    def test_help(self):
        r = run(["--help"])
        self.assertEqual(r.returncode, 0)
        self.assertIn("graph_visualize", r.stdout)
        r = run(["graph_visualize", "--help"])
        self.assertEqual(r.returncode, 0)
        for flag in ("-tp", "-gp", "-o", "-oc", "-progress_log", "-tensor_log", "--rank_size"):
            self.assertIn(flag, r.stdout)

    def test_missing_required(self):
        r = run(["graph_visualize", "-tp", samples("vis_builder")])
        self.assertEqual(r.returncode, 2)
        self.assertIn("the following arguments are required: -o/--output_path", r.stderr)

    def test_unknown_option(self):
        r = run(["graph_visualize", "-tp", samples("vis_builder"), "-o", self.out_dir(), "--bogus"])
        self.assertEqual(r.returncode, 2)
        self.assertIn("unrecognized arguments: --bogus", r.stderr)

    def test_unknown_command(self):
        r = run(["data3db"])
        self.assertEqual(r.returncode, 2)
        self.assertIn("invalid choice: 'data3db'", r.stderr)


class WorkedExample(CliTestCase):
    """Spec §18.3: graph_visualize -tp npu/step0/rank0 -o out."""

    target = property(lambda self: source("tests", "data", "worked_example", "npu", "step0", "rank0"))

    def test_rows_exact(self):
        db, r = self.build_ok(self.target)
        got = dump_db(db)
        self.assert_expected("worked_example_build", got)
        by_name = {n["node_name"]: n for n in got["tb_nodes"]}
        # A few values of §18.3 spelled out, so the expectation file cannot drift unnoticed.
        self.assertEqual(got["tb_config"], [["1", "build", "", None, 1, 0, "null", "[0]", "[0]"]])
        self.assertEqual(by_name["Torch.sum.0.backward"]["stack_id"], "NPU_0_0_2")
        self.assertEqual(by_name["DefaultModel"]["node_order"], 9)
        self.assertEqual(by_name["Apis_Between_Modules.0"]["node_type"], "9")
        self.assertEqual(by_name["Torch.sum.0.forward"]["output_data"],
                         '{"Torch.sum.0.forward.output.0": {"type": "torch.Tensor", "dtype": "torch.float32", '
                         '"shape": "[]", "Max": "inf", "Min": "inf", "Mean": "inf", "Norm": "inf", '
                         '"requires_grad": "True", "data_name": "-1"}}')
        infos = [m for lvl, m in log_lines(r.stdout) if lvl == "INFO"]
        self.assertEqual(infos[0], "Start building model graphs...")
        self.assertEqual(infos[-1], "Adding index to db file completed.")

    def test_overflow_check(self):
        db, _ = self.build_ok(self.target, ["-oc"])
        got = dump_db(db)
        levels = {n["node_name"]: n["overflow_level"] for n in got["tb_nodes"]}
        self.assertEqual(levels.pop("Torch.sum.0.forward"), "critical")
        self.assertEqual(set(levels.values()), {None})
        self.assertEqual(got["tb_config"][0][5], 1)

    def test_tiny_windows_give_the_same_rows(self):
        db1, _ = self.build_ok(self.target, out=self.out_dir("a"))
        db2, _ = self.build_ok(self.target, env={"VISPROBE_WINDOW_BYTES": "64"}, out=self.out_dir("b"))
        self.assertEqual(dump_db(db1), dump_db(db2))

    def test_indexes(self):
        db, _ = self.build_ok(self.target)
        con = sqlite3.connect(db)
        names = sorted(r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='index' AND name LIKE 'index%'"))
        mode = con.execute("PRAGMA journal_mode").fetchone()[0]
        con.close()
        self.assertEqual(names, ["index%d" % i for i in range(1, 8)])
        self.assertEqual(mode, "delete")   # self-contained: no -wal/-shm needed

    def test_progress_protocol(self):
        _, r = self.build_ok(self.target, ["-progress_log"])
        states = [json.loads(m[len("PROGRESS: "):]) for lvl, m in log_lines(r.stdout) if m.startswith("PROGRESS: ")]
        self.assertGreaterEqual(len(states), 2)
        values = [s["current_progress"] for s in states]
        self.assertEqual(values, sorted(values))
        self.assertEqual(states[-1], {"current_progress": 100.0, "process_running": False, "error_msg": []})
        self.assertEqual(sum(1 for s in states if not s["process_running"]), 1)


class SampleDumps(CliTestCase):
    """msProbe's own sample dumps (shared fixtures), built in place."""

    def test_vis_builder(self):
        db, _ = self.build_ok(samples("vis_builder"))
        got = dump_db(db)
        self.assert_expected("vis_builder_build", got)
        # §17.11: root, Module1 (module) and Tensor1 (function_api) under it; no API collection.
        self.assertEqual([(n["node_name"], n["node_type"], n["up_node"]) for n in got["tb_nodes"]],
                         [("Tensor1", "1", "Module1"), ("Module1", "0", "DefaultModel"), ("DefaultModel", "0", "")])

    def test_multi_step_rank(self):
        db, r = self.build_ok(samples("vis_multi_step_rank"))
        got = dump_db(db)
        self.assert_expected("vis_multi_step_rank_build", got)
        self.assertEqual(sorted({n["graph_id"] for n in got["tb_nodes"]}), ["NPU_0_0", "NPU_0_1", "NPU_1_0", "NPU_2_0"])
        self.assertEqual(got["tb_config"][0][7:], ["[0, 1]", "[0, 1, 2]"])
        infos = [m for lvl, m in log_lines(r.stdout) if lvl == "INFO"]
        self.assertIn("Successfully exported build graph results.", infos)

    def test_threads_do_not_change_rows(self):
        db1, _ = self.build_ok(samples("vis_multi_step_rank"), env={"VISPROBE_THREADS": "1"}, out=self.out_dir("a"))
        db2, _ = self.build_ok(samples("vis_multi_step_rank"), env={"VISPROBE_THREADS": "4"}, out=self.out_dir("b"))
        self.assertEqual(dump_db(db1), dump_db(db2))

    def test_rank_folder(self):
        db, _ = self.build_ok(samples("vis_multi_step_rank", "step0"))
        got = dump_db(db)
        self.assertEqual(sorted({n["graph_id"] for n in got["tb_nodes"]}), ["NPU_0_0", "NPU_0_1"])
        self.assertEqual(got["tb_config"][0][7:], ["[0, 1]", "[0]"])

    def test_cross_framework_pangu(self):
        # §19.4: only the nodes reachable from the root are exported (5 MindSpore rows, 4 PyTorch rows).
        for side, rows, name in (("mindspore_data", 5, "pangu_mindspore_build"), ("pytorch_data", 4, "pangu_pytorch_build")):
            db, _ = self.build_ok(samples("cross_framework_pangu", side), out=self.out_dir(side))
            got = dump_db(db)
            self.assertEqual(len(got["tb_nodes"]), rows)
            self.assert_expected(name, got)

    def test_layer_mapping_small(self):
        for side, rows in (("mindspore", 5), ("pytorch", 4)):
            db, _ = self.build_ok(samples("layer_mapping_small", side), out=self.out_dir(side))
            self.assertEqual(len(dump_db(db)["tb_nodes"]), rows)


class Refusals(CliTestCase):
    """Bad input: non-zero exit, one clear message naming the file and the problem, no database."""

    def rank_copy(self, src=None):
        d = os.path.join(self.tmp, "rank")
        shutil.copytree(src or source("tests", "data", "worked_example", "npu", "step0", "rank0"), d)
        return d

    def test_bad_layout(self):
        self.refuse(samples("vis_bad_layout"), ["vis_bad_layout/step0/rank1/construct.json", "does not exist"])

    def test_mixed_step_and_rank_folders(self):
        self.refuse(samples("vis_bad_layout", "step1"), ["does not conform to the expected naming convention"])

    def test_empty_construct(self):
        d = self.rank_copy(samples("vis_builder"))
        shutil.copyfile(samples("vis_builder", "construct_empty.json"), os.path.join(d, "construct.json"))
        self.refuse(d, ["The content of 'construct.json' is empty, failed to build graph."])

    def test_missing_target(self):
        self.refuse(os.path.join(self.tmp, "nope"), ["nope does not exist."])

    def read(self, d, name):
        with open(os.path.join(d, name)) as f:
            return f.read()

    def write(self, d, name, text):
        with open(os.path.join(d, name), "w") as f:
            f.write(text)

    def test_truncated_dump(self):
        d = self.rank_copy()
        text = self.read(d, "dump.json")
        self.write(d, "dump.json", text[: len(text) // 2])
        msg = self.refuse(d, ['load json file "dump.json" failed', os.path.join(d, "dump.json"), "@ byte"])
        self.assertIn("truncated", msg)

    def test_truncated_dump_small_windows(self):
        d = self.rank_copy()
        text = self.read(d, "dump.json")
        self.write(d, "dump.json", text[: len(text) - 40])
        self.refuse(d, ['load json file "dump.json" failed', "dump.json @ byte"], env={"VISPROBE_WINDOW_BYTES": "100"})

    def test_dump_not_an_object(self):
        d = self.rank_copy()
        self.write(d, "dump.json", "[1, 2, 3]\n")
        self.refuse(d, ['load json file "dump.json" failed'])

    def test_garbage_inside_a_record(self):
        d = self.rank_copy()
        text = self.read(d, "dump.json").replace('"Max": 0.5', '"Max": 0.5.5', 1)
        self.write(d, "dump.json", text)
        self.refuse(d, ['load json file "dump.json" failed', "dump.json @ byte"])

    def test_construct_wrong_types(self):
        d = self.rank_copy()
        self.write(d, "construct.json", '{"megatron_micro_step_number": 1, "Module.a.A.forward.0": ["x", 0, 1]}')
        self.refuse(d, ['Parse construct json file "construct.json" failed.'])
        self.write(d, "construct.json", '{"Module.a.A.forward.0": 12}')
        self.refuse(d, ['Parse construct json file "construct.json" failed.'])

    def test_stack_not_an_object(self):
        d = self.rank_copy()
        self.write(d, "stack.json", '[["a"], ["b"]]')
        self.refuse(d, ["The format of the stack.json is incorrect"])

    def test_missing_file(self):
        d = self.rank_copy()
        os.remove(os.path.join(d, "stack.json"))
        self.refuse(d, [os.path.join(d, "stack.json"), "does not exist"])

    def test_dangling_symlink(self):
        d = self.rank_copy()
        os.remove(os.path.join(d, "dump.json"))
        os.symlink(os.path.join(self.tmp, "gone.json"), os.path.join(d, "dump.json"))
        self.refuse(d, ["dump.json does not exist"])

    def test_directory_instead_of_file(self):
        d = self.rank_copy()
        os.remove(os.path.join(d, "dump.json"))
        os.mkdir(os.path.join(d, "dump.json"))
        self.refuse(d, ["dump.json should be a file"])

    @unittest.skipIf(os.geteuid() == 0, "root reads every file")
    def test_unreadable_file(self):
        d = self.rank_copy()
        os.chmod(os.path.join(d, "dump.json"), 0)
        self.refuse(d, ["dump.json is not readable"])

    def test_bad_folder_names(self):
        d = os.path.join(self.tmp, "run")
        shutil.copytree(source("tests", "data", "worked_example", "npu", "step0", "rank0"), os.path.join(d, "rank0"))
        os.mkdir(os.path.join(d, "extra"))
        self.refuse(d, ["does not conform to the expected naming convention"])

    def test_bad_step_entry(self):
        d = os.path.join(self.tmp, "run")
        shutil.copytree(source("tests", "data", "worked_example", "npu"), os.path.join(d, "step0"))
        shutil.copytree(source("tests", "data", "worked_example", "npu"), os.path.join(d, "step01"))
        self.refuse(d, ["step01"])

    def test_failure_progress(self):
        out = self.out_dir()
        r = run(["graph_visualize", "-tp", os.path.join(self.tmp, "nope"), "-o", out, "-progress_log"])
        self.assertEqual(r.returncode, 1)
        states = [json.loads(m[len("PROGRESS: "):]) for lvl, m in log_lines(r.stdout) if m.startswith("PROGRESS: ")]
        self.assertFalse(states[-1]["process_running"])
        self.assertEqual(sum(1 for s in states if not s["process_running"]), 1)
        self.assertTrue(any("does not exist" in e for e in states[-1]["error_msg"]))


def main():
    global ARGS
    p = argparse.ArgumentParser()
    p.add_argument("--visprobe", required=True)
    p.add_argument("--shared", required=True)
    p.add_argument("--source", required=True)
    p.add_argument("--update", action="store_true")
    ARGS, rest = p.parse_known_args()
    ARGS.visprobe = os.path.abspath(ARGS.visprobe)
    unittest.main(argv=[sys.argv[0]] + rest, verbosity=1)


if __name__ == "__main__":
    main()
