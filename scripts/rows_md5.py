#!/usr/bin/env python3
"""The rows a visprobe build writes, as one md5 per table: for checking that a refactor of the engine
changes no row in any mode (a maintainer's check, not a test: it compares two builds of visprobe).

  scripts/rows_md5.py run --cli native:build/native/visprobe --work /tmp/rows > new.json
  scripts/rows_md5.py run --cli wasm:build/wasm/visprobe.js --work /tmp/rows > new-wasm.json
  scripts/rows_md5.py diff old.json new.json

`run` makes the generated inputs once under --work (deterministic seeds), then runs every case below
(build, compare in statistics / md5 / real-tensor .npy and .pt / structure modes, fuzzy match, layer
mapping across frameworks, merge to a database and to json folders, data2db on dump and monitor runs,
sharded runs gathered, the overflow check) on one thread (VISPROBE_THREADS=1: rowids then do not
depend on scheduling), and prints, per case and output file, the md5 of every table's rows in rowid
order (every file's bytes for json output). `diff` names the cases, files and tables that differ.
Compare runs made with the same --work folder: a part's vp_shard rows and a tensor compare's
dump_data_dir hold the input folders' paths.
"""
import argparse
import hashlib
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.dirname(HERE)
SAMPLES = os.path.join(SOURCE, "..", "shared", "fixtures", "msprobe-samples")
REAL = os.path.join(SOURCE, "..", "shared", "fixtures", "msprobe-real-dumper")
WORKED = os.path.join(SOURCE, "tests", "data", "worked_example")


def gen(work, name, *args):
    out = os.path.join(work, "in", name)
    if not os.path.isdir(out):
        subprocess.run([sys.executable, os.path.join(HERE, "gen_dump.py"), out, "--seed", "7", "--force",
                        "--manifest", out + ".manifest.json", *args],
                       check=True, stdout=subprocess.DEVNULL)
    return out


def gen_trend(work, name, *args):
    out = os.path.join(work, "in", name)
    if not os.path.isdir(out):
        subprocess.run([sys.executable, os.path.join(HERE, "gen_trend_data.py"), *args[:1], out, *args[1:], "--seed", "7"],
                       check=True, stdout=subprocess.DEVNULL)
    return out


def cases(work):
    """name -> list of runs; a run is (subcommand, arguments); '{OUT}' is the case's output folder and
    '{PARTS}' the part files the case's earlier runs wrote (for gather)."""
    s = lambda *p: os.path.join(SAMPLES, *p)
    r = lambda *p: os.path.join(REAL, *p)
    w = lambda *p: os.path.join(WORKED, *p)
    small = ["--layers", "2", "--hidden", "64"]
    md5_t = gen(work, "md5_t", *small, "--task", "md5", "--golden", os.path.join(work, "in", "md5_g"), "--noise", "0.01")
    npy_t = gen(work, "npy_t", *small, "--task", "tensor", "--tensor-format", "npy", "--golden",
                os.path.join(work, "in", "npy_g"), "--noise", "0.01")
    st_t = gen(work, "struct_t", *small, "--task", "structure", "--golden", os.path.join(work, "in", "struct_g"))
    steps_t = gen(work, "steps_t", *small, "--ranks", "2", "--steps", "2", "--pp", "2", "--micro-batches", "2",
                  "--golden", os.path.join(work, "in", "steps_g"), "--noise", "0.02", "--overflow-layer", "1")
    vpp_t = gen(work, "vpp_t", "--hidden", "128", "--layers", "4", "--ranks", "8", "--tp", "2", "--pp", "2", "--vpp", "2",
                "--golden", os.path.join(work, "in", "vpp_g"), "--noise", "0.02")
    mon = gen_trend(work, "monitor", "monitor", "--ranks", "2", "--steps", "6", "--layers", "3")
    dumpt = gen_trend(work, "dumptrend", "dump", "--ranks", "2", "--steps", "3", "--layers", "3")
    gv = "graph_visualize"
    c = {
        "build_worked": [(gv, ["-tp", w("npu"), "-o", "{OUT}"])],
        "build_worked_oc": [(gv, ["-tp", w("npu"), "-oc", "-o", "{OUT}"])],
        "compare_worked_oc": [(gv, ["-tp", w("npu"), "-gp", w("bench"), "-oc", "-o", "{OUT}"])],
        "compare_worked_fm": [(gv, ["-tp", w("npu"), "-gp", w("bench"), "-fm", "-o", "{OUT}"])],
        "build_vis_builder": [(gv, ["-tp", s("vis_builder"), "-o", "{OUT}"])],
        "build_multi_step_rank_oc": [(gv, ["-tp", s("vis_multi_step_rank"), "-oc", "-o", "{OUT}"])],
        "compare_multi_step_rank": [(gv, ["-tp", s("vis_multi_step_rank"), "-gp", s("vis_multi_step_rank"), "-o", "{OUT}"])],
        "build_pangu_pt": [(gv, ["-tp", s("cross_framework_pangu", "pytorch_data"), "-o", "{OUT}"])],
        "build_pangu_ms": [(gv, ["-tp", s("cross_framework_pangu", "mindspore_data"), "-o", "{OUT}"])],
        "compare_pangu_lm": [(gv, ["-tp", s("cross_framework_pangu", "mindspore_data"), "-gp",
                                   s("cross_framework_pangu", "pytorch_data"), "-lm",
                                   s("cross_framework_pangu", "layer_mapping.yaml"), "-o", "{OUT}"])],
        "compare_layer_mapping_small": [(gv, ["-tp", s("layer_mapping_small", "mindspore"), "-gp",
                                              s("layer_mapping_small", "pytorch"), "-lm",
                                              s("layer_mapping_small", "layer_mapping.yaml"), "-o", "{OUT}"])],
        "compare_md5": [(gv, ["-tp", md5_t, "-gp", os.path.join(work, "in", "md5_g"), "-o", "{OUT}"])],
        "compare_npy": [(gv, ["-tp", npy_t, "-gp", os.path.join(work, "in", "npy_g"), "-o", "{OUT}"])],
        "compare_structure": [(gv, ["-tp", st_t, "-gp", os.path.join(work, "in", "struct_g"), "-o", "{OUT}"])],
        "compare_steps_oc": [(gv, ["-tp", steps_t, "-gp", os.path.join(work, "in", "steps_g"), "-oc", "-o", "{OUT}"])],
        "compare_steps_fm": [(gv, ["-tp", steps_t, "-gp", os.path.join(work, "in", "steps_g"), "-fm", "-o", "{OUT}"])],
        "compare_pt": [(gv, ["-tp", r("pt_tensor_target", "step0", "rank0"), "-gp", r("pt_tensor_golden", "step0", "rank0"),
                             "-o", "{OUT}"])],
        "compare_pt_fm": [(gv, ["-tp", r("pt_tensor_target", "step0", "rank0"), "-gp",
                                r("pt_tensor_golden", "step0", "rank0"), "-fm", "-o", "{OUT}"])],
        "compare_dist_oc": [(gv, ["-tp", r("dist_tp2pp2_target"), "-gp", r("dist_tp2pp2_golden"), "-oc", "-o", "{OUT}"])],
        "merge_dist_compare": [(gv, ["-tp", r("dist_tp2pp2_target", "step0"), "-gp", r("dist_tp2pp2_golden", "step0"),
                                     "--rank_size", "4", "4", "--tp", "2", "2", "--pp", "2", "2", "-o", "{OUT}"])],
        "merge_dist_build": [(gv, ["-tp", r("dist_tp2pp2_target", "step0"), "--rank_size", "4", "--tp", "2", "--pp", "2",
                                   "-o", "{OUT}"])],
        "merge_dist_json": [(gv, ["-tp", r("dist_tp2pp2_target", "step0"), "--rank_size", "4", "--tp", "2", "--pp", "2",
                                  "--file_type", "json", "-o", "{OUT}"])],
        "merge_vpp_compare": [(gv, ["-tp", vpp_t, "-gp", os.path.join(work, "in", "vpp_g"),
                                    "--rank_size", "8", "8", "--tp", "2", "2", "--pp", "2", "2", "--vpp", "2", "2",
                                    "-o", "{OUT}"])],
        "data2db_dist": [("data2db", ["--data", r("dist_tp2pp2_target"), "--db", "{OUT}"])],
        "data2db_dump": [("data2db", ["--data", dumpt, "--format", "dump", "--db", "{OUT}"])],
        "data2db_monitor": [("data2db", ["--data", mon, "--format", "monitor", "--db", "{OUT}"])],
        "shards_compare_gather": [(gv, ["-tp", steps_t, "-gp", os.path.join(work, "in", "steps_g"), "-oc", "-o", "{OUT}",
                                        "--shard", f"{i}/3"]) for i in range(3)] + [("gather", ["-o", "{OUT}/g", "{PARTS}"])],
        "shards_merge_gather": [(gv, ["-tp", vpp_t, "-gp", os.path.join(work, "in", "vpp_g"),
                                      "--rank_size", "8", "8", "--tp", "2", "2", "--pp", "2", "2", "--vpp", "2", "2",
                                      "-o", "{OUT}", "--shard", f"{i}/2"]) for i in range(2)]
                               + [("gather", ["-o", "{OUT}/g", "{PARTS}"])],
        "shards_monitor_gather": [("data2db", ["--data", mon, "--format", "monitor", "--db", "{OUT}", "--shard", f"{i}/2"])
                                  for i in range(2)] + [("gather", ["-o", "{OUT}/g", "{PARTS}"])],
        "shards_dump_gather": [("data2db", ["--data", dumpt, "--format", "dump", "--db", "{OUT}", "--shard", f"{i}/2"])
                               for i in range(2)] + [("gather", ["-o", "{OUT}/g", "{PARTS}"])],
    }
    return c


# The time a run wrote into its file (trend_meta's created_utc) is taken out of the rows.
STAMP = re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(\.\d+)?Z?")


def table_md5s(path):
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    out = {}
    for (name,) in con.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name"):
        h = hashlib.md5()
        n = 0
        try:
            rows = con.execute(f'SELECT * FROM "{name}" ORDER BY rowid').fetchall()
        except sqlite3.OperationalError:   # a WITHOUT ROWID table: its primary key's order
            pk = [c[1] for c in sorted((c for c in con.execute(f'PRAGMA table_info("{name}")') if c[5]), key=lambda c: c[5])]
            rows = con.execute(f'SELECT * FROM "{name}" ORDER BY ' + ", ".join(f'"{c}"' for c in pk)).fetchall()
        for row in rows:
            h.update(STAMP.sub("T", repr(row)).encode())
            n += 1
        out[name] = f"{n} rows {h.hexdigest()}"
    out["(schema)"] = hashlib.md5(repr(sorted(con.execute(
        "SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'").fetchall())).encode()).hexdigest()
    con.close()
    return out


def outputs(folder):
    """Every file a case wrote, named by its path under the case's folder with the run's timestamp
    taken out (build_20261207141500.vis.db -> build_T.vis.db)."""
    got = {}
    for root, _, files in os.walk(folder):
        for f in sorted(files):
            p = os.path.join(root, f)
            key = re.sub(r"\d{14}", "T", os.path.relpath(p, folder))
            if f.endswith(".db"):
                got[key] = table_md5s(p)
            elif not f.endswith(".log"):
                with open(p, "rb") as fh:
                    got[key] = hashlib.md5(fh.read()).hexdigest()
    return got


def run(args):
    kind, _, path = args.cli.partition(":")
    cmd = [os.path.abspath(path)] if kind == "native" else ["node", "--no-experimental-fetch", os.path.abspath(path)]
    env = dict(os.environ, VISPROBE_THREADS="1", NODE_PATH="/usr/share/nodejs")
    env.pop("MSPROBE_LOG_LEVEL", None)
    os.makedirs(args.work, exist_ok=True)
    result = {}
    for name, runs in cases(args.work).items():
        if args.only and name not in args.only:
            continue
        out = os.path.join(args.work, "out", kind, name)
        shutil.rmtree(out, ignore_errors=True)
        os.makedirs(out)
        failed = None
        for sub, a in runs:
            parts = sorted(os.path.join(out, f) for f in os.listdir(out) if ".part-" in f)
            full = []
            for x in a:
                if x == "{PARTS}":
                    full += parts
                else:
                    full.append(x.replace("{OUT}", out))
            p = subprocess.run(cmd + [sub] + full, env=env, capture_output=True, text=True, errors="replace")
            if p.returncode != 0:
                failed = f"exit {p.returncode}: {(p.stdout + p.stderr)[-400:]}"
                break
        result[name] = {"failed": failed} if failed else outputs(out)
        print(f"{name}: {'FAILED ' + failed if failed else str(len(result[name])) + ' files'}", file=sys.stderr)
    json.dump(result, sys.stdout, indent=1, sort_keys=True)
    print()


def diff(args):
    with open(args.old) as f:
        old = json.load(f)
    with open(args.new) as f:
        new = json.load(f)
    bad = 0
    for case in sorted(set(old) | set(new)):
        if case not in old or case not in new:
            print(f"{case}: only in {'new' if case in new else 'old'}")
            bad += 1
            continue
        a, b = old[case], new[case]
        for f in sorted(set(a) | set(b)):
            if a.get(f) != b.get(f):
                if isinstance(a.get(f), dict) and isinstance(b.get(f), dict):
                    tabs = [t for t in sorted(set(a[f]) | set(b[f])) if a[f].get(t) != b[f].get(t)]
                    print(f"{case}: {f}: {', '.join(tabs)} differ")
                else:
                    print(f"{case}: {f}: {a.get(f)} != {b.get(f)}")
                bad += 1
    n = sum(len(v) for v in new.values())
    print(f"{len(new)} cases, {n} outputs: {'all the same' if not bad else str(bad) + ' differ'}")
    return 1 if bad else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="what", required=True)
    r = sub.add_parser("run")
    r.add_argument("--cli", required=True, help="native:PATH or wasm:PATH (visprobe.js)")
    r.add_argument("--work", required=True, help="folder for the generated inputs and the outputs")
    r.add_argument("--only", nargs="*", help="cases to run (default all)")
    d = sub.add_parser("diff")
    d.add_argument("old")
    d.add_argument("new")
    a = ap.parse_args()
    if a.what == "run":
        run(a)
        return 0
    return diff(a)


if __name__ == "__main__":
    sys.exit(main())
