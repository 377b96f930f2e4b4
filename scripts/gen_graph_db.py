#!/usr/bin/env python3
"""Writes the "large fixture" of web-ui.md §11 as a compare .vis.db for the graph benchmarks: one
(step, rank), N nodes per side, maximum depth 30, the widest module with 2,000 children, leaf-dense
modules (rows of five leaves when expanded), precision in the three buckets, 2 % unmatched leaves,
a few overflow levels and communication nodes. The dump generator (gen_dump.py) makes realistic
Megatron graphs, which stack modules vertically; this one fills the window with boxes.

    python3 scripts/gen_graph_db.py OUT.vis.db [--nodes 200000] [--seed 1]
"""
import argparse
import json
import os
import random
import sqlite3

SCHEMA = """
CREATE TABLE tb_nodes (id TEXT PRIMARY KEY, graph_id TEXT NOT NULL, node_order INTEGER NOT NULL, node_name TEXT NOT NULL,
  node_type TEXT NOT NULL, up_node TEXT, sub_nodes TEXT, precision_index INTEGER, overflow_level TEXT,
  micro_step_id INTEGER NOT NULL, matched_node_link TEXT, stack_id TEXT, parallel_merge_info TEXT, matched_distributed TEXT,
  modified INTEGER NOT NULL, input_data TEXT, output_data TEXT, data_source TEXT, dump_data_dir TEXT, step INTEGER NOT NULL,
  rank INTEGER NOT NULL, is_distributed INTEGER);
CREATE TABLE tb_config (id TEXT PRIMARY KEY, graph_type TEXT NOT NULL, task TEXT, tool_tip TEXT, micro_steps INTEGER,
  overflow_check INTEGER, node_colors TEXT NOT NULL, rank_list TEXT NOT NULL, step_list TEXT NOT NULL);
CREATE TABLE tb_stack (id TEXT PRIMARY KEY, stack_info TEXT);
"""
INDEXES = """
CREATE INDEX index1 ON tb_nodes (step, rank, data_source, up_node, node_order);
CREATE INDEX index2 ON tb_nodes (step, rank, data_source, node_name);
CREATE INDEX index3 ON tb_nodes (step, rank, data_source, node_order);
CREATE INDEX index4 ON tb_nodes (step, rank, node_order);
CREATE INDEX index5 ON tb_nodes (step, rank, micro_step_id, node_order);
CREATE INDEX index6 ON tb_nodes (step, rank, modified, matched_node_link);
CREATE INDEX index7 ON tb_nodes (is_distributed);
"""
COLOURS = {"#FFFCF3": {"value": [0, 0.3], "description": "pass", "accuracy_level": "pass"},
           "#FFDC7F": {"value": [0.3, 0.6], "description": "warning", "accuracy_level": "warning"},
           "#FF704D": {"value": [0.6, 1], "description": "error", "accuracy_level": "error"},
           "#C7C7C7": {"value": [], "description": "unmatched", "accuracy_level": "unmatched node"}}


def tree(total):
    """(name, type, parent, children) in execution order: root -> layers -> blocks -> leaves."""
    nodes = {"DefaultModel": {"type": 0, "parent": "", "kids": []}}
    order = ["DefaultModel"]

    def add(name, kind, parent):
        nodes[name] = {"type": kind, "parent": parent, "kids": []}
        nodes[parent]["kids"].append(name)
        order.append(name)

    # A chain 29 modules deep (depth 30 with its leaf).
    parent = "DefaultModel"
    for d in range(29):
        name = f"Module.deep.{d}.Chain.forward.0"
        add(name, 0, parent)
        parent = name
    add("Functional.relu.0.forward", 1, parent)
    # The widest module: 2,000 leaf children.
    add("Module.wide.Wide.forward.0", 0, "DefaultModel")
    for i in range(2000):
        add(f"Module.wide.Tensor.add.{i}.forward", 1, "Module.wide.Wide.forward.0")
    api = 1
    layer = 0
    while len(order) < total:
        lname = f"Module.layers.{layer}.Layer.forward.0"
        add(lname, 0, "DefaultModel")
        for b in range(5):
            bname = f"Module.layers.{layer}.block{b}.Block.forward.0"
            add(bname, 0, lname)
            for _ in range(min(795, max(1, total - len(order)))):
                add(f"Module.layers.{layer}.block{b}.Functional.linear.{api}.forward", 1, bname)
                api += 1
            if len(order) >= total:
                break
        layer += 1
    return nodes, order


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out")
    ap.add_argument("--nodes", type=int, default=200000)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    rnd = random.Random(a.seed)
    if os.path.exists(a.out):
        os.remove(a.out)
    db = sqlite3.connect(a.out)
    db.executescript("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;" + SCHEMA)
    nodes, order = tree(a.nodes)
    unmatched = {n for n in order if nodes[n]["type"] == 1 and rnd.random() < 0.02}
    db.execute("INSERT INTO tb_config VALUES ('1', 'compare', 'summary', '{}', 1, 1, ?, '[0]', '[0]')", (json.dumps(COLOURS),))
    db.execute("INSERT INTO tb_stack VALUES ('s0', ?)", (json.dumps(["File \"train.py\", line 1, in <module>"]),))
    rows = []
    for side in ("NPU", "Bench"):
        for i, name in enumerate(order):
            n = nodes[name]
            chain = []
            p = name
            while p:
                chain.append(p)
                p = nodes[p]["parent"]
            link = "[]" if name in unmatched else json.dumps(chain[::-1])
            leaf = not n["kids"]
            prec = None
            over = None
            dist = "{}"
            if side == "NPU" and name not in unmatched:
                r = rnd.random()
                prec = 0.1 if r < 0.9 else 0.45 if r < 0.97 else 0.8
                if leaf and rnd.random() < 0.01:
                    over = rnd.choice(["medium", "high", "critical"])
                if leaf and rnd.random() < 0.001:
                    dist = json.dumps({"communications_type": "send", "nodes_info": {"0": [0.1, name]}})
            item = json.dumps({f"{name}.input.0": {"type": "torch.Tensor", "dtype": "torch.float32", "shape": "[8, 1024]",
                                                    "Max": "1.0", "Min": "-1.0", "Mean": "0.0", "Norm": "32.0"}})
            rows.append((f"{side}_0_0_{name}", f"{side}_0_0", i, name, str(n["type"]), n["parent"], json.dumps(n["kids"]) if n["kids"] else "",
                         prec, over, 0, link, "s0", "", dist, 0, item, item, side, "", 0, 0, 0))
            if len(rows) >= 20000:
                db.executemany("INSERT INTO tb_nodes VALUES (" + ",".join("?" * 22) + ")", rows)
                rows = []
    db.executemany("INSERT INTO tb_nodes VALUES (" + ",".join("?" * 22) + ")", rows)
    db.executescript(INDEXES)
    db.commit()
    db.close()
    print(f"gen_graph_db: {len(order)} nodes per side -> {a.out}")


if __name__ == "__main__":
    main()
