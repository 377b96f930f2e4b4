#!/usr/bin/env python3
"""End-to-end tests of `visprobe plot_model_parallelism` (trend spec §11).

Runs the real binary in temporary folders and checks exit codes (0 written, 1 invalid
configuration, 2 usage error), the file names of §11.2 item 10, the JSON of §11.7 for worked
example B and the SVG drawing.

  python3 tests/cli/test_plot_cli.py --visprobe build/native/visprobe
"""
import argparse
import json
import os
import shutil
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET

import vp_test
from vp_test import log_lines

ARGS = None
USAGE = "usage: visprobe plot_model_parallelism"
PLOT = None   # [visprobe, "plot_model_parallelism"], set by main
SVG_NS = "{http://www.w3.org/2000/svg}"


class PlotCliTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="visprobe_plot_")
        self.out = os.path.join(self.tmp, "charts")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def plot(self, args, fmt=None):
        extra = ["--output_path", self.out] + (["--format", fmt] if fmt else [])
        r = vp_test.run(PLOT, args + extra)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stderr, "")
        return r

    def usage_error(self, args, message):
        r = vp_test.run(PLOT, args)
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        self.assertTrue(r.stderr.startswith(USAGE), r.stderr)
        self.assertTrue(r.stderr.endswith("visprobe plot_model_parallelism: error: %s\n" % message), r.stderr)
        return r

    def invalid(self, args, message):
        r = vp_test.run(PLOT, args + ["--output_path", self.out])
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertEqual(r.stderr, "error: %s\n" % message)
        self.assertFalse(os.path.exists(self.out), "nothing is written for an invalid configuration")

    # ---- success ----------------------------------------------------------------------------

    def test_json_example_b(self):
        r = self.plot(["--world_size", "8", "--num_layers", "24", "--tensor_parallel_size", "2",
                       "--pipeline_parallel_size", "2"], "json")
        path = os.path.join(self.out, "ws8_ln24_tp2_pp2_vpp1.json")
        self.assertEqual(r.stdout.splitlines()[-1], path)
        self.assertEqual(os.listdir(self.out), ["ws8_ln24_tp2_pp2_vpp1.json"])
        with open(path) as f:
            d = json.load(f)
        for key, value in {"world_size": 8, "num_layers": 24, "tp": 2, "pp": 2, "vpp": 1, "dp": 2, "tpp": 2,
                           "lps": 12, "order": "tp-cp-ep-dp-pp", "standalone_embedding_stage": False,
                           "num_layers_per_virtual_pipeline_stage": None,
                           "title": "Model Parallelism Configuration | Total Layers: 24 | DP=2 | TP=2 | PP=2 | VPP=1"
                           }.items():
            self.assertEqual(d[key], value, key)
        rows = [(row["index"], row["label"], row["ranks"], row["model_copy"], row["cells"]) for row in d["rows"]]
        self.assertEqual(rows, [(0, "Group0: Ranks0-1", [0, 1], 0, ["Embed+L1-12"]),
                                (1, "Group1: Ranks2-3", [2, 3], 1, ["Embed+L1-12"]),
                                (2, "Group2: Ranks4-5", [4, 5], 0, ["L13-24+Out"]),
                                (3, "Group3: Ranks6-7", [6, 7], 1, ["L13-24+Out"])])
        self.assertEqual(d["rows"][0]["components"], [["Embedding"] + list(range(1, 13))])
        self.assertEqual(d["rows"][3]["components"], [list(range(13, 25)) + ["OutputLayer"]])
        self.assertEqual(d["colors"], ["#1f77b4", "#aec7e8"])
        levels = [lvl for lvl, _ in log_lines(r.stdout)]
        self.assertNotIn("ERROR", levels)
        self.assertNotIn("WARNING", levels)

    def test_json_same_with_order_tp_dp_pp(self):
        self.plot(["--world_size", "8", "--num_layers", "24", "--tensor_parallel_size", "2",
                   "--pipeline_parallel_size", "2", "--order", "TP-DP-PP"], "json")
        with open(os.path.join(self.out, "ws8_ln24_tp2_pp2_vpp1.json")) as f:
            d = json.load(f)
        self.assertEqual([row["cells"][0] for row in d["rows"]],
                         ["Embed+L1-12", "Embed+L1-12", "L13-24+Out", "L13-24+Out"])
        self.assertEqual([row["model_copy"] for row in d["rows"]], [0, 1, 0, 1])

    def test_svg_default_format_example_a(self):
        r = self.plot(["--world_size", "32", "--num_layers", "48", "--tensor_parallel_size", "4",
                       "--pipeline_parallel_size", "4", "--num_layers_per_virtual_pipeline_stage", "3"])
        path = os.path.join(self.out, "ws32_ln48_tp4_pp4_vpp4.svg")
        self.assertEqual(r.stdout.splitlines()[-1], path)
        self.assertTrue(os.path.isfile(path))
        root = ET.parse(path).getroot()   # well-formed XML
        self.assertEqual(root.tag, SVG_NS + "svg")
        texts = [t.text for t in root.iter(SVG_NS + "text")]
        self.assertIn("Model Parallelism Configuration | Total Layers: 48 | DP=2 | TP=4 | PP=4 | VPP=4", texts)
        for t in ["Embed+L1-3", "L13-15", "L25-27", "L37-39", "L46-48+Out", "Group0: Ranks0-3", "Group7: Ranks28-31",
                  "Stage 0", "Stage 3", "Virtual Pipeline Stage", "TP Group", "Model Copies", "Model Copy 1",
                  "Model Copy 2"]:
            self.assertIn(t, texts)
        cells = [g for g in root.iter(SVG_NS + "g") if g.get("class") == "cells"]
        self.assertEqual(len(cells), 1)
        self.assertEqual(len(list(cells[0])), 32)
        self.assertEqual({rect.get("fill") for rect in cells[0]}, {"#1f77b4", "#aec7e8"})

    def test_svg_standalone_vpp_example_g(self):
        self.plot(["--world_size", "8", "--num_layers", "24", "--pipeline_parallel_size", "4",
                   "--standalone_embedding_stage", "true", "--num_layers_per_virtual_pipeline_stage", "2"])
        path = os.path.join(self.out, "ws8_ln24_tp1_pp4_vpp4.svg")
        root = ET.parse(path).getroot()
        texts = [t.text for t in root.iter(SVG_NS + "text")]
        for t in ["Embed", "L1-2", "L7-8", "L23-24+Out", "Rank0", "Rank7"]:
            self.assertIn(t, texts)
        cells = [g for g in root.iter(SVG_NS + "g") if g.get("class") == "cells"][0]
        self.assertEqual(len(list(cells)), 32)   # empty chunks are drawn too

    def test_default_output_path_and_file_names(self):
        r = vp_test.run(PLOT, ["--world_size", "1", "--num_layers", "1"], cwd=self.tmp)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.splitlines()[-1], "./ws1_ln1_tp1_pp1_vpp1.svg")
        self.assertTrue(os.path.isfile(os.path.join(self.tmp, "ws1_ln1_tp1_pp1_vpp1.svg")))
        for args, name in [(["--world_size", "16", "--num_layers", "24", "--tensor_parallel_size", "2",
                             "--pipeline_parallel_size", "4", "--standalone_embedding_stage", "True"],
                            "ws16_ln24_tp2_pp4_vpp1.json"),
                           (["--world_size", "4", "--num_layers", "24", "--tensor_parallel_size", "2",
                             "--num_layers_per_virtual_pipeline_stage", "24"], "ws4_ln24_tp2_pp1_vpp1.json"),
                           (["--world_size=2", "--num_layers=6", "--tensor_parallel_size=2"], "ws2_ln6_tp2_pp1_vpp1.json")]:
            self.plot(args, "json")
            self.assertTrue(os.path.isfile(os.path.join(self.out, name)), name)

    def test_existing_file_is_replaced_with_warning(self):
        args = ["--world_size", "4", "--num_layers", "8", "--pipeline_parallel_size", "2"]
        self.plot(args)
        path = os.path.join(self.out, "ws4_ln8_tp1_pp2_vpp1.svg")
        with open(path, "w") as f:
            f.write("stale")
        r = self.plot(args)
        self.assertIn(("WARNING", "Existing path will be recovered: " + path), log_lines(r.stdout))
        with open(path) as f:
            self.assertTrue(f.read().startswith("<?xml"))
        self.assertEqual(os.listdir(self.out), ["ws4_ln8_tp1_pp2_vpp1.svg"])

    def test_large_drawing_warnings(self):
        r = self.plot(["--world_size", "1024", "--num_layers", "256", "--pipeline_parallel_size", "2",
                       "--num_layers_per_virtual_pipeline_stage", "4"])   # 1024 rows x 32 chunks
        warnings = [m for lvl, m in log_lines(r.stdout) if lvl == "WARNING"]
        self.assertIn("Large-scale drawing: 32768 model stages, may take a long time", warnings)
        self.assertIn("Large-scale visualization: 32768 model stages detected, this may cause memory overflow", warnings)
        r = self.plot(["--world_size", "1024", "--num_layers", "16", "--pipeline_parallel_size", "2",
                       "--num_layers_per_virtual_pipeline_stage", "1"])   # 1024 x 8
        warnings = [m for lvl, m in log_lines(r.stdout) if lvl == "WARNING"]
        self.assertEqual(warnings, ["Large-scale drawing: 8192 model stages, may take a long time"])

    # ---- exit 1: invalid configuration ------------------------------------------------------

    def test_validation_errors(self):
        self.invalid(["--world_size", "4", "--num_layers", "24", "--tensor_parallel_size", "2",
                      "--num_layers_per_virtual_pipeline_stage", "6"],
                     "pipeline-model-parallel size should be greater than 1 with virtual-pipeline")
        self.invalid(["--world_size", "8", "--num_layers", "24", "--tensor_parallel_size", "2",
                      "--pipeline_parallel_size", "4", "--num_layers_per_virtual_pipeline_stage", "5"],
                     "number of layers per pipeline stage (6) must be divisible by number of layers per virtual "
                     "pipeline stage (5).")
        self.invalid(["--world_size", "10", "--num_layers", "24", "--tensor_parallel_size", "3",
                      "--pipeline_parallel_size", "3"],
                     "world_size (10) is not divisible by tensor_parallel_size(3) x pipeline_parallel_size (3)")
        self.invalid(["--world_size", "8", "--num_layers", "24", "--tensor_parallel_size", "8",
                      "--standalone_embedding_stage", "true"],
                     "number of layers (24) must be divisible by transformer_pipeline_parallel_size (0), which is "
                     "pipeline_parallel_size-1 when standalone_embedding_stage is enabled.")
        self.invalid(["--world_size", "8", "--num_layers", "25", "--pipeline_parallel_size", "2"],
                     "number of layers (25) must be divisible by pipeline_parallel_size (2).")
        self.invalid(["--world_size", "2048", "--num_layers", "24"],
                     "world_size (2048) exceeds the maximum supported value of 1024.")
        self.invalid(["--world_size", "8", "--num_layers", "512"],
                     "num_layers (512) exceeds the maximum supported value of 256.")
        self.invalid(["--world_size", "0", "--num_layers", "24"], "world_size must be a positive integer")
        self.invalid(["--world_size", "-4", "--num_layers", "24"], "world_size must be a positive integer")
        self.invalid(["--world_size", "8", "--num_layers", "24", "--num_layers_per_virtual_pipeline_stage", "0"],
                     "num_layers_per_virtual_pipeline_stage must be a positive integer")

    def test_order_errors(self):
        base = ["--world_size", "8", "--num_layers", "24", "--tensor_parallel_size", "2", "--pipeline_parallel_size", "2"]
        self.invalid(base + ["--order", "tp-ep-pp-dp"], "The ep and dp must be adjacent in order (tp-ep-pp-dp).")
        self.invalid(base + ["--order", "tp-dp"], "The parallel size (pp) is (2), but it's not specified in order (tp-dp).")
        self.invalid(base + ["--order", "tp-xx-dp-pp"], "invalid token 'xx' in order (tp-xx-dp-pp)")
        self.invalid(base + ["--order", "tp-dp-pp-tp"], "duplicate token 'tp' in order (tp-dp-pp-tp)")

    # ---- exit 2: usage errors ---------------------------------------------------------------

    def test_usage_errors(self):
        self.usage_error(["--world_size", "8.5", "--num_layers", "24"], "argument --world_size: invalid int value: '8.5'")
        self.usage_error(["--world_size", "x", "--num_layers", "24"], "argument --world_size: invalid int value: 'x'")
        self.usage_error(["--world_size", "8", "--num_layers", "24", "--tensor_parallel_size", "true"],
                         "argument --tensor_parallel_size: invalid int value: 'true'")
        self.usage_error(["--num_layers", "24"], "the following arguments are required: --world_size")
        self.usage_error([], "the following arguments are required: --world_size, --num_layers")
        self.usage_error(["--world_size", "8", "--num_layers", "24", "--format", "png"],
                         "argument --format: invalid choice: 'png' (choose from 'svg', 'json')")
        self.usage_error(["--world_size", "8", "--num_layers", "24", "--standalone_embedding_stage", "TRUE"],
                         "argument --standalone_embedding_stage: invalid choice: 'TRUE' "
                         "(choose from 'true', 'false', 'True', 'False')")
        self.usage_error(["--world_size", "8", "--num_layers", "24", "--unknown", "3"], "unrecognized arguments: --unknown 3")
        self.usage_error(["--world_size", "8", "--num_layers"], "argument --num_layers: expected one argument")
        self.assertFalse(os.path.exists(os.path.join(self.tmp, "charts")))

    def test_help(self):
        r = vp_test.run(PLOT, ["--help"])
        self.assertEqual(r.returncode, 0)
        self.assertTrue(r.stdout.startswith(USAGE))
        for flag in ["--world_size", "--num_layers", "--tensor_parallel_size", "--pipeline_parallel_size",
                     "--num_layers_per_virtual_pipeline_stage", "--order", "--standalone_embedding_stage",
                     "--output_path", "--format"]:
            self.assertIn(flag, r.stdout)
        top = vp_test.run(ARGS.visprobe, ["--help"])
        self.assertEqual(top.returncode, 0)
        self.assertIn("plot_model_parallelism", top.stdout)


def main():
    global ARGS, PLOT
    p = argparse.ArgumentParser()
    p.add_argument("--visprobe", required=True)
    ARGS, rest = p.parse_known_args()
    ARGS.visprobe = os.path.abspath(ARGS.visprobe)
    PLOT = [ARGS.visprobe, "plot_model_parallelism"]
    unittest.main(argv=[sys.argv[0]] + rest, verbosity=1)


if __name__ == "__main__":
    main()
