#!/usr/bin/env python3
"""End-to-end tests of the native `visprobe graph_visualize` CLI (spec graph-engine §3, §13, §16, §18).

Runs the real binary on the spec's worked example, on msProbe's own sample dumps (read in place
from ../shared) and on malformed inputs made in temporary folders; reads the databases with
Python's sqlite3. Expected rows live in tests/expected/*.json; each was reviewed against the spec.

  python3 tests/cli/test_cli.py --visprobe build/native/visprobe --shared ../shared --source .
  (add --update to rewrite tests/expected after a reviewed change)
"""
import argparse
import collections
import glob
import json
import os
import re
import shutil
import sqlite3
import sys
import tempfile
import unittest

import vp_test
from vp_test import declared_columns, declared_schema, log_lines
from vp_test import rows as query

ARGS = None
# tb_nodes' columns as the engine declares them (core/db/schema.cc); test_schema checks the written
# tables against that declaration and against the spec's table (§13.2).
NODE_COLUMNS = declared_columns("tb_nodes")


def samples(*parts):
    return os.path.join(ARGS.shared, "fixtures", "msprobe-samples", *parts)


def source(*parts):
    return os.path.join(ARGS.source, *parts)


def dump_db(path):
    """All rows of the three tables, as JSON-friendly lists (node rows keyed by column)."""
    nodes = [dict(zip(NODE_COLUMNS, row)) for row in
             query(path, "SELECT %s FROM tb_nodes ORDER BY step, rank, data_source, node_order" % ", ".join(NODE_COLUMNS))]
    stacks = [list(r) for r in query(path, "SELECT id, stack_info FROM tb_stack ORDER BY id")]
    config = [list(r) for r in query(path, "SELECT * FROM tb_config")]
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
        r = vp_test.run(ARGS.visprobe, ["graph_visualize", "-tp", target, "-o", out] + list(extra), env=env)
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
        r = vp_test.run(ARGS.visprobe, ["graph_visualize", "-tp", target, "-o", out] + list(extra), env=env)
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
        r = vp_test.run(ARGS.visprobe, ["--help"])
        self.assertEqual(r.returncode, 0)
        self.assertIn("graph_visualize", r.stdout)
        r = vp_test.run(ARGS.visprobe, ["graph_visualize", "--help"])
        self.assertEqual(r.returncode, 0)
        for flag in ("-tp", "-gp", "-o", "-oc", "-progress_log", "-tensor_log", "--rank_size"):
            self.assertIn(flag, r.stdout)

    def test_missing_required(self):
        r = vp_test.run(ARGS.visprobe, ["graph_visualize", "-tp", samples("vis_builder")])
        self.assertEqual(r.returncode, 2)
        self.assertIn("the following arguments are required: -o/--output_path", r.stderr)

    def test_unknown_option(self):
        r = vp_test.run(ARGS.visprobe, ["graph_visualize", "-tp", samples("vis_builder"), "-o", self.out_dir(), "--bogus"])
        self.assertEqual(r.returncode, 2)
        self.assertIn("unrecognized arguments: --bogus", r.stderr)

    def test_unknown_command(self):
        r = vp_test.run(ARGS.visprobe, ["data3db"])
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

    def test_schema(self):
        """The tables as written (PRAGMA table_info) are the engine's declaration (core/db/schema.cc), and the
        declaration of msProbe's tables is the spec's (§13.2 tb_nodes, §13.4 tb_config, §13.6 tb_stack):
        names, order and declared types."""
        db, _ = self.build_ok(self.target)
        self.assertEqual(query(db, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"),
                         [("tb_config",), ("tb_nodes",), ("tb_stack",), ("vp_badges",)])
        for table in ("tb_nodes", "tb_config", "tb_stack", "vp_badges"):
            written = [(r[1], r[2], r[3], r[5]) for r in query(db, 'PRAGMA table_info("%s")' % table)]
            declared = [(name, decl.replace(" PRIMARY KEY", "").replace(" NOT NULL", ""), int("NOT NULL" in decl),
                         int("PRIMARY KEY" in decl)) for name, decl in declared_schema(table)]
            self.assertEqual(written, declared, table)
        with open(os.path.join(ARGS.shared, "spec", "graph-engine.md")) as f:
            spec = f.read()
        section = lambda n: spec[spec.index("### 13.%d " % n):spec.index("### 13.%d " % (n + 1))]
        nodes = re.findall(r"^\| \d+ \| `(\w+)` \| ([A-Z][A-Z ]*[A-Z]) \|", section(2), re.M)
        self.assertEqual(len(nodes), 22)
        self.assertEqual(declared_schema("tb_nodes"), nodes)
        config = section(4).split("```")[1]
        self.assertEqual(declared_schema("tb_config"), [tuple(c.strip().split(" ", 1)) for c in config.split(",")])
        stack = section(6).split("`")[3]
        self.assertEqual(declared_schema("tb_stack"), [tuple(c.strip().split(" ", 1)) for c in stack.split(",")])

    def test_progress_protocol(self):
        _, r = self.build_ok(self.target, ["-progress_log"])
        states = [json.loads(m[len("PROGRESS: "):]) for lvl, m in log_lines(r.stdout) if m.startswith("PROGRESS: ")]
        self.assertGreaterEqual(len(states), 2)
        values = [s["current_progress"] for s in states]
        self.assertEqual(values, sorted(values))
        self.assertEqual(states[-1], {"current_progress": 100.0, "process_running": False, "error_msg": []})
        self.assertEqual(sum(1 for s in states if not s["process_running"]), 1)


def load_json(path):
    with open(path) as f:
        return json.load(f)


def write_json(path, obj):
    with open(path, "w") as f:
        json.dump(obj, f)


class Compare(CliTestCase):
    """Spec §18.4-§18.5: compare of the worked example and its variations."""

    def side(self, name):
        return source("tests", "data", "worked_example", name, "step0", "rank0")

    def copy_pair(self):
        t = os.path.join(self.tmp, "t")
        g = os.path.join(self.tmp, "g")
        shutil.copytree(self.side("npu"), t)
        shutil.copytree(self.side("bench"), g)
        return t, g

    def compare_ok(self, target, golden, extra=(), out=None):
        out = out or self.out_dir("out_" + "_".join(extra).replace("-", ""))
        r = vp_test.run(ARGS.visprobe, ["graph_visualize", "-tp", target, "-gp", golden, "-o", out] + list(extra))
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        dbs = glob.glob(os.path.join(out, "compare_*.vis.db"))
        self.assertEqual(len(dbs), 1)
        return dump_db(dbs[0]), r

    def test_worked_example(self):
        got, r = self.compare_ok(self.side("npu"), self.side("bench"), ["-oc"])
        self.assert_expected("worked_example_compare", got)
        npu = {n["node_name"]: n for n in got["tb_nodes"] if n["data_source"] == "NPU"}
        bench = [n for n in got["tb_nodes"] if n["data_source"] == "Bench"]
        self.assertEqual({k: v["precision_index"] for k, v in npu.items()}, {
            "Functional.linear.0.forward": 0.5, "Module.fc1.Linear.forward.0": 0.5, "Functional.relu.0.forward": 0,
            "Torch.sum.0.forward": 1, "Torch.sum.0.backward": 0, "Apis_Between_Modules.0": 1,
            "Functional.linear.0.backward": 0, "Module.fc1.Linear.parameters_grad.0": 0,
            "Module.fc1.Linear.backward.0": 0, "DefaultModel": None})
        self.assertEqual(npu["Torch.sum.0.forward"]["overflow_level"], "critical")
        self.assertEqual({n["precision_index"] for n in bench}, {None})
        self.assertEqual({n["overflow_level"] for n in bench}, {None})
        self.assertEqual(got["tb_config"][0][:3], ["1", "compare", "summary"])
        self.assertEqual(list(json.loads(got["tb_config"][0][3])), ["Max diff", "Min diff", "Mean diff", "L2norm diff"])
        colours = json.loads(got["tb_config"][0][6])
        self.assertEqual(list(colours), ["#FFFCF3", "#FFDC7F", "#FF704D", "#C7C7C7"])
        self.assertEqual(colours["#C7C7C7"]["value"], [])
        self.assertEqual(got["tb_config"][0][4:6], [1, 1])
        sum_out = json.loads(npu["Torch.sum.0.forward"]["output_data"])["Torch.sum.0.forward.output.0"]
        self.assertEqual(sum_out["Max diff"], "inf\t")
        self.assertEqual(sum_out["NormRelativeErr"], "inf%")
        infos = [m for lvl, m in log_lines(r.stdout) if lvl == "INFO"]
        self.assertEqual(infos[:2], ["Start building model graphs...", "Model graphs built successfully, start comparing graphs..."])

    def test_md5_variation(self):
        t, g = self.copy_pair()
        for side in (t, g):
            d = load_json(os.path.join(side, "dump.json"))
            for name, entry in d["data"].items():
                for part in entry.values():
                    leaves = part if isinstance(part, list) else list(part.values()) if isinstance(part, dict) else []
                    for leaf in leaves:
                        if isinstance(leaf, list):
                            leaf = leaf[0] if leaf else None
                        if isinstance(leaf, dict) and leaf.get("type") == "torch.Tensor":
                            leaf["md5"] = "aabbccdd"
            d["data"]["Torch.sum.0.forward"]["output"][0].update({"Max": 1.5, "Min": 1.5, "Mean": 1.5, "Norm": 1.5})
            if side == t:
                d["data"]["Functional.relu.0.forward"]["output"][0]["md5"] = "11223344"
                d["data"]["Torch.sum.0.forward"]["input_args"].append({"type": "float", "value": 0.5})
                d["data"]["Tensor.add.0.forward"] = {"input_args": [], "output": []}
            write_json(os.path.join(side, "dump.json"), d)
        c = load_json(os.path.join(t, "construct.json"))
        c["Tensor.add.0.forward"] = None
        write_json(os.path.join(t, "construct.json"), c)
        got, _ = self.compare_ok(t, g)
        npu = {n["node_name"]: n for n in got["tb_nodes"] if n["data_source"] == "NPU"}
        self.assertEqual(got["tb_config"][0][2], "md5")
        self.assertEqual(npu["Functional.relu.0.forward"]["precision_index"], 1)
        relu_out = json.loads(npu["Functional.relu.0.forward"]["output_data"])["Functional.relu.0.forward.output.0"]
        self.assertEqual(relu_out["Result"], "error")
        self.assertEqual(json.loads(relu_out["Err_message"]), ["error: The CRC-32 value of NPU differs from that of the bench."])
        sum_in = json.loads(npu["Torch.sum.0.forward"]["input_data"])
        self.assertEqual(sum_in["Torch.sum.0.forward.input.3"]["Result"], "error")
        self.assertEqual(sum_in["Torch.sum.0.forward.input.3"]["md5"], "869ef18d")
        extra = sum_in["Torch.sum.0.forward.input.dtype"]
        self.assertEqual(extra["Result"], "warning")
        self.assertEqual(extra["Requires_grad Consistent"], "False")
        self.assertEqual(json.loads(extra["Err_message"]), ["warning: The parameter of NPU does not match the bench."])
        self.assertEqual(extra["md5"], "d8ca9648")
        self.assertEqual(list(extra)[-4:], ["md5", "Result", "Requires_grad Consistent", "Err_message"])
        self.assertEqual(sum_in["Torch.sum.0.forward.input.2"]["md5"], "83dcefb7")
        relu_in = json.loads(npu["Functional.relu.0.forward"]["input_data"])
        self.assertEqual(relu_in["Functional.relu.0.forward.input.inplace"]["md5"], "ea0c4734")
        self.assertEqual(list(relu_out)[-5:], ["md5", "data_name", "Result", "Requires_grad Consistent", "Err_message"])
        add = npu["Tensor.add.0.forward"]
        self.assertEqual((add["matched_node_link"], add["precision_index"], add["micro_step_id"]), ("[]", None, 0))

    def test_summary_extra_argument(self):
        t, g = self.copy_pair()
        d = load_json(os.path.join(t, "dump.json"))
        d["data"]["Torch.sum.0.forward"]["input_args"].append({"type": "float", "value": 0.5})
        write_json(os.path.join(t, "dump.json"), d)
        got, _ = self.compare_ok(t, g)
        npu = {n["node_name"]: n for n in got["tb_nodes"] if n["data_source"] == "NPU"}
        sum_in = json.loads(npu["Torch.sum.0.forward"]["input_data"])
        paired = sum_in["Torch.sum.0.forward.input.3"]
        self.assertEqual({paired[k] for k in ("Max diff", "MaxRelativeErr", "NormRelativeErr")}, {"N/A"})
        self.assertEqual(json.loads(paired["Err_message"]), ["error: The scalar parameters of NPU and Bench are inconsistent.",
                                                             "error: The dtype of NPU and Bench are inconsistent."])
        extra = sum_in["Torch.sum.0.forward.input.dtype"]
        self.assertEqual({extra[k] for k in ("Max diff", "Min diff", "Mean diff", "L2norm diff", "MaxRelativeErr",
                                             "MinRelativeErr", "MeanRelativeErr", "NormRelativeErr")}, {" "})
        self.assertEqual(extra["Requires_grad Consistent"], "False")
        self.assertEqual(json.loads(extra["Err_message"]), ["error: The dtype of NPU and Bench are inconsistent.",
                                                            "error: The shape of NPU and Bench are inconsistent."])

    def rename_golden(self, g, renames):
        for fname in ("dump.json", "construct.json", "stack.json"):
            path = os.path.join(g, fname)
            with open(path) as f:
                text = f.read()
            for a, b in renames:
                text = text.replace(a, b)
            with open(path, "w") as f:
                f.write(text)

    def test_fuzzy_match(self):
        t, g = self.copy_pair()
        self.rename_golden(g, [("Functional.linear.0.", "Functional.linear.5."), ("Functional.relu.0.", "Functional.relu.3.")])
        got, _ = self.compare_ok(t, g)
        npu = {n["node_name"]: n for n in got["tb_nodes"] if n["data_source"] == "NPU"}
        self.assertEqual(npu["Functional.linear.0.forward"]["matched_node_link"], "[]")
        got, _ = self.compare_ok(t, g, ["-fm"])
        npu = {n["node_name"]: n for n in got["tb_nodes"] if n["data_source"] == "NPU"}
        self.assertEqual(json.loads(npu["Functional.linear.0.forward"]["matched_node_link"]),
                         ["DefaultModel", "Module.fc1.Linear.forward.0", "Functional.linear.5.forward"])
        self.assertEqual(json.loads(npu["Functional.relu.0.forward"]["matched_node_link"])[-1], "Functional.relu.3.forward")

    def test_structure_mode(self):
        t, g = self.copy_pair()
        for side in (t, g):
            d = load_json(os.path.join(side, "dump.json"))
            d["task"] = "structure"
            write_json(os.path.join(side, "dump.json"), d)
        got, _ = self.compare_ok(t, g)
        self.assertEqual(got["tb_config"][0][2], "structure")
        self.assertEqual(list(json.loads(got["tb_config"][0][6])), ["#C7C7C7"])
        self.assertEqual({n["precision_index"] for n in got["tb_nodes"]}, {None})
        npu = {n["node_name"]: n for n in got["tb_nodes"] if n["data_source"] == "NPU"}
        self.assertNotIn("Result", npu["Functional.relu.0.forward"]["output_data"])
        self.assertEqual(json.loads(npu["Functional.relu.0.forward"]["matched_node_link"])[-1], "Functional.relu.0.forward")

    def test_multi_step_rank_compare(self):
        out = self.out_dir()
        r = vp_test.run(ARGS.visprobe, ["graph_visualize", "-tp", samples("vis_multi_step_rank"), "-gp", samples("vis_multi_step_rank"), "-o", out])
        self.assertEqual(r.returncode, 0, r.stdout)
        got = dump_db(glob.glob(os.path.join(out, "compare_*.vis.db"))[0])
        self.assertEqual(sorted({n["graph_id"] for n in got["tb_nodes"]}),
                         ["Bench_0_0", "Bench_0_1", "Bench_1_0", "Bench_2_0", "NPU_0_0", "NPU_0_1", "NPU_1_0", "NPU_2_0"])
        self.assertIn("Successfully exported compare graph results.", [m for _, m in log_lines(r.stdout)])

    def test_cross_framework_layer_mapping(self):
        # §8.4.4 / §19.4: the PanGu pair (MindSpore target, PyTorch golden) with its mapping file.
        base = samples("cross_framework_pangu")
        got, _ = self.compare_ok(os.path.join(base, "mindspore_data"), os.path.join(base, "pytorch_data"),
                                 ["-lm", os.path.join(base, "layer_mapping.yaml")])
        npu = {n["node_name"]: n for n in got["tb_nodes"] if n["data_source"] == "NPU"}
        self.assertEqual(len(npu), 5)
        self.assertEqual(len(got["tb_nodes"]) - len(npu), 4)
        self.assertEqual(json.loads(npu["Tensor.__add__.1.forward"]["matched_node_link"])[-1], "Tensor.__add__.0.forward")
        self.assertEqual(npu["Tensor.__add__.0.forward"]["matched_node_link"], "[]")   # mapped to N/A
        # Without -lm the frameworks differ: refused (§8.5).
        self.refuse_compare(os.path.join(base, "mindspore_data"), os.path.join(base, "pytorch_data"),
                            "The cross_frame graph comparison failed.")

    def refuse_compare(self, t, g, must):
        out = self.out_dir()
        r = vp_test.run(ARGS.visprobe, ["graph_visualize", "-tp", t, "-gp", g, "-o", out])
        self.assertEqual(r.returncode, 1, r.stdout)
        errors = [m for lvl, m in log_lines(r.stdout) if lvl == "ERROR"]
        self.assertEqual(len(errors), 1, r.stdout)
        self.assertIn(must, errors[0])
        self.assertEqual(os.listdir(out) if os.path.isdir(out) else [], [])

    def test_refusals(self):
        t, g = self.copy_pair()
        d = load_json(os.path.join(g, "dump.json"))
        d["task"] = "tensor"
        write_json(os.path.join(g, "dump.json"), d)
        self.refuse_compare(t, g, "Please check the dump task is consistent.")
        d["task"] = ""
        write_json(os.path.join(g, "dump.json"), d)
        self.refuse_compare(t, g, "Task for bench is empty, please check.")
        d["task"] = "statistics"
        d["framework"] = "mindspore"
        write_json(os.path.join(g, "dump.json"), d)
        self.refuse_compare(t, g, "The cross_frame graph comparison failed.")
        self.refuse_compare(samples("vis_multi_step_rank"), samples("vis_multi_step_rank", "step0"),
                            "The directory structures of npu_path and bench_path are inconsistent.")


class Distributed(CliTestCase):
    """Spec §14: communication nodes linked across the ranks of a batch run."""

    def make_ranks(self):
        t = {"type": "torch.Tensor", "dtype": "torch.float32", "shape": [2], "Max": 1.0, "Min": 0.0, "Mean": 0.5,
             "Norm": 1.0, "requires_grad": False}
        group = {"type": "torch.ProcessGroup", "group_ranks": [0, 1], "group_id": "g1"}
        root = os.path.join(self.tmp, "run")
        for rank, p2p in ((0, ("Distributed.send.0.forward", "dst", 1)), (1, ("Distributed.recv.0.forward", "src", 0))):
            d = os.path.join(root, "rank%d" % rank)
            os.makedirs(d)
            data = {
                "Distributed.all_reduce.0.forward": {"input_args": [t], "input_kwargs": {"group": group}, "output": [t]},
                p2p[0]: {"input_args": [t], "input_kwargs": {p2p[1]: {"type": "int", "value": p2p[2]}}, "output": []},
                "Distributed.broadcast.0.forward": {"input_args": [t, {"type": "int", "value": 0}],
                                                    "input_kwargs": {"group": group}, "output": [t]},
            }
            write_json(os.path.join(d, "dump.json"), {"task": "statistics", "level": "mix", "framework": "pytorch",
                                                      "dump_data_dir": None, "data": data})
            write_json(os.path.join(d, "construct.json"), {k: None for k in data})
            write_json(os.path.join(d, "stack.json"), {})
        return root

    def test_links(self):
        root = self.make_ranks()
        db, r = self.build_ok(root)
        got = {(n["rank"], n["node_name"]): n["matched_distributed"] for n in dump_db(db)["tb_nodes"]}
        self.assertEqual(json.loads(got[(0, "Distributed.all_reduce.0.forward")]),
                         {"communications_type": "send_receive", "nodes_info": {"1": ["Nan", "Distributed.all_reduce.0.forward"]}})
        self.assertEqual(json.loads(got[(1, "Distributed.all_reduce.0.forward")]),
                         {"communications_type": "send_receive", "nodes_info": {"0": ["Nan", "Distributed.all_reduce.0.forward"]}})
        self.assertEqual(got[(0, "Distributed.send.0.forward")],
                         '{"communications_type": "send", "nodes_info": {"1": ["Nan", "Distributed.recv.0.forward"]}}')
        self.assertEqual(got[(1, "Distributed.recv.0.forward")],
                         '{"communications_type": "receive", "nodes_info": {"0": ["Nan", "Distributed.send.0.forward"]}}')
        self.assertEqual(json.loads(got[(0, "Distributed.broadcast.0.forward")])["communications_type"], "send")
        self.assertEqual(json.loads(got[(1, "Distributed.broadcast.0.forward")])["communications_type"], "receive")
        self.assertEqual(got[(0, "DefaultModel")], "{}")
        infos = [m for lvl, m in log_lines(r.stdout) if lvl == "INFO"]
        self.assertIn("Successfully analyzed distributed nodes.", infos)

    def test_compare_shows_precision(self):
        root = self.make_ranks()
        out = self.out_dir("cmp")
        r = vp_test.run(ARGS.visprobe, ["graph_visualize", "-tp", root, "-gp", root, "-o", out])
        self.assertEqual(r.returncode, 0, r.stdout)
        rows = dump_db(glob.glob(os.path.join(out, "*.vis.db"))[0])["tb_nodes"]
        got = {(n["data_source"], n["rank"], n["node_name"]): n["matched_distributed"] for n in rows}
        self.assertEqual(got[("NPU", 0, "Distributed.send.0.forward")],
                         '{"communications_type": "send", "nodes_info": {"1": ["0", "Distributed.recv.0.forward"]}}')
        self.assertEqual(got[("Bench", 0, "Distributed.send.0.forward")],
                         '{"communications_type": "send", "nodes_info": {"1": ["Nan", "Distributed.recv.0.forward"]}}')

    def test_single_folder_keeps_empty(self):
        db, _ = self.build_ok(os.path.join(self.make_ranks(), "rank0"))
        self.assertEqual({n["matched_distributed"] for n in dump_db(db)["tb_nodes"]}, {"{}"})


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

    def test_rows_go_in_in_msprobe_order(self):
        # msProbe inserts a graph's rows in node_order, the target's before the golden's (§13.3), so its
        # rowid order is that. visprobe hands rows to the writer as dump.json's records come (in file
        # order, or as two parse threads finish them with small windows); the writer puts them in in
        # msProbe's order. A dump.json with its records reversed (every row but the last comes early),
        # with a hold of 4 KiB (the early rows wait in a temporary table), gives the same file.
        gen = os.path.join(self.tmp, "gen")
        vp_test.run([sys.executable, source("scripts", "gen_dump.py"), os.path.join(gen, "target"), "--golden",
                     os.path.join(gen, "golden"), "--layers", "8", "--diverge-layer", "2"], check=True)
        rev = os.path.join(self.tmp, "reversed")
        shutil.copytree(os.path.join(gen, "target"), rev)
        with open(os.path.join(rev, "dump.json")) as f:
            dump = json.load(f, object_pairs_hook=collections.OrderedDict)
        dump["data"] = collections.OrderedDict(reversed(list(dump["data"].items())))
        with open(os.path.join(rev, "dump.json"), "w") as f:
            json.dump(dump, f, indent=1)
        def rows(db):
            return query(db, "SELECT rowid, * FROM tb_nodes ORDER BY rowid")
        for extra, kind in (([], "build"), (["-gp", os.path.join(gen, "golden")], "compare")):
            got = {}
            for name, target, env in (("one", os.path.join(gen, "target"), {"VISPROBE_THREADS": "1"}),
                                      ("two", os.path.join(gen, "target"), {"VISPROBE_THREADS": "2", "VISPROBE_WINDOW_BYTES": "16384"}),
                                      ("rev", rev, {"VISPROBE_THREADS": "2", "VISPROBE_WINDOW_BYTES": "16384", "VISPROBE_HELD_BYTES": "4096"})):
                out = self.out_dir("%s_%s" % (kind, name))
                r = vp_test.run(ARGS.visprobe, ["graph_visualize", "-tp", target, "-o", out] + extra, env=env)
                self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
                got[name] = rows(glob.glob(os.path.join(out, kind + "_*.vis.db"))[0])
            one = got["one"]
            self.assertGreater(len(one), 500, kind)
            # rowid order: per graph node_order from 0, NPU before Bench; rowids 1..n without gaps.
            self.assertEqual([r[0] for r in one], list(range(1, len(one) + 1)), kind)
            graphs = []
            for r in one:   # columns after rowid: id, graph_id, node_order, ...
                if not graphs or graphs[-1][0] != r[2]:
                    graphs.append((r[2], []))
                graphs[-1][1].append(r[3])
            self.assertEqual([g for g, _ in graphs], ["NPU_0_0"] + (["Bench_0_0"] if kind == "compare" else []), kind)
            for g, orders in graphs:
                self.assertEqual(orders, list(range(len(orders))), g)
            self.assertEqual(got["two"], one, kind)
            self.assertEqual(got["rev"], one, kind)

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

    def test_unreadable_file(self):
        d = self.rank_copy()
        os.chmod(os.path.join(d, "dump.json"), 0)
        if os.geteuid() != 0:
            self.refuse(d, ["dump.json is not readable"])
            return
        # Root reads every file: run the CLI as nobody (setpriv from util-linux drops the ids), over a
        # copy nobody may traverse, so the file's mode is what refuses it (CI runs as root).
        shared = tempfile.mkdtemp(prefix="visprobe_unreadable_", dir="/tmp")
        try:
            os.chmod(shared, 0o755)
            rank = os.path.join(shared, "rank")
            shutil.copytree(d, rank)
            os.chmod(rank, 0o777)   # msProbe requires -tp to be writable (§16.3)
            for f in os.listdir(rank):
                os.chmod(os.path.join(rank, f), 0o644)
            os.chmod(os.path.join(rank, "dump.json"), 0)
            out = os.path.join(shared, "out")
            os.mkdir(out)
            os.chmod(out, 0o777)
            binary = os.path.realpath(ARGS.visprobe)
            r = vp_test.run(["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", binary],
                            ["graph_visualize", "-tp", rank, "-o", out])
            self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
            errors = [m for lvl, m in log_lines(r.stdout) if lvl == "ERROR"]
            self.assertEqual(len(errors), 1, r.stdout + r.stderr)
            self.assertIn("dump.json is not readable", errors[0])
            self.assertEqual(os.listdir(out), [])
        finally:
            shutil.rmtree(shared, ignore_errors=True)

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
        r = vp_test.run(ARGS.visprobe, ["graph_visualize", "-tp", os.path.join(self.tmp, "nope"), "-o", out, "-progress_log"])
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
