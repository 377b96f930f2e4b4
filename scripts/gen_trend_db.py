#!/usr/bin/env python3
"""Writes a synthetic .trend.db (trend-analyzer.md §8.2 schema, §8.5 indexes, trend_step_map and
trend_meta) for tests and benchmarks. Standard library only.

  gen_trend_db.py OUT.trend.db [--format dump|monitor] [--targets N] [--ranks R] [--steps S]
                  [--micro-steps K] [--seed N] [--extra-target NAME]... [--no-index]
                  [--perturb NAME:RANK:STEP:DELTA]... [--drop-target NAME]... [--id-order forward|reverse]

Targets look like Megatron module paths (dump: `Module.model.layers.3.mlp.linear_fc1.
ColumnParallelLinear.output.0`, plus some `Functional.*` / `Tensor.*` API targets; monitor:
`module.decoder.layers.3.mlp.linear_fc1.weight`) so the §7.1 / §7.2 tag rules give layer, module,
index, default and function tags. Values follow the layer and rank with noise; about 2 % are NULL,
0.4 % are the ±1000000001 infinity sentinels and 0.2 % are clipped to ±1e9.

For A/B comparisons (web-ui BEY-11) two files with the same --seed hold the same values; then
--perturb adds DELTA to every value (not NULL, not ±inf) of target NAME on RANK from global step STEP
on, --drop-target leaves a target out (its values are still drawn, so the others do not move) and
--id-order reverse numbers the targets backwards.
"""
import argparse
import os
import random
import sqlite3
import sys

SUPPORTED_STATS = ["norm", "min", "max", "zeros", "nans", "mean", "entropy", "softmax_max", "sr",
                   "kernel_norm", "std_x", "jacobian", "proxy", "token_similarity"]
DUMP_METRICS = ["forward", "backward", "recompute", "parameters_grad"]
DUMP_STATS = ["norm", "max", "min", "mean"]
# monitor metrics with their CSV statistics (canonical metric order)
MONITOR_METRICS = [("actv", ["norm", "min", "max", "zeros", "nans"]),
                   ("exp_avg", ["norm"]),
                   ("grad_reduced", ["norm", "max", "mean"])]
BLOCKS = [("input_layernorm", "RMSNorm"), ("self_attention.linear_qkv", "ColumnParallelLinear"),
          ("self_attention.core_attention", "CoreAttention"), ("self_attention.linear_proj", "RowParallelLinear"),
          ("pre_mlp_layernorm", "RMSNorm"), ("mlp.linear_fc1", "ColumnParallelLinear"),
          ("mlp.linear_fc2", "RowParallelLinear")]
POS_INF, NEG_INF, CLIP = 1000000001.0, -1000000001.0, 1e9


def dump_tags(name):
    """§7.1 (the whole rule; it is short)."""
    parts = name.split(".")
    if len(parts) < 3:
        return []
    tags = [(parts[-2] + "." + parts[-1], "index")]
    body, seen = [], False
    for p in parts[:-2]:
        if p in ("Module", "Cell"):
            tags.append((p, "default"))
            seen = True
        else:
            body.append(p)
    if not body:
        return []
    if not seen:
        return tags + [(".".join(body), "function")]
    last_used, used = -1, {-1}
    for i, p in enumerate(body):
        if p.isdigit():
            if i == 0 or (i - 1) in used:
                used.add(i)
                last_used = i
                continue
            tags.append((body[i - 1] + "." + p, "layer"))
            seg = ".".join(body[last_used + 1:i - 1])
            if seg:
                tags.append((seg, "module"))
            used.add(i)
            last_used = i
    rest = ".".join(body[last_used + 1:])
    if last_used != len(body) - 1 and rest:
        tags.append((rest, "module"))
    return tags


def monitor_tags(name):
    """§7.2."""
    parts = name.split(".")
    tags = []
    for i in range(len(parts) - 1, -1, -1):
        p = parts[i]
        if not p.isdigit():
            tags.append((p, "module"))
        elif i > 0 and not parts[i - 1].isdigit():
            tags.append((parts[i - 1] + "." + p, "layer"))
    return tags


def dump_targets(n, extra):
    """(name, vpp_stage, micro_step) in model order, n of them (+ extra names)."""
    out = [("Module.model.embedding.VocabParallelEmbedding.output.0", 0, 0)]
    layer = 0
    while len(out) < n:
        for block, cls in BLOCKS:
            for io in ("input.0", "output.0"):
                out.append((f"Module.model.layers.{layer}.{block}.{cls}.{io}", 0, 0))
        # API calls between the modules; the call index becomes micro_step (§4.4)
        out.append(("Functional.linear.output.0", 0, layer))
        out.append(("Tensor.add.output.0", 0, layer))
        layer += 1
    out = out[:n]
    return out + [(e, 0, 0) for e in extra]


def monitor_targets(n, extra):
    out = []
    layer = 0
    while len(out) < n:
        for block, _ in BLOCKS:
            out.append((f"module.decoder.layers.{layer}.{block}.weight", 0, 0))
        out.append((f"module.decoder.layers.{layer}.mlp.output", 1 if layer % 2 else 0, 0))
        layer += 1
    return out[:n] + [(e, 0, 0) for e in extra]


def value(rng, base):
    r = rng.random()
    if r < 0.02:
        return None
    if r < 0.022:
        return POS_INF
    if r < 0.024:
        return NEG_INF
    if r < 0.025:
        return CLIP
    if r < 0.026:
        return -CLIP
    return base * (0.8 + 0.4 * rng.random())


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out")
    ap.add_argument("--format", choices=["dump", "monitor"], default="dump")
    ap.add_argument("--targets", type=int, default=40, help="targets of the first metric")
    ap.add_argument("--ranks", type=int, default=4)
    ap.add_argument("--steps", type=int, default=3, help="steps (iterations)")
    ap.add_argument("--micro-steps", type=int, default=1, help=">1: global slots step*K+µ and a trend_step_map")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--extra-target", action="append", default=[], help="an additional target name (e.g. a hostile one)")
    ap.add_argument("--no-index", action="store_true", help="omit the §8.5 indexes")
    ap.add_argument("--perturb", action="append", default=[], metavar="NAME:RANK:STEP:DELTA",
                    help="add DELTA to the finite values of target NAME on RANK at global steps >= STEP")
    ap.add_argument("--drop-target", action="append", default=[], help="a target left out (no rows, no id, no tags)")
    ap.add_argument("--id-order", choices=["forward", "reverse"], default="forward", help="target id numbering")
    a = ap.parse_args()
    perturb = []
    for p in a.perturb:
        name, rank, step, delta = p.rsplit(":", 3)
        perturb.append((name, int(rank), int(step), float(delta)))
    dropped = set(a.drop_target)
    rng = random.Random(a.seed)
    if os.path.exists(a.out):
        os.remove(a.out)
    db = sqlite3.connect(a.out)
    if a.format == "dump":
        metrics = [(m, DUMP_STATS) for m in DUMP_METRICS]
        columns = DUMP_STATS
        targets = dump_targets(a.targets, a.extra_target)
        tagger = dump_tags
        # forward: every target; backward: every second; recompute: none (a metric without rows);
        # parameters_grad: the linear layers' weights are not modelled, so none either.
        per_metric = {"forward": targets, "backward": targets[::2], "recompute": [], "parameters_grad": []}
    else:
        metrics = MONITOR_METRICS
        columns = [s for s in SUPPORTED_STATS if any(s in st for _, st in metrics)]
        targets = monitor_targets(a.targets, a.extra_target)
        tagger = monitor_tags
        per_metric = {"actv": targets, "exp_avg": [t for t in targets if t[0].endswith("weight")][: max(1, len(targets) // 3)],
                      "grad_reduced": [t for t in targets if t[0].endswith("weight")]}
    stat_cols = "".join(f",\n  {c} REAL DEFAULT NULL" for c in columns)
    db.executescript(f"""
CREATE TABLE monitoring_targets (
  target_id   INTEGER PRIMARY KEY AUTOINCREMENT,
  target_name TEXT    NOT NULL,
  vpp_stage   INTEGER NOT NULL,
  micro_step  INTEGER NOT NULL DEFAULT 0,
  UNIQUE (target_name, vpp_stage, micro_step));
CREATE TABLE monitoring_metrics (
  metric_id   INTEGER PRIMARY KEY AUTOINCREMENT,
  metric_name TEXT UNIQUE NOT NULL);
CREATE TABLE monitoring_tags (
  tag_id    INTEGER PRIMARY KEY AUTOINCREMENT,
  tag_name  TEXT    NOT NULL,
  category  TEXT    NOT NULL,
  metric_id INTEGER NOT NULL,
  UNIQUE (tag_name, category, metric_id),
  FOREIGN KEY (metric_id) REFERENCES monitoring_metrics(metric_id));
CREATE TABLE tag_target_mapping (
  tag_id    INTEGER NOT NULL,
  target_id INTEGER NOT NULL,
  PRIMARY KEY (tag_id, target_id),
  FOREIGN KEY (tag_id)    REFERENCES monitoring_tags(tag_id),
  FOREIGN KEY (target_id) REFERENCES monitoring_targets(target_id));
CREATE TABLE trend_data (
  rank      INTEGER NOT NULL,
  step      INTEGER NOT NULL,
  target_id INTEGER NOT NULL,
  metric_id INTEGER NOT NULL{stat_cols},
  PRIMARY KEY (rank, step, target_id, metric_id),
  FOREIGN KEY (target_id) REFERENCES monitoring_targets(target_id),
  FOREIGN KEY (metric_id) REFERENCES monitoring_metrics(metric_id)
) WITHOUT ROWID;
""")
    # dump: all four metrics exist (ids 1-4); monitor: only metrics with targets, canonical order
    metric_ids = {}
    for name, _ in metrics:
        if a.format == "monitor" and not per_metric[name]:
            continue
        metric_ids[name] = db.execute("INSERT INTO monitoring_metrics (metric_name) VALUES (?)", (name,)).lastrowid
    # dense target ids in first-appearance order (metric order, then list order), or backwards
    order = list(dict.fromkeys(t for name, _ in metrics for t in per_metric[name] if t[0] not in dropped))
    if a.id_order == "reverse":
        order.reverse()
    target_ids = {}
    for t in order:
        target_ids[t] = db.execute("INSERT INTO monitoring_targets (target_name, vpp_stage, micro_step) VALUES (?, ?, ?)", t).lastrowid
    slots = a.steps * a.micro_steps
    stat_index = {c: i for i, c in enumerate(columns)}
    rows = []
    for name, stats in metrics:
        mid = metric_ids.get(name)
        for slot in range(slots):
            for rank in range(a.ranks):
                for n, t in enumerate(per_metric[name]):
                    layer = next((int(p) for p in t[0].split(".") if p.isdigit()), 0)
                    base = (1.0 + 0.15 * layer) * (1.0 + 0.02 * rank) * (1.0 + 0.05 * slot) * (1 + (n % 7) * 0.1)
                    vals = [None] * len(columns)
                    for s in stats:
                        v = value(rng, base)
                        if v is not None and s == "min":
                            v = -v if abs(v) != POS_INF and abs(v) != CLIP else v
                        vals[stat_index[s]] = v
                    if t[0] in dropped:
                        continue
                    for pn, pr, ps, delta in perturb:
                        if pn == t[0] and pr == rank and slot >= ps:
                            vals = [v + delta if v is not None and abs(v) != POS_INF else v for v in vals]
                    rows.append((rank, slot, target_ids[t], mid, *vals))
    db.executemany(f"INSERT OR IGNORE INTO trend_data VALUES ({','.join('?' * (4 + len(columns)))})", rows)
    # §7.3: tags per metric, sorted by (category, tag_name); mappings by (target_id, tag_id)
    for name, _ in metrics:
        if name not in metric_ids:
            continue
        tagged = {t: tagger(t[0]) for t in per_metric[name] if t[0] not in dropped}
        pairs = sorted({tg for tags in tagged.values() for tg in tags}, key=lambda p: (p[1], p[0]))
        tag_ids = {}
        for tag_name, cat in pairs:
            tag_ids[(tag_name, cat)] = db.execute("INSERT INTO monitoring_tags (tag_name, category, metric_id) VALUES (?, ?, ?)",
                                                  (tag_name, cat, metric_ids[name])).lastrowid
        links = sorted({(target_ids[t], tag_ids[tg]) for t, tags in tagged.items() for tg in tags})
        db.executemany("INSERT OR IGNORE INTO tag_target_mapping (tag_id, target_id) VALUES (?, ?)", [(g, t) for t, g in links])
    if a.format == "dump":
        cols = "max_rank INTEGER DEFAULT 0, min_step INTEGER DEFAULT 0, max_step INTEGER DEFAULT 0, " + \
               ", ".join(f"{m} TEXT DEFAULT NULL" for m in DUMP_METRICS)
        db.execute(f"CREATE TABLE global_stats ({cols})")
        db.execute("INSERT INTO global_stats VALUES (?, ?, ?, ?, ?, ?, ?)", (a.ranks - 1, 0, slots - 1, *[",".join(DUMP_STATS)] * 4))
    else:
        names = [m for m, _ in metrics if m in metric_ids]
        cols = "min_step INTEGER DEFAULT 0, max_step INTEGER DEFAULT 0, max_rank INTEGER DEFAULT 0, " + \
               ", ".join(f"{m} TEXT DEFAULT NULL" for m in names)
        db.execute(f"CREATE TABLE global_stats ({cols})")
        db.execute(f"INSERT INTO global_stats VALUES ({','.join('?' * (3 + len(names)))})",
                   (0, slots - 1, a.ranks - 1, *[",".join(st) for m, st in metrics if m in metric_ids]))
    if not a.no_index:
        db.executescript("""
CREATE INDEX idx_trend_metric_step   ON trend_data(metric_id, step);
CREATE INDEX idx_trend_metric_rank   ON trend_data(metric_id, rank);
CREATE INDEX idx_trend_metric_target ON trend_data(metric_id, target_id);
CREATE INDEX idx_tags_name           ON monitoring_tags(tag_name);
CREATE INDEX idx_ttm_target          ON tag_target_mapping(target_id);
""")
    db.execute("CREATE TABLE trend_meta (key TEXT PRIMARY KEY, value TEXT)")
    db.executemany("INSERT INTO trend_meta VALUES (?, ?)", [("source_format", a.format), ("micro_step", "true" if a.micro_steps > 1 else "false"),
                                                            ("tool_version", "gen_trend_db.py"), ("created_utc", "1970-01-01T00:00:00Z")])
    if a.micro_steps > 1:
        db.execute("CREATE TABLE trend_step_map (step INTEGER PRIMARY KEY, original_step INTEGER NOT NULL, micro_step INTEGER NOT NULL)")
        db.executemany("INSERT INTO trend_step_map VALUES (?, ?, ?)",
                       [(s * a.micro_steps + m, s, m) for s in range(a.steps) for m in range(a.micro_steps)])
    db.commit()
    db.execute("VACUUM")
    db.close()
    print(f"{a.out}: {len(rows)} trend rows, {len(target_ids)} targets, {len(metric_ids)} metrics", file=sys.stderr)


if __name__ == "__main__":
    main()
