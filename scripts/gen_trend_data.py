#!/usr/bin/env python3
"""Generates inputs of `visprobe data2db` (trend-analyzer.md §2-§6) with statistics that are known
functions of where a tensor sits, plus a manifest of what an import must produce. Standard library only.

  gen_trend_data.py dump OUT [--layers L] [--ranks R] [--steps S] [--micro M] [--seed N] [--manifest PATH]
  gen_trend_data.py monitor OUT [--ranks R] [--steps S] [--layers L] [--micro M] [--vpp V]
                    [--step-stride K] [--steps-per-file F] [--seed N] [--no-extras] [--manifest PATH]

dump: `OUT/step<s>/rank<r>/{dump.json,construct.json,stack.json}` of a Megatron-like GPT trained with M
micro-batches per step (gradient accumulation, data parallel: every rank has the same structure).
construct.json has one parentless `Module.module.GPTModel.forward.<k>` root per micro-batch, the
embedding, L transformer layers (norms, attention, MLP modules and `Functional.*` API calls) and the
output layer under it, then the backward twins (`Module.module.GPTModel.backward.<k>` parentless, the
other backward modules and APIs under it, in reverse order). Module call indices are the micro-batch
number k; API call indices count per API over the whole step (msProbe's counters), so micro-step mode
renumbers them per micro step (§3.3.4). dump.json holds every construct key plus, per step, the
`...MLP.parameters_grad` entries that msProbe never writes into construct.json (dropped in micro-step mode,
§14 K-1). `Functional.embedding` reads int64 token ids (input 0, not a target) and `Tensor.__add__` works on
int64 only (no target at all); forward `parameters` are plain objects (ignored, §14 K-2).

  Statistics of an eligible float tensor (all values are dyadic, so they survive text and REAL exactly):
    norm = 16 * (layer + 1) + step + rank / 4 + micro / 8 + site / 1024 + jitter
    max = norm / 8, min = -norm / 16, mean = norm / 1024
  layer = -1 outside the transformer layers; site = position of the tensor inside its micro-batch;
  jitter = a multiple of 1/4096 in [0, 1/4) drawn from --seed and the tensor's place; micro = the
  micro-batch (parameter gradients: M). Injected specials (checked by the tests):
    output_layer forward output.0: Norm 2e9 (stored 1e9); on rank 0 also Max = Infinity (1000000001);
    GPTModel backward input.0: Mean = NaN (NULL).

monitor: `OUT/<Mon><DD>_<HH>-<MM>-<SS>-rank<r>-<8 hex>/<metric>_<a>-<b>.csv` for steps
0, K, 2K, ... (S steps), one file per metric and range of F steps. Metrics: actv and actv_grad (with a
micro_step column, M micro steps; four activation names per layer), grad_reduced, exp_avg, exp_avg_sq
(per-parameter, no micro_step column; four weights per layer plus the embedding and output layer).
Layer l is in vpp stage l * V // L (embedding: 0, output layer: V - 1). Extras (unless --no-extras):
`linear_hook_0-0.csv`, `stack_info.csv`, an `actv_<a>-<b>_part_2.csv` overflow file, `actv_0-1.csv.bak`
and `anomaly_detected/`, all of which data2db ignores.

  CSV values:  v = 8 * (layer + 2) + step / 4 + rank / 8 + micro / 16 + name_index / 64 + metric_index / 256
  norm = v, min = -v / 2, max = 2 * v, zeros = v / 1024, nans = 0, mean = v / 32 (the columns a metric has)
  Specials: actv max of `layers.0.self_attention.input` at the first step, rank 0, micro 0 is `inf`;
  actv norm of `layers.0.mlp.output` at micro step M-1 of the first step is `nan` on every rank.

The manifest (--manifest) is a JSON summary: parameters, files, expected global_stats, metric catalogue,
target and row counts per metric for --micro_step true and false, and sample rows with their expected
stored values. The same arguments always give byte-identical output.
"""

import argparse
import datetime
import json
import os
import random
import sys
import zlib

# ---------------------------------------------------------------------------------------------------------------
# Dump


def _jitter(seed, *parts):
    """A multiple of 1/4096 in [0, 1/4), fixed by the seed and the tensor's place."""
    h = zlib.crc32(("%d|" % seed + "|".join(str(p) for p in parts)).encode())
    return (h % 1024) / 4096.0


def clip(v):
    """Trend value normalisation (§6) of a float, as the tests expect it stored."""
    if v != v:
        return None
    if v == float("inf"):
        return 1000000001.0
    if v == float("-inf"):
        return -1000000001.0
    return max(-1e9, min(1e9, v))


def _tensor(dtype, shape, norm, mx, mn, mean):
    return {"type": "torch.Tensor", "dtype": dtype, "shape": shape, "Max": mx, "Min": mn, "Mean": mean,
            "Norm": norm, "requires_grad": True}


def _int_tensor(value):
    return {"type": "torch.Tensor", "dtype": "torch.int64", "shape": [1, 1024], "Max": value, "Min": 0,
            "Mean": value / 2, "Norm": value * 32, "requires_grad": False}


class DumpRank:
    """One step/rank file pair, built in flushing order, with the expected rows of every tensor."""

    def __init__(self, a, step, step_index, rank):
        self.a, self.step, self.step_index, self.rank = a, step, step_index, rank
        self.construct = {}          # key -> parent (insertion order = flushing order)
        self.data = {}               # dump.json "data"
        self.rows = []               # expected rows: dicts (see _emit)
        self.api_count = {}          # per-step API counters (msProbe call indices)
        self.ignored_tensors = 0

    # -- statistics ------------------------------------------------------------------------------------------
    def _stats(self, layer, micro, site, where):
        a = self.a
        norm = 16.0 * (layer + 1) + self.step + self.rank / 4.0 + micro / 8.0 + site / 1024.0 + \
            _jitter(a.seed, self.step, self.rank, micro, where)
        return norm, norm / 8.0, -norm / 16.0, norm / 1024.0

    def _emit(self, metric, prefix, suffix, idx_on, idx_off, micro, stats, dtype="torch.bfloat16"):
        norm, mx, mn, mean = stats
        rec = _tensor(dtype, [1024, 1, 1024], norm, mx, mn, mean)
        self.rows.append({
            "rank": self.rank, "step": self.step, "micro": micro, "metric": metric,
            "target": prefix + suffix, "micro_on": idx_on, "micro_off": idx_off,
            "db_step_on": self.step_index * self.a.micro + micro if micro < self.a.micro else None,
            "db_step_off": self.step,
            "norm": clip(norm), "max": clip(mx), "min": clip(mn), "mean": clip(mean)})
        return rec

    # -- entries ---------------------------------------------------------------------------------------------
    def _api_index(self, api):
        n = self.api_count.get(api, 0)
        self.api_count[api] = n + 1
        return n

    def forward(self, micro, state, key, parent, prefix, idx_on, idx_off, layer, n_in=1, n_out=1, extra=None,
                int_first=False, params=None):
        """A forward entry with n_in float inputs (after an optional int64 input 0) and n_out outputs."""
        self.construct[key] = parent
        entry = {"input_args": [], "input_kwargs": {}, "output": []}
        pos = 0
        if int_first:
            entry["input_args"].append(_int_tensor(50000))
            self.ignored_tensors += 1
            pos = 1
        for i in range(n_in):
            site = state["site"]
            state["site"] += 1
            s = self._stats(layer, micro, site, key + ".in%d" % (pos + i))
            entry["input_args"].append(self._emit("forward", prefix, ".input.%d" % (pos + i), idx_on, idx_off,
                                                  micro, s))
        for i in range(n_out):
            site = state["site"]
            state["site"] += 1
            s = self._stats(layer, micro, site, key + ".out%d" % i)
            if extra == "output_layer" and i == 0:
                s = (2e9, float("inf") if self.rank == 0 else s[1], s[2], s[3])
            entry["output"].append(self._emit("forward", prefix, ".output.%d" % i, idx_on, idx_off, micro, s))
        if params:
            # Plain objects, as current msProbe writes them: not targets (§4.5, K-2).
            entry["parameters"] = {p: _tensor("torch.float32", [1024, 1024], 1.0, 0.5, -0.5, 0.0) for p in params}
        self.data[key] = entry

    def backward(self, micro, state, key, parent, prefix, idx_on, idx_off, layer, n_in=1, n_out=1, extra=None):
        self.construct[key] = parent
        entry = {"input": [], "output": []}
        for i in range(n_in):
            site = state["site"]
            state["site"] += 1
            s = self._stats(layer, micro, site, key + ".in%d" % i)
            if extra == "gpt" and i == 0:
                s = (s[0], s[1], s[2], float("nan"))
            entry["input"].append(self._emit("backward", prefix, ".input.%d" % i, idx_on, idx_off, micro, s))
        for i in range(n_out):
            site = state["site"]
            state["site"] += 1
            s = self._stats(layer, micro, site, key + ".out%d" % i)
            entry["output"].append(self._emit("backward", prefix, ".output.%d" % i, idx_on, idx_off, micro, s))
        self.data[key] = entry

    def build(self):
        a = self.a
        L = a.layers
        for k in range(a.micro):
            state = {"site": 0}
            micro_api = {}          # API -> calls inside this micro-batch (the renumbered index)
            api_calls = []          # (api, step index, micro index, layer, kind, parent module name) for backward

            def api(name):
                off = self._api_index(name)
                on = micro_api.get(name, 0)
                micro_api[name] = on + 1
                return on, off

            root = "Module.module.GPTModel.forward.%d" % k
            gpt = "Module.module.GPTModel"
            self.forward(k, state, root, None, gpt, 0, k, -1, n_in=2)
            emb = "Module.module.embedding.LanguageModelEmbedding"
            self.forward(k, state, emb + ".forward.%d" % k, root, emb, 0, k, -1)
            on, off = api("Functional.embedding")
            self.forward(k, state, "Functional.embedding.%d.forward" % off, emb + ".forward.%d" % k,
                         "Functional.embedding", on, off, -1, n_in=1, int_first=True)
            add = self._api_index("Tensor.__add__")
            self.construct["Tensor.__add__.%d.forward" % add] = emb + ".forward.%d" % k
            self.data["Tensor.__add__.%d.forward" % add] = {
                "input_args": [_int_tensor(423), {"type": "int", "value": 1}], "input_kwargs": {},
                "output": [_int_tensor(424)]}
            self.ignored_tensors += 2
            for l in range(L):
                lp = "Module.module.decoder.layers.%d." % l
                layer = lp + "TransformerLayer"
                lkey = layer + ".forward.%d" % k
                self.forward(k, state, lkey, root, layer, 0, k, l)
                mods = []           # (module, parent key) in forward order, for the backward twins
                mods.append((layer, "gpt"))

                def module(path, parent_key, **kw):
                    name = lp + path
                    self.forward(k, state, name + ".forward.%d" % k, parent_key, name, 0, k, l, **kw)
                    mods.append((name, parent_key))
                    return name + ".forward.%d" % k

                def call(name, parent_key, parent_module):
                    on, off = api(name)
                    self.forward(k, state, "%s.%d.forward" % (name, off), parent_key, name, on, off, l)
                    api_calls.append((name, on, off, l, parent_module))

                module("input_layernorm.RMSNorm", lkey)
                att = module("self_attention.SelfAttention", lkey)
                qkv = module("self_attention.linear_qkv.ColumnParallelLinear", att)
                call("Functional.linear", qkv, lp + "self_attention.linear_qkv.ColumnParallelLinear")
                core = module("self_attention.core_attention.DotProductAttention", att, n_in=3)
                call("Functional.softmax", core, lp + "self_attention.core_attention.DotProductAttention")
                proj = module("self_attention.linear_proj.RowParallelLinear", att)
                call("Functional.linear", proj, lp + "self_attention.linear_proj.RowParallelLinear")
                module("pre_mlp_layernorm.RMSNorm", lkey)
                mlp = module("mlp.MLP", lkey, params=["weight"])
                fc1 = module("mlp.linear_fc1.ColumnParallelLinear", mlp)
                call("Functional.linear", fc1, lp + "mlp.linear_fc1.ColumnParallelLinear")
                call("Functional.gelu", mlp, lp + "mlp.MLP")
                fc2 = module("mlp.linear_fc2.RowParallelLinear", mlp)
                call("Functional.linear", fc2, lp + "mlp.linear_fc2.RowParallelLinear")
                state.setdefault("layer_mods", []).append((l, mods))
            out = "Module.module.output_layer.ColumnParallelLinear"
            self.forward(k, state, out + ".forward.%d" % k, root, out, 0, k, -1, extra="output_layer")

            # Backward: a parentless GPTModel backward, the rest under it in reverse order.
            broot = "Module.module.GPTModel.backward.%d" % k
            self.backward(k, state, broot, None, gpt, 0, k, -1, extra="gpt")
            self.backward(k, state, out + ".backward.%d" % k, broot, out, 0, k, -1)
            calls_by_layer = {}
            for c in api_calls:
                calls_by_layer.setdefault(c[3], []).append(c)
            for l, mods in reversed(state["layer_mods"]):
                for (name, on, off, _l, parent_module) in reversed(calls_by_layer.get(l, [])):
                    self.backward(k, state, "%s.%d.backward" % (name, off), parent_module + ".backward.%d" % k,
                                  name, on, off, l)
                for name, parent in reversed(mods):
                    pkey = broot if parent == "gpt" else parent.replace(".forward.", ".backward.")
                    self.backward(k, state, name + ".backward.%d" % k, pkey, name, 0, k, l)
            self.backward(k, state, emb + ".backward.%d" % k, broot, emb, 0, k, -1)
        # Parameter gradients after the last micro-batch: in dump.json only (not in construct.json).
        state = {"site": 0}
        for l in range(L):
            name = "Module.module.decoder.layers.%d.mlp.MLP" % l
            entry = {}
            for p in ("weight", "bias"):
                site = state["site"]
                state["site"] += 1
                s = self._stats(l, a.micro, site, name + ".pg." + p)
                norm, mx, mn, mean = s
                entry[p] = [_tensor("torch.float32", [1024], norm, mx, mn, mean)]
                self.rows.append({
                    "rank": self.rank, "step": self.step, "micro": a.micro, "metric": "parameters_grad",
                    "target": name + "." + p, "micro_on": None, "micro_off": 0, "db_step_on": None,
                    "db_step_off": self.step, "norm": clip(norm), "max": clip(mx), "min": clip(mn),
                    "mean": clip(mean)})
            self.data[name + ".parameters_grad"] = entry

    def write(self, folder):
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, "construct.json"), "w") as f:
            json.dump(self.construct, f, indent=1)
        with open(os.path.join(folder, "dump.json"), "w") as f:
            json.dump({"task": "statistics", "level": "mix", "framework": "pytorch", "dump_data_dir": None,
                       "data": self.data}, f, indent=1)
        with open(os.path.join(folder, "stack.json"), "w") as f:
            json.dump({"0": [[next(iter(self.construct))], ["File train.py, line 1, in <module>, main()"]]}, f,
                      indent=1)


def generate_dump(a):
    os.makedirs(a.out, exist_ok=True)
    metrics = ["forward", "backward", "recompute", "parameters_grad"]
    rows_on = {m: 0 for m in metrics}
    rows_off = {m: 0 for m in metrics}
    targets_on, targets_off = {}, {}
    samples = []
    files = 0
    ignored = 0
    for si, s in enumerate(range(a.steps)):
        for r in range(a.ranks):
            d = DumpRank(a, s, si, r)
            d.build()
            d.write(os.path.join(a.out, "step%d" % s, "rank%d" % r))
            files += 1
            ignored += d.ignored_tensors
            for row in d.rows:
                rows_off[row["metric"]] += 1
                targets_off.setdefault((row["target"], row["micro_off"]), None)
                if row["micro_on"] is not None:
                    rows_on[row["metric"]] += 1
                    targets_on.setdefault((row["target"], row["micro_on"]), None)
                special = row["norm"] == 1e9 or row["max"] == 1000000001.0 or row["mean"] is None
                if (s == 0 and r == 0 and len(samples) < 60) or (special and s == a.steps - 1):
                    samples.append(row)
    stats = "norm,max,min,mean"
    manifest = {
        "kind": "dump",
        "params": {"layers": a.layers, "ranks": a.ranks, "steps": a.steps, "micro": a.micro, "seed": a.seed},
        "files": files,
        "ignored_int_tensors": ignored,
        "micro_on": {
            "global_stats": {"max_rank": a.ranks - 1, "min_step": 0, "max_step": a.steps * a.micro - 1,
                             "forward": stats, "backward": stats, "recompute": stats, "parameters_grad": stats},
            "rows_per_metric": rows_on, "rows": sum(rows_on.values()), "targets": len(targets_on),
            "micro_steps_per_step": a.micro,
        },
        "micro_off": {
            "global_stats": {"max_rank": a.ranks - 1, "min_step": 0, "max_step": a.steps - 1,
                             "forward": stats, "backward": stats, "recompute": stats, "parameters_grad": stats},
            "rows_per_metric": rows_off, "rows": sum(rows_off.values()), "targets": len(targets_off),
        },
        "samples": samples,
    }
    if len(targets_on) + len(targets_off) <= 20000:
        manifest["micro_on"]["target_list"] = [list(t) for t in targets_on]
        manifest["micro_off"]["target_list"] = [list(t) for t in targets_off]
    return manifest


# ---------------------------------------------------------------------------------------------------------------
# Monitor

MONITOR_METRICS = [
    # (metric, stat columns written, extra non-stat columns, per-activation?)
    ("actv", ["norm", "min", "max", "zeros", "nans"], ["shape", "dtype"], True),
    ("actv_grad", ["norm", "min", "max"], ["shape", "dtype"], True),
    ("exp_avg", ["norm"], ["id"], False),
    ("exp_avg_sq", ["norm", "max"], [], False),
    ("grad_reduced", ["norm", "min", "max", "mean"], [], False),
]
CANONICAL_METRICS = ["actv", "actv_grad", "exp_avg", "exp_avg_sq", "grad_unreduced", "grad_reduced",
                     "param_origin", "param_updated", "other"]
CANONICAL_STATS = ["norm", "min", "max", "zeros", "nans", "mean", "entropy", "softmax_max", "sr", "kernel_norm",
                   "std_x", "jacobian", "proxy", "token_similarity"]
_MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]


def _fmt(v):
    if v != v:
        return "nan"
    if v == float("inf"):
        return "inf"
    return repr(v)


def monitor_names(a):
    """(name, layer, vpp) of activations and of parameters."""
    vpp = lambda l: l * a.vpp // a.layers
    acts, params = [], []
    for l in range(a.layers):
        p = "module.decoder.layers.%d." % l
        for n in ("self_attention.input", "self_attention.output", "mlp.input", "mlp.output"):
            acts.append((p + n, l, vpp(l)))
    params.append(("module.embedding.word_embeddings.weight", -1, 0))
    for l in range(a.layers):
        p = "module.decoder.layers.%d." % l
        for n in ("self_attention.linear_qkv.weight", "self_attention.linear_proj.weight", "mlp.linear_fc1.weight",
                  "mlp.linear_fc2.weight"):
            params.append((p + n, l, vpp(l)))
    params.append(("module.output_layer.weight", -1, a.vpp - 1))
    return acts, params


def monitor_values(a, metric_index, name_index, layer, step, rank, micro, stats):
    v = 8.0 * (layer + 2) + step / 4.0 + rank / 8.0 + micro / 16.0 + name_index / 64.0 + metric_index / 256.0
    full = {"norm": v, "min": -v / 2, "max": 2 * v, "zeros": v / 1024, "nans": 0.0, "mean": v / 32}
    return {s: full[s] for s in stats}


def generate_monitor(a):
    os.makedirs(a.out, exist_ok=True)
    rng = random.Random(a.seed)
    acts, params = monitor_names(a)
    steps = [i * a.step_stride for i in range(a.steps)]
    ranges = [steps[i:i + a.steps_per_file] for i in range(0, len(steps), a.steps_per_file)]
    base = datetime.datetime(1900, 12, 3, 21, 34, 40)
    rows_per_metric = {m[0]: 0 for m in MONITOR_METRICS}
    targets_on = {m[0]: {} for m in MONITOR_METRICS}
    targets_off = {m[0]: {} for m in MONITOR_METRICS}
    all_on, all_off = {}, {}
    samples = []
    folders = []
    first = steps[0]
    for r in range(a.ranks):
        t = base + datetime.timedelta(seconds=r)
        tag = "%s%02d_%02d-%02d-%02d" % (_MONTHS[t.month - 1], t.day, t.hour, t.minute, t.second)
        folder = "%s-rank%d-%08x" % (tag, r, rng.getrandbits(32))
        folders.append(folder)
        fdir = os.path.join(a.out, folder)
        os.makedirs(fdir, exist_ok=True)
        for mi, (metric, stats, extra, per_act) in enumerate(MONITOR_METRICS):
            names = acts if per_act else params
            header = ["vpp_stage", "name", "step"] + (["micro_step"] if per_act else []) + stats + extra
            for rg in ranges:
                lines = [",".join(header)]
                for s in rg:
                    for micro in (range(a.micro) if per_act else [0]):
                        for ni, (name, layer, vpp) in enumerate(names):
                            vals = monitor_values(a, mi, ni, layer, s, r, micro, stats)
                            if metric == "actv" and ni == 0 and s == first and r == 0 and micro == 0:
                                vals["max"] = float("inf")
                            if metric == "actv" and ni == 3 and s == first and micro == a.micro - 1:
                                vals["norm"] = float("nan")
                            cells = [str(vpp), name, str(s)] + ([str(micro)] if per_act else []) + \
                                [_fmt(vals[x]) for x in stats]
                            if "shape" in extra:
                                cells += ['"[1024, 4096]"', "torch.bfloat16"]
                            if "id" in extra:
                                cells += [str(ni)]
                            lines.append(",".join(cells))
                            rows_per_metric[metric] += 1
                            targets_on[metric].setdefault((name, vpp, 0), None)
                            targets_off[metric].setdefault((name, vpp, micro), None)
                            all_on.setdefault((name, vpp, 0), None)
                            all_off.setdefault((name, vpp, micro), None)
                            special = (metric == "actv" and s == first and ni in (0, 3) and
                                       (micro == 0 or micro == a.micro - 1))
                            if (r == 0 and s == first and len(samples) < 80) or special or \
                                    (r == a.ranks - 1 and s == steps[-1] and ni == 0):
                                samples.append({
                                    "rank": r, "step": s, "micro": micro, "metric": metric, "name": name,
                                    "vpp_stage": vpp, "db_step_on": steps.index(s) * a.micro + micro,
                                    "db_step_off": s, "values": {x: clip(vals[x]) for x in stats}})
                with open(os.path.join(fdir, "%s_%d-%d.csv" % (metric, rg[0], rg[-1])), "w") as f:
                    f.write("\n".join(lines) + "\n")
        if a.extras:
            with open(os.path.join(fdir, "linear_hook_0-0.csv"), "w") as f:
                f.write("vpp_stage,name,step,norm\n0,module.ignored.linear_hook,0,1.0\n")
            with open(os.path.join(fdir, "stack_info.csv"), "w") as f:
                f.write("vpp_stage,name,step,norm\n0,module.ignored.stack_info,0,1.0\n")
            with open(os.path.join(fdir, "actv_%d-%d_part_2.csv" % (steps[0], steps[-1])), "w") as f:
                f.write("vpp_stage,name,step,micro_step,norm\n0,module.ignored.part,%d,0,1.0\n" % steps[0])
            with open(os.path.join(fdir, "actv_0-1.csv.bak"), "w") as f:
                f.write("vpp_stage,name,step,micro_step,norm\n0,module.ignored.bak,0,0,1.0\n")
    if a.extras:
        os.makedirs(os.path.join(a.out, "anomaly_detected", "rank0"), exist_ok=True)
        with open(os.path.join(a.out, "anomaly_detected", "rank0", "anomaly.json"), "w") as f:
            f.write("{}\n")
    metric_stats = {m: ",".join(s for s in CANONICAL_STATS if s in st) for m, st, _, _ in MONITOR_METRICS}
    used_stats = [s for s in CANONICAL_STATS if any(s in st for _, st, _, _ in MONITOR_METRICS)]
    metrics = [m for m in CANONICAL_METRICS if m in metric_stats]
    gs_common = {m: metric_stats[m] for m in metrics}
    manifest = {
        "kind": "monitor",
        "params": {"layers": a.layers, "ranks": a.ranks, "steps": a.steps, "micro": a.micro, "vpp": a.vpp,
                   "step_stride": a.step_stride, "steps_per_file": a.steps_per_file, "seed": a.seed,
                   "extras": a.extras},
        "folders": folders,
        "csv_files": a.ranks * len(MONITOR_METRICS) * len(ranges),
        "steps": steps,
        "metrics": metrics,
        "stat_columns": used_stats,
        "rows_per_metric": rows_per_metric,
        "rows": sum(rows_per_metric.values()),
        "micro_on": {
            "global_stats": dict(min_step=0, max_step=len(steps) * a.micro - 1, max_rank=a.ranks - 1, **gs_common),
            "targets": len(all_on), "targets_per_metric": {m: len(v) for m, v in targets_on.items()},
        },
        "micro_off": {
            "global_stats": dict(min_step=steps[0], max_step=steps[-1], max_rank=a.ranks - 1, **gs_common),
            "targets": len(all_off), "targets_per_metric": {m: len(v) for m, v in targets_off.items()},
        },
        "samples": samples,
    }
    return manifest


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="kind", required=True)
    d = sub.add_parser("dump", help="msProbe dump runs step<s>/rank<r>/")
    d.add_argument("out")
    d.add_argument("--layers", type=int, default=2)
    d.add_argument("--ranks", type=int, default=2)
    d.add_argument("--steps", type=int, default=2)
    d.add_argument("--micro", type=int, default=2)
    d.add_argument("--seed", type=int, default=0)
    d.add_argument("--manifest")
    m = sub.add_parser("monitor", help="monitor runs <time>-rank<r>-<id>/<metric>_<a>-<b>.csv")
    m.add_argument("out")
    m.add_argument("--ranks", type=int, default=2)
    m.add_argument("--steps", type=int, default=4)
    m.add_argument("--layers", type=int, default=4)
    m.add_argument("--micro", type=int, default=2)
    m.add_argument("--vpp", type=int, default=1)
    m.add_argument("--step-stride", type=int, default=1)
    m.add_argument("--steps-per-file", type=int, default=50)
    m.add_argument("--seed", type=int, default=0)
    m.add_argument("--no-extras", dest="extras", action="store_false")
    m.add_argument("--manifest")
    a = p.parse_args(argv)
    for name in ("layers", "ranks", "steps", "micro"):
        if getattr(a, name) < 1:
            p.error("--%s must be at least 1" % name)
    if a.kind == "monitor" and not (1 <= a.vpp <= a.layers and a.step_stride >= 1 and a.steps_per_file >= 1):
        p.error("need 1 <= --vpp <= --layers, --step-stride >= 1, --steps-per-file >= 1")
    manifest = generate_dump(a) if a.kind == "dump" else generate_monitor(a)
    if a.manifest:
        with open(a.manifest, "w") as f:
            json.dump(manifest, f, indent=1)
            f.write("\n")
    summary = {k: manifest[k] for k in manifest if k in ("kind", "files", "csv_files", "rows")}
    print(json.dumps(summary), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
