#!/usr/bin/env python3
"""End-to-end tests of graph merge (spec graph-engine §15) through the native CLI.

Runs are generated with scripts/gen_dump.py --consistent-stats: every tensor's statistics follow from
its logical identity (module path with global layer numbers, call, micro batch), not from the rank
layout, and a TP-sharded tensor dumps the whole tensor's Max / Min / Mean and a share of its Norm
chosen so that msProbe's TP merge (max, min, mean, sqrt of the sum of squares) gives back the whole
tensor's statistics exactly.  So the same model split with tp=2 merges back to the statistics of the
unsplit run, and a pp split merges back to the same layers.  The expectations below follow from that.

  python3 tests/cli/test_merge_cli.py --visprobe build/native/visprobe --source .
"""
import argparse
import glob
import json
import os
import re
import shutil
import sys
import tempfile
import unittest

import vp_test
from vp_test import log_lines
from vp_test import rows as query

ARGS = None
TMP = None


def gen(name, *args, layers=4):
    """A generated run (cached per name) in the shared temporary folder."""
    out = os.path.join(TMP, name)
    if not os.path.isdir(out):
        cmd = [sys.executable, os.path.join(ARGS.source, "scripts", "gen_dump.py"), out, "--model", "llama",
               "--hidden", "128", "--layers", str(layers), "--consistent-stats",
               "--manifest", os.path.join(TMP, name + ".manifest.json")] + list(args)
        vp_test.run(cmd, check=True)
    return out


class MergeCase(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="visprobe_merge_", dir=TMP)

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def visualize(self, target, *extra, golden=None):
        out = os.path.join(self.tmp, "out")
        args = ["graph_visualize", "-tp", target, "-o", out] + list(extra)
        if golden:
            args[3:3] = ["-gp", golden]
        r = vp_test.run(ARGS.visprobe, args)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        dbs = glob.glob(os.path.join(out, "*.vis.db"))
        self.assertEqual(len(dbs), 1, os.listdir(out))
        return dbs[0], r

    def refuse(self, target, message, *extra, golden=None):
        out = os.path.join(self.tmp, "out")
        args = ["graph_visualize", "-tp", target, "-o", out] + list(extra)
        if golden:
            args[3:3] = ["-gp", golden]
        r = vp_test.run(ARGS.visprobe, args)
        self.assertNotEqual(r.returncode, 0, r.stdout)
        errors = [m for lvl, m in log_lines(r.stdout) if lvl == "ERROR"]
        self.assertEqual(len(errors), 1, r.stdout)
        self.assertIn(message, errors[0])
        self.assertFalse(glob.glob(os.path.join(out, "*.vis.db*")))
        return errors[0]

    def modules(self, db, source="NPU", rank=None, step=0):
        sql = "SELECT node_name FROM tb_nodes WHERE data_source = ? AND step = ? AND node_type = '0' AND node_name LIKE 'Module.%'"
        params = [source, step]
        if rank is not None:
            sql += " AND rank = ?"
            params.append(rank)
        return sorted(r[0] for r in query(db, sql, params))

    def layers(self, db, rank=0, step=0):
        rows = query(db, "SELECT node_name FROM tb_nodes WHERE data_source = 'NPU' AND rank = ? AND step = ? "
                         "AND node_name LIKE '%TransformerLayer.forward.0' ORDER BY node_order", (rank, step))
        return [int(re.search(r"layers\.(\d+)\.", r[0]).group(1)) for r in rows]


class MergedBuilds(MergeCase):
    """Merged builds have the unsplit model's module hierarchy (§15.6-§15.8)."""

    @classmethod
    def unsplit_modules(cls, layers):
        d = gen("tp1pp1_l%d" % layers, "--ranks", "1", "--layout", "ranks", layers=layers)
        out = os.path.join(TMP, "unsplit_out_l%d" % layers)
        shutil.rmtree(out, ignore_errors=True)
        r = vp_test.run(ARGS.visprobe, ["graph_visualize", "-tp", d, "-o", out, "--rank_size", "1", "--tp", "1", "--pp", "1"])
        assert r.returncode == 0, r.stdout
        db = glob.glob(os.path.join(out, "*.vis.db"))[0]
        return sorted(x[0] for x in query(db, "SELECT node_name FROM tb_nodes WHERE node_type = '0' AND node_name LIKE 'Module.%'"))

    def test_tp2pp2(self):
        d = gen("tp2pp2", "--ranks", "4", "--tp", "2", "--pp", "2")
        db, r = self.visualize(d, "--rank_size", "4", "--tp", "2", "--pp", "2")
        infos = [m for lvl, m in log_lines(r.stdout) if lvl == "INFO"]
        # gen_dump places ranks tp-dp-pp: stage p holds ranks 2p, 2p+1; the groups come from the
        # send / all_reduce nodes.
        self.assertIn("[NPU] All pp groups is [[0, 2], [1, 3]].", infos)
        self.assertIn("[NPU] All tp groups is [[0, 1], [2, 3]].", infos)
        self.assertEqual(query(db, "SELECT rank_list, step_list FROM tb_config"), [("[0]", "[0]")])
        self.assertEqual(query(db, "SELECT DISTINCT rank FROM tb_nodes"), [(0,)])
        self.assertEqual(self.layers(db), [0, 1, 2, 3])
        self.assertEqual(self.modules(db), self.unsplit_modules(4))
        # Every rank's loose APIs end up under one collection per position, sorted by rank.
        subs = query(db, "SELECT sub_nodes FROM tb_nodes WHERE node_name = 'Apis_Between_Modules_All_Ranks.0'")
        ranks = [int(re.search(r"_Rank(\d+)\.", s).group(1)) for s in json.loads(subs[0][0])]
        self.assertEqual(ranks, sorted(ranks))
        self.assertEqual(set(ranks), {0, 1, 2, 3})
        merged = query(db, "SELECT count(*) FROM tb_nodes WHERE parallel_merge_info LIKE "
                           "'[\"This data is the merged data after tensor parallelism(TP)%'")[0][0]
        self.assertGreater(merged, 0)

    def test_tp2pp4_two_steps(self):
        d = gen("tp2pp4_s2", "--ranks", "8", "--tp", "2", "--pp", "4", "--steps", "2", layers=8)
        db, r = self.visualize(d, "--rank_size", "8", "--tp", "2", "--pp", "4")
        self.assertIn("[NPU] All pp groups is [[0, 2, 4, 6], [1, 3, 5, 7]].", [m for _, m in log_lines(r.stdout)])
        self.assertEqual(query(db, "SELECT rank_list, step_list FROM tb_config"), [("[0]", "[0, 1]")])
        self.assertEqual(query(db, "SELECT DISTINCT step, rank FROM tb_nodes ORDER BY step"), [(0, 0), (1, 0)])
        unsplit = self.unsplit_modules(8)
        for step in (0, 1):
            self.assertEqual(self.layers(db, step=step), list(range(8)))
            self.assertEqual(self.modules(db, step=step), unsplit)
        # Renamed APIs of later stages carry their rank.
        self.assertTrue(query(db, "SELECT 1 FROM tb_nodes WHERE node_name LIKE 'Torch.matmul_rank6.%' LIMIT 1"))

    def test_pp8(self):
        d = gen("pp8", "--ranks", "8", "--pp", "8", layers=8)
        db, _ = self.visualize(d, "--rank_size", "8", "--tp", "1", "--pp", "8")
        self.assertEqual(self.layers(db), list(range(8)))
        self.assertEqual(self.modules(db), self.unsplit_modules(8))
        # No TP: nothing is merged statistically.
        self.assertEqual(query(db, "SELECT count(*) FROM tb_nodes WHERE parallel_merge_info != ''"), [(0,)])

    def test_full_merge_gives_one_graph_per_dp_replica(self):
        d = gen("tp2pp2dp2", "--ranks", "8", "--tp", "2", "--pp", "2")
        db, _ = self.visualize(d, "--rank_size", "8", "--tp", "2", "--pp", "2")
        # dp = 8 / (2 * 2) = 2: replicas start at ranks 0 and 2 (tp-dp-pp placement).
        self.assertEqual(query(db, "SELECT rank_list FROM tb_config"), [("[0, 2]",)])
        for rank in (0, 2):
            self.assertEqual(self.layers(db, rank=rank), [0, 1, 2, 3])
            self.assertEqual(self.modules(db, rank=rank), self.unsplit_modules(4))


class VppMerges(MergeCase):
    """VPP (§15.8): gen_dump --vpp places model chunk k of stage p on virtual stage k*pp + p (Megatron's
    interleaved schedule) and names its modules Module.<k>.module...; --vpp 1 gives the unsplit model the
    same chunk-0 names.  The merge folds every chunk into chunk 0 and renumbers the layers, so the merged
    decoder holds layers 0..L-1 in order.  Only the modules of a later chunk that live outside the
    decoder (the output layer of the last chunk) are not carried over: vpp_chunks moves the children of
    the decoder containers and drops the other chunks' top-level modules (§15.8)."""

    @classmethod
    def vpp1_modules(cls, layers, *extra):
        d = gen("vpp1_l%d%s" % (layers, "".join(extra)), "--ranks", "1", "--layout", "ranks", "--vpp", "1", *extra,
                layers=layers)
        out = os.path.join(TMP, "vpp1_out_l%d%s" % (layers, "".join(extra)))
        shutil.rmtree(out, ignore_errors=True)
        r = vp_test.run(ARGS.visprobe, ["graph_visualize", "-tp", d, "-o", out, "--rank_size", "1", "--tp", "1", "--pp", "1"])
        assert r.returncode == 0, r.stdout
        db = glob.glob(os.path.join(out, "*.vis.db"))[0]
        return sorted(x[0] for x in query(db, "SELECT node_name FROM tb_nodes WHERE node_type = '0' AND node_name LIKE 'Module.%'"))

    def chunk0_layers(self, db, step=0):
        rows = query(db, "SELECT node_name FROM tb_nodes WHERE data_source = 'NPU' AND step = ? AND node_name LIKE "
                         "'Module.0.%.TransformerLayer.forward.0' ORDER BY node_order", (step,))
        return [int(re.search(r"layers\.(\d+)\.", r[0]).group(1)) for r in rows]

    def check_build(self, d, pp, layers, *extra):
        db, r = self.visualize(d, "--rank_size", str(pp), "--tp", "1", "--pp", str(pp), "--vpp", "2")
        self.assertIn("[NPU] All pp groups is [%s]." % list(range(pp)), [m for _, m in log_lines(r.stdout)])
        self.assertEqual(self.chunk0_layers(db), list(range(layers)))
        merged = self.modules(db)
        self.assertFalse([m for m in merged if not m.startswith("Module.0.")])
        unsplit = self.vpp1_modules(layers, *extra)
        missing = sorted(set(unsplit) - set(merged))
        self.assertTrue(missing)
        self.assertEqual([m for m in missing if not m.startswith("Module.0.module.module.output_layer.")], [])
        self.assertEqual(set(merged) - set(unsplit), set())
        return db

    def test_vpp2_pp2_build(self):
        self.check_build(gen("pp2vpp2", "--ranks", "2", "--pp", "2", "--vpp", "2", layers=8), 2, 8)

    def test_vpp2_pp4_build_two_micro_batches(self):
        d = gen("pp4vpp2_mb4", "--ranks", "4", "--pp", "4", "--vpp", "2", "--micro-batches", "4", layers=8)
        db = self.check_build(d, 4, 8, "--micro-batches", "4")
        # The dumper counts forward_step calls: one per (model chunk, micro batch), so 2 x 4 = 8.
        self.assertEqual(query(db, "SELECT micro_steps FROM tb_config"), [(8,)])
        # Each micro batch's forward holds the eight layers.
        names = [n for (n,) in query(db, "SELECT node_name FROM tb_nodes WHERE node_name LIKE "
                                         "'Module.0.module.module.decoder.layers.%.TransformerLayer.forward.%'")]
        self.assertEqual(len(names), 8 * 4)

    def check_layers_pass(self, db):
        rows = query(db, "SELECT node_name, precision_index, input_data || output_data FROM tb_nodes WHERE "
                         "data_source = 'NPU' AND node_name LIKE 'Module.0.%decoder.layers.%'")
        self.assertGreater(len(rows), 8 * 10)
        for name, index, data in rows:
            self.assertEqual(index, 0, name)
            for err in re.findall(r'"NormRelativeErr": "([^"]*)"', data):
                self.assertIn(err, ("0.0%", "N/A"), name)
        # Nothing fails outside the optimizer phase, which the merge leaves alone (§15.6).
        failed = query(db, "SELECT node_name, up_node FROM tb_nodes WHERE data_source = 'NPU' AND precision_index > 0")
        self.assertTrue(failed)
        self.assertEqual([n for n, up in failed if up not in ("clip_grad", "optimizer")], [])

    def test_vpp2_vs_vpp1_layers_pass(self):
        t = gen("pp2vpp2", "--ranks", "2", "--pp", "2", "--vpp", "2", layers=8)
        g = gen("vpp1_l8", "--ranks", "1", "--layout", "ranks", "--vpp", "1", layers=8)
        db, _ = self.visualize(t, "--rank_size", "2", "1", "--tp", "1", "1", "--pp", "2", "1", "--vpp", "2", "1", golden=g)
        self.check_layers_pass(db)

    def test_tp2_pp2_vpp2_vs_vpp1_layers_pass(self):
        t = gen("tp2pp2vpp2", "--ranks", "4", "--tp", "2", "--pp", "2", "--vpp", "2", layers=8)
        g = gen("vpp1_l8", "--ranks", "1", "--layout", "ranks", "--vpp", "1", layers=8)
        db, _ = self.visualize(t, "--rank_size", "4", "1", "--tp", "2", "1", "--pp", "2", "1", "--vpp", "2", "1", golden=g)
        self.check_layers_pass(db)
        # Every row-parallel matmul, the renumbered chunk-1 layers' too, takes its all-reduce's output
        # (§15.6.4): the TP pass meets a module before its APIs, renamed or not.
        rows = query(db, "SELECT node_name, parallel_merge_info FROM tb_nodes WHERE data_source = 'NPU' AND "
                         "node_name LIKE 'Torch.matmul%forward' AND up_node LIKE '%RowParallelLinear.forward.0'")
        self.assertEqual(len(rows), 16)
        for name, info in rows:
            self.assertIn("The output of this data is merged from Distributed.all_reduce", info, name)


class MergedOverflow(MergeCase):
    """-oc with a merge (§15.2, §11): levels found on each rank's graph stay on the merged nodes, renamed or
    not, and the check runs again over the merged pair."""

    def test_levels_on_the_merged_pair(self):
        # Layer 3 lives on rank 1 (local layer 1): its nodes come back as layers.3 and _rank1 APIs.
        t = gen("pp2_of3", "--ranks", "2", "--pp", "2", "--overflow-layer", "3")
        g = gen("tp1pp1_l4", "--ranks", "1", "--layout", "ranks")
        with open(os.path.join(TMP, "pp2_of3.manifest.json")) as f:
            flagged = [a for a in json.load(f)["anomalies"] if a["type"] == "overflow"]
        self.assertEqual([a["rank"] for a in flagged], [1])
        expected = set()
        for n in flagged[0]["nodes"]:
            if n.startswith("Module."):
                expected.add(n.replace("layers.1.", "layers.3."))
            else:
                parts = n.split(".")
                parts[1] += "_rank1"
                expected.add(".".join(parts))
        db, _ = self.visualize(t, "--rank_size", "2", "1", "--tp", "1", "1", "--pp", "2", "1", "-oc", golden=g)
        levels = dict(query(db, "SELECT node_name, overflow_level FROM tb_nodes WHERE data_source = 'NPU' AND "
                                "overflow_level IS NOT NULL"))
        self.assertEqual(set(levels), expected)
        self.assertEqual(levels["Module.module.module.decoder.layers.3.mlp.linear_fc2.RowParallelLinear.forward.0"],
                         "critical")
        self.assertEqual(query(db, "SELECT count(*) FROM tb_nodes WHERE data_source = 'Bench' AND overflow_level IS NOT NULL"),
                         [(0,)])
        self.assertEqual(query(db, "SELECT overflow_check FROM tb_config"), [(1,)])
        # Without -oc nothing is flagged.
        shutil.rmtree(os.path.join(self.tmp, "out"))
        db2, _ = self.visualize(t, "--rank_size", "2", "1", "--tp", "1", "1", "--pp", "2", "1", golden=g)
        self.assertEqual(query(db2, "SELECT count(*) FROM tb_nodes WHERE overflow_level IS NOT NULL"), [(0,)])


class MergedProgress(MergeCase):
    """-progress_log (§16.5) on merged runs: a line per change, advancing as ranks are built and groups
    merged, non-decreasing, ending at 100 with process_running false exactly once."""

    def progress(self, stdout):
        return [json.loads(m[len("PROGRESS: "):]) for lvl, m in log_lines(stdout) if m.startswith("PROGRESS: ")]

    def check(self, states, at_least):
        values = [s["current_progress"] for s in states]
        self.assertGreaterEqual(len(values), at_least, values)
        self.assertEqual(values, sorted(values))
        self.assertEqual(values[-1], 100)
        self.assertEqual([s["process_running"] for s in states], [True] * (len(states) - 1) + [False])
        self.assertEqual(states[-1]["error_msg"], [])
        self.assertLess(values[-2], 100)

    def test_merged_build(self):
        d = gen("tp2pp4_s2", "--ranks", "8", "--tp", "2", "--pp", "4", "--steps", "2", layers=8)
        out = os.path.join(self.tmp, "out")
        r = vp_test.run(ARGS.visprobe, ["graph_visualize", "-tp", d, "-o", out, "--rank_size", "8", "--tp", "2", "--pp", "4", "-progress_log"])
        self.assertEqual(r.returncode, 0, r.stdout)
        # 2 steps x 8 ranks x 2 passes, plus the merge stages: many distinct values.
        self.check(self.progress(r.stdout), 20)

    def test_merged_compare(self):
        t = gen("tp2pp2vpp2", "--ranks", "4", "--tp", "2", "--pp", "2", "--vpp", "2", layers=8)
        g = gen("vpp1_l8", "--ranks", "1", "--layout", "ranks", "--vpp", "1", layers=8)
        out = os.path.join(self.tmp, "out")
        r = vp_test.run(ARGS.visprobe, ["graph_visualize", "-tp", t, "-gp", g, "-o", out, "--rank_size", "4", "1", "--tp", "2", "1",
                                        "--pp", "2", "1", "--vpp", "2", "1", "-progress_log"])
        self.assertEqual(r.returncode, 0, r.stdout)
        self.check(self.progress(r.stdout), 10)

    def test_failed_merge_ends_not_running(self):
        t = gen("tp2dp2", "--ranks", "4", "--tp", "2")
        g = gen("tp2", "--ranks", "2", "--tp", "2")
        out = os.path.join(self.tmp, "out")
        r = vp_test.run(ARGS.visprobe, ["graph_visualize", "-tp", t, "-gp", g, "-o", out, "--rank_size", "4", "2", "--tp", "2", "2",
                                        "--pp", "1", "1", "-progress_log"])
        self.assertNotEqual(r.returncode, 0)
        states = self.progress(r.stdout)
        values = [s["current_progress"] for s in states]
        self.assertEqual(values, sorted(values))
        self.assertLess(values[-1], 100)
        self.assertEqual([s["process_running"] for s in states].count(False), 1)
        self.assertFalse(states[-1]["process_running"])
        self.assertTrue(states[-1]["error_msg"][-1].startswith("An unexpected error occurred: Parallel merge failed"))


class JsonOutput(MergeCase):
    """--file_type json (§15.9): the merged graph as a rank folder that graph_visualize reads again."""

    def test_json_output_is_read_again(self):
        d = gen("tp2pp2", "--ranks", "4", "--tp", "2", "--pp", "2")
        out = os.path.join(self.tmp, "json")
        r = vp_test.run(ARGS.visprobe, ["graph_visualize", "-tp", d, "-o", out, "--rank_size", "4", "--tp", "2", "--pp", "2", "--file_type", "json"])
        self.assertEqual(r.returncode, 0, r.stdout)
        rank_dir = os.path.join(out, "step0", "rank0")
        self.assertEqual(sorted(os.listdir(out)), ["step0"])
        self.assertEqual(sorted(os.listdir(rank_dir)), ["construct.json", "dump.json", "stack.json"])
        self.assertIn("JSON files exported to " + rank_dir, [m for _, m in log_lines(r.stdout)])
        with open(os.path.join(rank_dir, "dump.json")) as f:
            dump = json.load(f)
        self.assertIs(dump["is_merged"], True)
        self.assertEqual(dump["task"], "statistics")
        with open(os.path.join(rank_dir, "construct.json")) as f:
            construct = json.load(f)
        self.assertEqual(construct["Apis_Between_Modules_All_Ranks.0"], "DefaultModel")
        with open(os.path.join(rank_dir, "stack.json")) as f:
            stack = json.load(f)
        self.assertEqual(list(stack), [str(i) for i in range(len(stack))])
        merged_info = [k for k, v in dump["data"].items() if "parallel_merge_info" in v]
        self.assertTrue(merged_info)

        # The same run merged into a database, and the json output built as a plain STEPS folder.
        merged_db, _ = self.visualize(d, "--rank_size", "4", "--tp", "2", "--pp", "2")
        out2 = os.path.join(self.tmp, "reread")
        r = vp_test.run(ARGS.visprobe, ["graph_visualize", "-tp", out, "-o", out2])
        self.assertEqual(r.returncode, 0, r.stdout)
        reread_db = glob.glob(os.path.join(out2, "*.vis.db"))[0]
        sql = "SELECT node_name, up_node, sub_nodes, input_data, output_data FROM tb_nodes WHERE data_source = 'NPU'"
        a = {row[0]: row[1:] for row in query(merged_db, sql)}
        b = {row[0]: row[1:] for row in query(reread_db, sql)}
        self.assertEqual(set(a), set(b))
        def stats(text):
            return {k: [v.get(s) for s in ("Max", "Min", "Mean", "Norm")] for k, v in json.loads(text).items()}
        for name in a:
            self.assertEqual(a[name][:2], b[name][:2], name)                  # same parent, same children in order
            # Outputs carry the merged statistics (written over the main rank's raw entry, so a forward
            # module taking the last stage's outputs keeps its own dtype and shape).
            self.assertEqual(stats(a[name][3]), stats(b[name][3]), name)
            if name.endswith(".forward") and not name.startswith("Distributed"):
                self.assertEqual(a[name][2], b[name][2], name)                # so do the APIs' positional inputs


class MergedComparisons(MergeCase):
    """Merged comparisons (§15.2): fuzzy matching, statistics checkers without the Shape rule."""

    def counts(self, db):
        return query(db, "SELECT sum(precision_index = 0), sum(precision_index > 0), sum(matched_node_link != '[]') "
                         "FROM tb_nodes WHERE data_source = 'NPU'")[0]

    def test_threads_give_the_same_rows(self):
        """Ranks are built on a thread pool; the database is the same as with one thread (issue #4)."""
        t = gen("tp2pp2", "--ranks", "4", "--tp", "2", "--pp", "2")
        g = gen("tp1pp1_l4", "--ranks", "1", "--layout", "ranks")
        rows = {}
        for threads in ("1", "2"):
            os.environ["VISPROBE_THREADS"] = threads
            try:
                db, _ = self.visualize(t, "--rank_size", "4", "1", "--tp", "2", "1", "--pp", "2", "1", golden=g)
                rows[threads] = query(db, "SELECT * FROM tb_nodes ORDER BY step, rank, data_source, node_name")
            finally:
                os.environ.pop("VISPROBE_THREADS", None)
            shutil.rmtree(os.path.join(self.tmp, "out"))
        self.assertGreater(len(rows["1"]), 100)
        self.assertEqual(rows["1"], rows["2"])

    def test_tp2_vs_tp1_is_all_pass(self):
        t = gen("tp2", "--ranks", "2", "--tp", "2")
        g = gen("tp1pp1_l4", "--ranks", "1", "--layout", "ranks")
        db, r = self.visualize(t, "--rank_size", "2", "1", "--tp", "2", "1", "--pp", "1", "1", golden=g)
        passed, failed, matched = self.counts(db)
        self.assertEqual(failed, 0)
        self.assertGreater(passed, 200)
        self.assertEqual(query(db, "SELECT task, graph_type FROM tb_config"), [("summary", "compare")])
        # The merged statistics equal the unsplit ones: every compared item has NormRelativeErr 0, except
        # under clip_grad and optimizer, which the TP merge leaves alone (§15.6): there rank 0's shard of
        # a sharded gradient (Norm 54/90 of the whole, see gen_dump) meets the whole one.
        for name, up, data in query(db, "SELECT node_name, up_node, input_data || output_data FROM tb_nodes WHERE "
                                        "data_source = 'NPU' AND precision_index IS NOT NULL"):
            for err in re.findall(r'"NormRelativeErr": "([^"]*)"', data):
                if up in ("clip_grad", "optimizer"):
                    self.assertIn(err, ("0.0%", "40.0%", "N/A"), name)
                else:
                    self.assertIn(err, ("0.0%", "N/A"), name)
        # Every module of the unsplit model is matched; the unmatched nodes are TP-only APIs
        # (communication, vocab-parallel masking) and rank 1's loose APIs.
        self.assertEqual(self.modules(db, "NPU"), self.modules(db, "Bench"))
        unmatched = [n for (n,) in query(db, "SELECT node_name FROM tb_nodes WHERE data_source = 'NPU' AND "
                                             "matched_node_link = '[]'")]
        tp_only = re.compile(r"^(Distributed\.|Tensor\.__(lt|ge|or|sub)__\.|.*_rank1\.|Apis_Between_Modules_Rank1\.)")
        self.assertEqual([n for n in unmatched if not tp_only.match(n)], [])

    def test_pp4_vs_pp1_layers_pass(self):
        t = gen("pp4_l8", "--ranks", "4", "--pp", "4", layers=8)
        g = gen("tp1pp1_l8", "--ranks", "1", "--layout", "ranks", layers=8)
        db, _ = self.visualize(t, "--rank_size", "4", "1", "--tp", "1", "1", "--pp", "4", "1", golden=g)
        self.assertEqual(self.modules(db, "NPU"), self.modules(db, "Bench"))
        # Layers come back with the statistics of the unsplit run.
        rows = query(db, "SELECT node_name, precision_index, input_data || output_data FROM tb_nodes WHERE "
                         "data_source = 'NPU' AND node_name LIKE 'Module.%decoder.layers.%'")
        self.assertGreater(len(rows), 8 * 10)
        for name, index, data in rows:
            self.assertEqual(index, 0, name)
            for err in re.findall(r'"NormRelativeErr": "([^"]*)"', data):
                self.assertIn(err, ("0.0%", "N/A"), name)
        # The optimizer is never merged (§15.6): stage 0's fused AdamW holds only its own parameters,
        # paired positionally with all of the unsplit run's. Nothing else fails.
        failed = [n for (n,) in query(db, "SELECT node_name FROM tb_nodes WHERE data_source = 'NPU' AND precision_index > 0")]
        self.assertEqual(failed, ["Torch._fused_adamw_.0.forward"])

    def test_framework_checks_of_a_merged_compare(self):
        """The merge path runs the compare's framework checks (§8.5) as the per-rank path does."""
        src = gen("tp2", "--ranks", "2", "--tp", "2")

        def edited(name, old, new):
            dst = os.path.join(self.tmp, name)
            shutil.copytree(src, dst)
            for dump in glob.glob(os.path.join(dst, "rank*", "dump.json")):
                with open(dump) as f:
                    text = f.read()
                self.assertIn(old, text)
                with open(dump, "w") as f:
                    f.write(text.replace(old, new, 1))
            return dst

        merge = ("--rank_size", "2", "2", "--tp", "2", "2", "--pp", "1", "1")
        # No framework field on the target side: a warning, and pytorch is assumed.
        bare = edited("bare", '"framework": "pytorch",', "")
        _, r = self.visualize(bare, *merge, golden=src)
        warnings = [m for lvl, m in log_lines(r.stdout) if lvl == "WARNING"]
        self.assertIn("Unable to get framework information from target dump.json, default setting is pytorch.", warnings)
        self.assertNotIn("Unable to get framework information from golden dump.json, default setting is pytorch.", warnings)
        shutil.rmtree(os.path.join(self.tmp, "out"))
        # A framework field msProbe does not pair: refused, nothing written.
        other = edited("other", '"framework": "pytorch"', '"framework": "tensorflow"')
        self.refuse(other, "Unrecognized framework, target now is tensorflow, golden now is pytorch, please check dump.json.",
                    *merge, golden=src)

    def test_dp_mismatch(self):
        t = gen("tp2dp2", "--ranks", "4", "--tp", "2")
        g = gen("tp2", "--ranks", "2", "--tp", "2")
        self.refuse(t, "Parallel merge failed because the dp of npu: 2 is inconsistent with that of bench: 1!",
                    "--rank_size", "4", "2", "--tp", "2", "2", "--pp", "1", "1", golden=g)


class Validation(MergeCase):
    """Parameter checks of §15.1 and §16.2."""

    def test_rank_size_must_match_the_folders(self):
        d = gen("tp2", "--ranks", "2", "--tp", "2")
        self.refuse(d, '[NPU] The parallel param "rank_size" error, you set 4 but expected 2.',
                    "--rank_size", "4", "--tp", "2", "--pp", "1")

    def test_parameter_counts(self):
        d = gen("tp2", "--ranks", "2", "--tp", "2")
        self.refuse(d, 'In the graph merge task, parameters "tp/pp/rank_size" is required!', "--rank_size", "2", "--tp", "2")
        self.refuse(d, 'the number of parameters "rank_size" to be filled in is either 1!',
                    "--rank_size", "2", "2", "--tp", "2", "--pp", "1")
        self.refuse(d, 'In the graph merge compare task, the number of parameters "tp/pp/rank_size" to be filled in is either 2!',
                    "--rank_size", "2", "2", "--tp", "2", "--pp", "1", golden=d)

    def test_sizes(self):
        d = gen("tp2", "--ranks", "2", "--tp", "2")
        self.refuse(d, '[NPU] The parallel param "tp" must be less than or equal to "rank_size"!',
                    "--rank_size", "2", "--tp", "4", "--pp", "1")
        self.refuse(d, '[NPU] When configuring the parallel param "vpp", the "pp" param must be greater than 1!',
                    "--rank_size", "2", "--tp", "2", "--pp", "1", "--vpp", "2")
        self.refuse(d, '[Bench] The parallel param "rank_size" error, you set 1 but expected 2.',
                    "--rank_size", "2", "1", "--tp", "2", "1", "--pp", "1", "1", golden=d)

    def test_stray_entry_next_to_the_rank_folders(self):
        d = os.path.join(self.tmp, "run")
        shutil.copytree(gen("tp2", "--ranks", "2", "--tp", "2"), d)
        with open(os.path.join(d, "notes.txt"), "w") as f:
            f.write("x")
        self.refuse(d, "dump_dir contains 'notes.txt'", "--rank_size", "2", "--tp", "2", "--pp", "1")

    def test_json_output_rules(self):
        d = gen("tp2", "--ranks", "2", "--tp", "2")
        self.refuse(d, "The --file_type json parameter is not supported in graph comparison mode.",
                    "--rank_size", "2", "2", "--tp", "2", "2", "--pp", "1", "1", "--file_type", "json", golden=d)
        self.refuse(os.path.join(d, "rank0"), 'so the "-tp" parameter must pass in multiple rank data.',
                    "--rank_size", "1", "--tp", "1", "--pp", "1", "--file_type", "json")

    def test_single_rank_folder_builds_without_merge(self):
        d = gen("tp2", "--ranks", "2", "--tp", "2")
        db, _ = self.visualize(os.path.join(d, "rank0"), "--rank_size", "2", "--tp", "2", "--pp", "1")
        self.assertTrue(query(db, "SELECT 1 FROM tb_nodes WHERE node_name = 'Apis_Between_Modules.0'"))


def main():
    global ARGS, TMP
    p = argparse.ArgumentParser()
    p.add_argument("--visprobe", required=True)
    p.add_argument("--source", required=True)
    ARGS, rest = p.parse_known_args()
    ARGS.visprobe = os.path.abspath(ARGS.visprobe)
    ARGS.source = os.path.abspath(ARGS.source)
    TMP = tempfile.mkdtemp(prefix="visprobe_merge_runs_")
    try:
        result = unittest.main(argv=[sys.argv[0]] + rest, verbosity=1, exit=False).result
    finally:
        shutil.rmtree(TMP, ignore_errors=True)
    sys.exit(0 if result.wasSuccessful() else 1)


if __name__ == "__main__":
    main()
