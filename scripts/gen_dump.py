#!/usr/bin/env python3
"""Generate synthetic but realistic msProbe precision dumps (Python 3 standard library only).

The generator traces a Megatron-core style GPT or Llama model (embedding, transformer layers with
self-attention and MLP, output layer, vocab-parallel cross entropy, loss function, gradient clipping and
optimizer) and writes, for every step and rank, the three files msProbe produces:

* ``dump.json``      ``{"task", "level", "framework", "dump_data_dir", "data": {...}}`` with forward and
                     backward entries of modules (``Module.<path>.<Class>.forward.<n>``) and, at level ``mix``,
                     of APIs (``Torch.matmul.<n>.forward``), plus ``Module.<path>.<Class>.parameters_grad``;
* ``construct.json`` node -> parent, in the order msProbe records it (an API is recorded before the modules
                     that were opened since the previous record); with ``--micro-batches M > 1`` it carries
                     ``"megatron_micro_step_number": M-1`` and ``[parent, micro_step]`` values;
* ``stack.json``     call stacks of forward entries, grouped (``{"0": [[names], [frames]], ...}``, msProbe >= 8)
                     or, with ``--stack-format old``, one list of frames per name;
* ``dump_tensor_data/<item>.npy`` for ``--task tensor``.

All JSON is formatted exactly like ``json.dump(obj, f, indent=1)`` (the msProbe writer; see ``--indent``), and
is written entry by entry, so multi-GB files need little memory.

Layout (``--layout auto``): ``OUT_DIR/{dump,construct,stack}.json`` for one rank and one step,
``OUT_DIR/rank<r>/`` for several ranks, ``OUT_DIR/step<s>/rank<r>/`` for several steps.

Rank placement (Megatron's default order ``tp-cp-ep-dp-pp``, also the graph engine's default merge order):
``dp = ranks / (tp * pp)``, ``tp_index = r % tp``, ``dp_index = (r // tp) % dp``, ``pp_stage = r // (tp * dp)``.
Stage ``p`` holds global layers ``[p * L/pp, (p+1) * L/pp)`` named ``layers.0 ..`` locally; the embedding is on
the first stage, final norm, output layer and loss on the last; stages exchange activations and gradients
with ``Distributed.send``/``Distributed.recv`` (1F1B schedule).  With ``--vpp V`` every stage holds V model chunks
(Megatron's interleaved schedule): chunk ``k`` of stage ``p`` is virtual stage ``k * pp + p`` and holds global
layers ``[(k*pp + p) * L/(pp*V), (k*pp + p + 1) * L/(pp*V))``, the embedding is on chunk 0 of the first stage and
the output layer on the last chunk of the last stage, and module names carry the chunk index as their second
segment (``Module.<k>.module.module...``; ``--vpp 1`` names the unsplit model's modules ``Module.0...`` too).  Column/row parallel weights are sharded by
``tp`` and every ``RowParallelLinear`` ends with a ``Distributed.all_reduce`` over its TP group.  Statistics
of replicated tensors are identical on the ranks that share them (TP group for activations, all ranks of a
stage for weights), tensors crossing a stage boundary are identical on sender and receiver.

Golden twin (``--golden DIR``): the same structure written to DIR, optionally with relative noise on every
statistic (``--noise``), a drift from one layer on (``--diverge-layer``) and omitted modules
(``--missing-module``).  ``--overflow-layer`` injects Infinity / NaN statistics into the TARGET.
``manifest.json`` (in OUT_DIR unless ``--manifest``) lists parameters, files, sizes, entry counts and the
names of every node carrying an injected anomaly.  The same arguments always give byte-identical files.

Notes:
* Declared shapes use sequence length 1024, micro-batch size 1, head size 64 (Megatron [s, b, h] layout).
* ``--task md5`` writes ``"task": "statistics"`` and adds ``"md5"`` (8 hex digits, a CRC-32 of dtype, shape and
  statistics) next to the statistics, as msProbe's ``summary_mode: md5`` does.
* ``--task tensor`` writes every dumped tensor item to ``<item name>.npy`` (NPY 1.0, ``<f4``); a tensor with more
  than 4096 elements is written as a 1-D sample of 4096 values.  Statistics then describe the written array.
* A STEPS layout with the default manifest location puts ``manifest.json`` next to the ``step<s>`` folders;
  tools that enumerate step folders strictly reject any other entry, so use ``--manifest`` elsewhere then.
* Golden-only options never change the random draws, so API / module call counters are identical on both sides;
  an omitted module simply lacks its entries (counters of the remaining nodes are unchanged).
* The overflow is injected into micro batch 0 of every step on every rank holding the layer; the following
  layer continues from finite values, so only the nodes listed in the manifest carry Infinity / NaN.
* ``--corpus list`` / ``--corpus CASE OUT_DIR`` writes one small hand-shaped case of the dumper corpus instead
  (tests/corpus/dumper_corpus.md; OUT_DIR/target, OUT_DIR/golden for compare cases, OUT_DIR/case.json).
* ``--consistent-stats`` (statistics tasks) makes a run's statistics independent of its parallel layout: each
  tensor's statistics follow from its logical identity (creating source line, module path with global layer
  numbers, call, micro batch; explicit keys where tp or pp change the code path: layer outputs crossing a
  stage boundary, row-parallel outputs, the embedding output, gradients), and a TP-sharded tensor dumps the
  whole tensor's Max / Min / Mean and a share of its Norm (90*m split as 54/72, 30/60/60, 20/40/50/60 ...)
  so that msProbe's graph merge gives back the whole tensor's statistics exactly; view arguments that
  depend on tp are written as -1.  The same model split with tp=2 or pp=4 then merges back to the unsplit
  run's statistics.  Without the flag the output is unchanged.
"""

import argparse
import contextlib
import io
import json
import math
import os
import random
import shutil
import struct
import sys
import tempfile
import time
import zipfile
import zlib

SEQ = 1024                  # sequence length of the declared shapes
MBS = 1                     # micro-batch size
HEAD_DIM = 64
NPY_CAP = 4096              # at most this many elements are written to a .npy file
LAYERS_PER_STAGE_CAP = 64   # --target-mb grows layers up to this, then micro batches
ACT_GRAD_SCALE = 2e-5
PARAM_GRAD_SCALE = 1e-4
GRAD_KIND = {'act': 'act', 'act_shard': 'act_shard', 'w': 'act', 'w_shard': 'act_shard'}
MANTISSA_BITS = {'bf16': 8, 'f32': 24}

# ---------------------------------------------------------------------------------------------------------------
# Framework profiles

_COMMON_APIS = {
    't': 'Tensor.t', 'add': 'Tensor.__add__', 'sub': 'Tensor.__sub__', 'mul': 'Tensor.__mul__',
    'div': 'Tensor.__truediv__', 'lt': 'Tensor.__lt__', 'ge': 'Tensor.__ge__', 'or': 'Tensor.__or__',
    'view': 'Tensor.view', 'transpose': 'Tensor.transpose', 'contiguous': 'Tensor.contiguous',
    'getitem': 'Tensor.__getitem__', 'float': 'Tensor.float', 'all_reduce': 'Distributed.all_reduce',
    'broadcast': 'Distributed.broadcast', 'send': 'Distributed.send', 'recv': 'Distributed.recv',
}

PROFILES = {
    'pytorch': {
        'prefix': 'Module', 'root': 'module.module', 'tensor_type': 'torch.Tensor', 'requires_grad': True,
        'dtypes': {'bf16': 'torch.bfloat16', 'f32': 'torch.float32', 'i64': 'torch.int64', 'bool': 'torch.bool'},
        'apis': dict(_COMMON_APIS, **{
            'linear': 'Functional.linear', 'matmul': 'Torch.matmul', 'split': 'Torch.split',
            'chunk': 'Torch.chunk', 'cat': 'Torch.cat', 'outer': 'Torch.outer', 'baddbmm': 'Torch.baddbmm',
            'bmm': 'Torch.bmm', 'max': 'Torch.max', 'logsumexp': 'Torch.logsumexp', 'sum': 'Torch.sum',
            'norm': 'Torch.norm', 'adamw': 'Torch._fused_adamw_', 'softmax': 'Functional.softmax',
            'dropout': 'Functional.dropout', 'gelu': 'Functional.gelu', 'silu': 'Functional.silu',
            'embedding': 'Functional.embedding', 'layer_norm': 'Functional.layer_norm',
            'rms_norm': 'NPU.npu_rms_norm'}),
        'src': '/workspace/Megatron-LM/',
        'site': '/usr/local/lib/python3.10/site-packages/',
        'hook': ('msprobe/pytorch/hook_module/api_register.py', 'api_function',
                 'return ApiTemplate(api_name, api_func, prefix, hook_build_func)(*args, **kwargs)'),
        'call_frames': (('torch/nn/modules/module.py', 1747, '_call_impl', 'return forward_call(*args, **kwargs)'),
                        ('torch/nn/modules/module.py', 1736, '_wrapped_call_impl',
                         'return self._call_impl(*args, **kwargs)')),
        'method': 'forward',
    },
    'mindspore': {
        'prefix': 'Cell', 'root': 'network_with_loss.module', 'tensor_type': 'mindspore.Tensor',
        'requires_grad': False,
        'dtypes': {'bf16': 'BFloat16', 'f32': 'Float32', 'i64': 'Int64', 'bool': 'Bool'},
        'apis': dict(_COMMON_APIS, **{
            'linear': 'MintFunctional.linear', 'matmul': 'Mint.matmul', 'split': 'Mint.split',
            'chunk': 'Mint.chunk', 'cat': 'Mint.cat', 'outer': 'Mint.outer', 'baddbmm': 'Mint.baddbmm',
            'bmm': 'Mint.bmm', 'max': 'Mint.max', 'logsumexp': 'Mint.logsumexp', 'sum': 'Mint.sum',
            'norm': 'Mint.norm', 'adamw': 'Primitive.optim.AdamWeightDecay',
            'softmax': 'MintFunctional.softmax', 'dropout': 'MintFunctional.dropout',
            'gelu': 'MintFunctional.gelu', 'silu': 'MintFunctional.silu',
            'embedding': 'MintFunctional.embedding', 'layer_norm': 'MintFunctional.layer_norm',
            'rms_norm': 'Primitive.norm.RmsNorm'}),
        'src': '/workspace/MindSpeed-Core-MS/Megatron-LM/',
        'site': '/usr/local/lib/python3.9/site-packages/',
        'hook': ('msprobe/mindspore/dump/hook_cell/api_register.py', 'api_function',
                 'return ApiTemplate(api_name, api_dict, prefix, hook)(*args, **kwargs)'),
        'call_frames': (('mindspore/nn/cell.py', 505, '_run_construct',
                         'output = self._run_forward_hook(inputs, output)'),
                        ('mindspore/nn/cell.py', 733, '__call__', 'return self._run_construct(*args, **kwargs)')),
        'method': 'construct',
    },
}

MODULE_FILES = {
    'GPTModel': 'megatron/core/models/gpt/gpt_model.py',
    'LanguageModelEmbedding': 'megatron/core/models/common/embeddings/language_model_embedding.py',
    'RotaryEmbedding': 'megatron/core/models/common/embeddings/rotary_pos_embedding.py',
    'VocabParallelEmbedding': 'megatron/core/tensor_parallel/layers.py',
    'ColumnParallelLinear': 'megatron/core/tensor_parallel/layers.py',
    'RowParallelLinear': 'megatron/core/tensor_parallel/layers.py',
    'Embedding': 'megatron/core/tensor_parallel/layers.py',
    'Dropout': 'megatron/core/transformer/dropout.py',
    'TransformerBlock': 'megatron/core/transformer/transformer_block.py',
    'TransformerLayer': 'megatron/core/transformer/transformer_layer.py',
    'RMSNorm': 'megatron/legacy/model/rms_norm.py',
    'FusedLayerNorm': 'megatron/core/fusions/fused_layer_norm.py',
    'SelfAttention': 'megatron/core/transformer/attention.py',
    'DotProductAttention': 'megatron/core/transformer/dot_product_attention.py',
    'FusedScaleMaskSoftmax': 'megatron/core/fusions/fused_softmax.py',
    'MLP': 'megatron/core/transformer/mlp.py',
}

# Call sites outside the model: ctx -> (file, function, code of the innermost frame, code of its caller).
_P2P = 'megatron/core/pipeline_parallel/p2p_communication.py'
TOP_SITES = {
    'get_batch': ('pretrain_gpt.py', 'get_batch', 'batch = get_batch_on_this_tp_rank(data_iterator)',
                  'tokens, labels, loss_mask, attention_mask, position_ids = get_batch('),
    'loss_func': ('pretrain_gpt.py', 'loss_func', 'loss = torch.sum(losses.view(-1) * loss_mask)',
                  'output_tensor = loss_func(output_tensor)'),
    'recv_forward': (_P2P, '_communicate', 'reqs = p2p_func(',
                     'input_tensor = recv_forward(recv_tensor_shapes, config)'),
    'send_forward': (_P2P, '_communicate', 'reqs = p2p_func(',
                     'send_forward(output_tensor, send_tensor_shapes, config)'),
    'recv_backward': (_P2P, '_communicate', 'reqs = p2p_func(',
                      'output_tensor_grad = recv_backward(send_tensor_shapes, config)'),
    'send_backward': (_P2P, '_communicate', 'reqs = p2p_func(',
                      'send_backward(input_tensor_grad, recv_tensor_shapes, config)'),
    'dp_sync': ('megatron/core/distributed/param_and_grad_buffer.py', 'start_grad_sync',
                'self.grad_reduce_handle = torch.distributed.all_reduce(', 'config.finalize_model_grads_func('),
    'clip_grad': ('megatron/core/optimizer/clip_grads.py', 'get_grad_norm_fp32',
                  'grad_norm = torch.norm(grad, norm_type)', 'grad_norm = self.clip_grad_norm(self.config.clip_grad)'),
    'optimizer': ('megatron/core/optimizer/optimizer.py', 'step_with_ready_grads', 'self.optimizer.step()',
                  'success = self.step_with_ready_grads()'),
}


def crc(text):
    """CRC-32 of a string (deterministic small hash used for line numbers and ids)."""
    return zlib.crc32(text.encode())


# ---------------------------------------------------------------------------------------------------------------
# Numbers and tensors

def numel(shape):
    """Number of elements of a shape (1 for a 0-d tensor)."""
    n = 1
    for d in shape:
        n *= d
    return n


def round_dtype(x, dtype):
    """Round a float to the precision of a floating dtype (bf16: 8 significant bits, f32: 24)."""
    bits = MANTISSA_BITS.get(dtype)
    if bits is None or x == 0 or x != x or x in (math.inf, -math.inf):
        return x
    m, e = math.frexp(x)
    return math.ldexp(round(m * (1 << bits)), e - bits)


_NONFINITE = {'inf': 'Infinity', '-inf': '-Infinity', 'nan': 'NaN'}


def json_float(x):
    """Python's json text for a float (repr, with NaN / Infinity / -Infinity)."""
    s = repr(x)
    return _NONFINITE[s] if s[-1] in 'fn' else s


def json_scalar(v):
    """json text of a statistic: float, int, bool or None."""
    if v is None:
        return 'null'
    if v is True:
        return 'true'
    if v is False:
        return 'false'
    if isinstance(v, int):
        return str(v)
    return json_float(v)


class Tensor:
    """A dumped tensor: declared shape and dtype plus its four statistics, pre-rendered as json tokens.

    ``values`` holds the float32 sample written to the .npy file (task ``tensor`` only).  ``flag`` marks
    injected anomalies: ``drift`` (golden divergence) or ``nonfinite`` (overflow); an overflow copy keeps
    its finite ``origin``, which owns the gradient (so target and golden draw the same random numbers)."""
    __slots__ = ('shape', 'dtype', 'rg', 'kind', 'stats', 'values', 'flag', 'blob', 'origin', 'key', 'whole')

    def __init__(self, shape, dtype, rg, kind, stats, values=None, flag='', origin=None, key=None):
        self.shape, self.dtype, self.rg, self.kind = shape, dtype, rg, kind
        self.stats, self.values, self.flag, self.blob, self.origin = stats, values, flag, None, origin
        self.key, self.whole = key, False

    def reshaped(self, shape):
        """The same data seen with another shape (view / transpose / contiguous)."""
        return Tensor(tuple(shape), self.dtype, self.rg, self.kind, self.stats, self.values, self.flag, key=self.key)

    def md5(self):
        """8-hex CRC-32 standing for msProbe's md5 summary (changes whenever the statistics change)."""
        return '%08x' % crc('%s|%s|%s' % (self.dtype, self.shape, '|'.join(self.stats)))


def npy_shape(shape):
    """Shape of the array written for a tensor: the declared one, or (NPY_CAP,) when it is larger."""
    return tuple(shape) if numel(shape) <= NPY_CAP else (NPY_CAP,)


def _pickle_int(v):
    if 0 <= v < 256:
        return b'K' + bytes([v])
    if 0 <= v < 65536:
        return b'M' + struct.pack('<H', v)
    return b'J' + struct.pack('<i', v)


def _pickle_str(v):
    b = v.encode()
    return b'X' + struct.pack('<I', len(b)) + b


def torch_pt_bytes(archive, data, shape, storage_class='FloatStorage', requires_grad=False, offset=0, stride=None):
    """A torch.save file of one CPU tensor, as torch 1.13 writes it, without torch: a stored zip of
    ``<archive>/data.pkl`` (pickle protocol 2: _rebuild_tensor_v2 of a persistent storage id),
    ``<archive>/data/0`` (the storage: the little-endian elements in ``data``) and ``<archive>/version``;
    records start 64-byte aligned, padded by an ``FB`` extra field as torch's writer does. The tensor is a
    view of the storage: ``offset`` and ``stride`` (C-contiguous when None), as torch.save writes a slice."""
    itemsize = {'FloatStorage': 4, 'DoubleStorage': 8, 'HalfStorage': 2, 'BFloat16Storage': 2, 'LongStorage': 8,
                'IntStorage': 4, 'BoolStorage': 1}[storage_class]
    count = len(data) // itemsize
    if stride is None:
        stride, acc = [], 1
        for d in reversed(shape):
            stride.insert(0, acc)
            acc *= max(d, 1)
    pkl = (b'\x80\x02ctorch._utils\n_rebuild_tensor_v2\nq\x00((' + _pickle_str('storage')
           + b'ctorch\n' + storage_class.encode() + b'\nq\x01' + _pickle_str('0') + _pickle_str('cpu')
           + _pickle_int(count) + b'tq\x02Q' + _pickle_int(offset)
           + b'(' + b''.join(_pickle_int(d) for d in shape) + b't'
           + b'(' + b''.join(_pickle_int(d) for d in stride) + b't'
           + (b'\x88' if requires_grad else b'\x89')
           + b'ccollections\nOrderedDict\nq\x03)Rq\x04tq\x05Rq\x06.')
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, 'w', zipfile.ZIP_STORED) as z:
        for name, payload in (('data.pkl', pkl), ('data/0', data), ('version', b'3\n')):
            info = zipfile.ZipInfo(archive + '/' + name, date_time=(1980, 1, 1, 0, 0, 0))
            start = buf.tell() + 30 + len(info.filename)
            pad = (-(start + 4)) % 64
            info.extra = b'FB' + struct.pack('<H', pad) + b'Z' * pad
            z.writestr(info, payload)
    return buf.getvalue()


class Variant:
    """What distinguishes one side of a run: golden noise / drift / omissions or target overflow."""

    def __init__(self, noise=0.0, diverge_layer=None, missing=None, overflow_layer=None):
        self.noise, self.diverge_layer = noise, diverge_layer
        self.missing, self.overflow_layer = missing, overflow_layer


class TensorFactory:
    """Draws statistics (or, for task ``tensor``, sample values) of new tensors for one rank and step.

    Every tensor kind has its own pair of random streams, seeded by the parallel coordinates the kind varies
    along: ``act`` (stage, dp), ``act_shard`` (stage, dp, tp), ``w`` (stage), ``w_shard`` (stage, tp).  Ranks
    that share a kind draw the same sequence and therefore dump identical statistics for replicated tensors.
    The ``base`` stream does not depend on the step, so a tensor keeps its character across steps; the
    ``step`` stream adds small step-to-step variation and ``trend`` a slow drift."""

    def __init__(self, seed, step, place, task, variant):
        coords = {'act': (place.pp, place.dp), 'act_shard': (place.pp, place.dp, place.tp),
                  'w': (place.pp,), 'w_shard': (place.pp, place.tp)}
        self.rngs = {k: (random.Random('%d|base|%s|%s' % (seed, k, c)),
                         random.Random('%d|step%d|%s|%s' % (seed, step, k, c))) for k, c in coords.items()}
        self.seed, self.step, self.task = seed, step, task
        self.trend = 1.0 + 0.01 * step
        self.noise = variant.noise
        self.noise_rng = random.Random('%d|noise|%d|%d' % (seed, step, place.rank))
        self.diverge_layer = variant.diverge_layer
        self.layer = -1            # layer context of the tensors being created (set by the tracer)
        # --consistent-stats: statistics follow from a tensor's logical identity (see logical_new).
        self.logical = None        # callable giving the tracer's current logical context
        self.tp_size, self.tp_index = place.T, place.tp
        self.site_counts = {}
        self.chunk = 0             # model chunk being traced (--vpp)

    def shared_rngs(self, key):
        """Random streams for a tensor that two ranks create independently (pipeline boundaries)."""
        return (random.Random('%d|%s|base' % (self.seed, key)),
                random.Random('%d|step%d|%s' % (self.seed, self.step, key)),
                random.Random('%d|step%d|%s|noise' % (self.seed, self.step, key)))

    def new(self, shape, dtype='bf16', dist='normal', scale=1.0, kind='act', rg=True, weight=False,
            layer=None, rngs=None, key=None, whole=False):
        """A new tensor.  ``dist`` is one of normal, prob (softmax over the last dim, ``scale`` unused),
        pos (positive, mean ``scale``), ones, zeros, ids (integers below ``scale``), mask (bool), or a float
        ``const`` given as ``('const', value)``.  Golden drift and noise apply to floating tensors except
        weights (``weight=True``) and constants.  ``key`` names the logical tensor (--consistent-stats); ``whole``
        marks a per-rank partial result (a local max) whose shape is not a shard of a larger tensor."""
        shape = tuple(shape)
        if self.logical is not None:
            return self.logical_new(shape, dtype, dist, scale, kind, rg, weight, layer, key, whole)
        base, step, noise_rng = rngs if rngs else self.rngs[kind] + (self.noise_rng,)
        factor, flag = 1.0, ''
        varies = dtype in MANTISSA_BITS and not isinstance(dist, tuple)
        if self.diverge_layer is not None and not weight and varies:
            lay = self.layer if layer is None else layer
            if lay >= self.diverge_layer:
                factor, flag = 1.0 + 0.5 * (lay - self.diverge_layer + 1), 'drift'
        if self.task == 'tensor':
            values = self._values(shape, dtype, dist, scale, base, step)
            if varies and self.noise:
                values = [x * factor * (1.0 + noise_rng.uniform(-self.noise, self.noise)) for x in values]
            elif varies and factor != 1.0:
                values = [x * factor for x in values]
            if dtype in MANTISSA_BITS:
                values = [round_dtype(x, dtype) for x in values]
            stats = self._stats_of(values, dtype)
        else:
            values = None
            stats = self._draw(numel(shape), dtype, dist, scale, base, step)
            if dtype in MANTISSA_BITS and stats[0] is not None:
                if varies:
                    stats = self._perturb(stats, factor, noise_rng, numel(shape) == 1)
                stats = tuple(round_dtype(x, dtype) for x in stats)
        return Tensor(shape, dtype, rg, kind, tuple(json_scalar(v) for v in stats), values, flag)

    # Shard norms of a logical tensor whose Norm is 90*m (m with 8 significant bits): the squares of the
    # shard norms add up to 8100*m*m exactly, so the TP merge's sqrt(sum of squares) gives back 90*m exactly.
    SHARD_NORMS = {1: (90,), 2: (54, 72), 3: (30, 60, 60), 4: (20, 40, 50, 60), 8: (15, 15, 30, 30, 30, 30, 45, 45)}

    def logical_new(self, shape, dtype, dist, scale, kind, rg, weight, layer, key, whole):
        """--consistent-stats: the statistics of the WHOLE logical tensor follow from ``key`` (by default
        the creating source line, the tracer's logical context and an occurrence counter), never from the
        rank's parallel coordinates; a tensor sharded over TP (kind ``act_shard`` / ``w_shard``) dumps the
        whole tensor's Max, Min and Mean and a share of its Norm, so that msProbe's TP merge (max, min,
        mean, sqrt of the sum of squares) gives back the whole tensor's statistics exactly."""
        if key is None:
            f = sys._getframe(2)
            while f.f_code.co_name in ('new', 'logical_new'):
                f = f.f_back
            # (model chunks repeat the non-layer modules, e.g. the rotary embedding, whose tensors are the
            # same in every chunk: each chunk counts its own occurrences)
            site = (f.f_lineno, self.logical())
            counted = site + ((self.chunk,) if self.chunk else ())
            n = self.site_counts.get(counted, 0)
            self.site_counts[counted] = n + 1
            key = ('site',) + site + (n,)
        floating = dtype in MANTISSA_BITS
        shards = self.tp_size if kind in ('act_shard', 'w_shard') and floating else 1
        text = repr(key)
        base = random.Random('%d|logical|base|%s' % (self.seed, text))
        step = random.Random('%d|logical|step%d|%s' % (self.seed, self.step, text))
        noise_rng = random.Random('%d|logical|noise|%d|%s' % (self.seed, self.step, text))
        factor, flag = 1.0, ''
        varies = floating and not isinstance(dist, tuple)
        if self.diverge_layer is not None and not weight and varies:
            lay = self.layer if layer is None else layer
            if lay >= self.diverge_layer:
                factor, flag = 1.0 + 0.5 * (lay - self.diverge_layer + 1), 'drift'
        count = numel(shape) * (1 if whole else shards)
        stats = self._draw(count, dtype, dist, scale, base, step)
        if floating and stats[0] is not None and stats[2] is not None:
            if varies:
                stats = self._perturb(stats, factor, noise_rng, count == 1)
            mx, mn, mean, norm = (round_dtype(x, dtype) for x in stats)
            m = round_dtype(abs(norm) / 90.0, 'bf16')
            if shards not in self.SHARD_NORMS:
                raise SystemExit('gen_dump: --consistent-stats supports tp in %s' % sorted(self.SHARD_NORMS))
            stats = (mx, mn, mean, m * self.SHARD_NORMS[shards][self.tp_index if shards > 1 else 0])
        t = Tensor(shape, dtype, rg, kind, tuple(json_scalar(v) for v in stats), None, flag, key=key)
        t.whole = whole
        return t

    def nonfinite(self, t, what):
        """A copy of ``t`` whose statistics (and values) are all Infinity (``what='inf'``) or NaN."""
        v = math.inf if what == 'inf' else math.nan
        values = None if t.values is None else [v] * len(t.values)
        return Tensor(t.shape, t.dtype, t.rg, t.kind, (json_float(v),) * 4, values, 'nonfinite', t, t.key)

    def _perturb(self, stats, factor, noise_rng, single):
        """Apply the golden drift factor and relative noise U(-noise, noise) to float statistics
        (one draw for a single-element tensor; Min <= Mean <= Max is kept)."""
        if not self.noise:
            return stats if factor == 1.0 else tuple(x * factor for x in stats)
        if single:
            u = 1.0 + noise_rng.uniform(-self.noise, self.noise)
            return tuple(x * factor * u for x in stats)
        mx, mn, mean, norm = (x * factor * (1.0 + noise_rng.uniform(-self.noise, self.noise)) for x in stats)
        return (max(mx, mean), min(mn, mean), mean, norm)

    def _draw(self, n, dtype, dist, scale, base, step):
        """Statistics (Max, Min, Mean, Norm) of a tensor with ``n`` elements, drawn without its values."""
        if n == 0:
            return (None, None, None, None)
        if dist == 'mask':
            return (True, False, None, None)
        jitter = math.exp(base.gauss(0.0, 0.1)) * (1.0 + 0.02 * step.gauss(0.0, 1.0)) * self.trend
        root = math.sqrt(n)
        if isinstance(dist, tuple):                       # ('const', value)
            v = dist[1]
            return (v, v, v, abs(v) * root)
        if dist == 'zeros':
            return (0.0, 0.0, 0.0, 0.0)
        if dist == 'ids':
            if n == 1:
                v = base.randrange(max(1, int(scale)))
                return (v, v, v, v)
            mean = scale * base.uniform(0.2, 0.4)
            return (float(int(scale * base.uniform(0.9, 1.0)) - 1), float(base.randrange(8)),
                    round_dtype(mean, 'f32'), round_dtype(mean * 1.15 * root, 'f32'))
        if dist == 'ones':
            mean = 1.0 + 0.01 * base.gauss(0.0, 1.0) * jitter
            return (mean + 0.05 * base.uniform(0.5, 1.5), mean - 0.05 * base.uniform(0.5, 1.5), mean, mean * root)
        if dist == 'pos':
            mean = scale * jitter
            if n == 1:
                return (mean, mean, mean, mean)
            return (mean * base.uniform(1.5, 4.0), mean * base.uniform(0.2, 0.8), mean,
                    mean * root * base.uniform(1.02, 1.3))
        if dist == 'prob':
            mean = 1.0 / scale
            return (min(1.0, mean * base.uniform(20.0, 200.0)), mean * base.uniform(0.0, 0.05), mean,
                    mean * root * base.uniform(2.0, 6.0))
        sigma = scale * jitter                            # normal
        mu = sigma * base.gauss(0.0, 0.05)
        if n == 1:
            v = mu + sigma * base.gauss(0.0, 1.0)
            return (v, v, v, abs(v))
        spread = sigma * math.sqrt(2.0 * math.log(n))
        return (mu + spread * base.uniform(0.8, 1.3), mu - spread * base.uniform(0.8, 1.3), mu,
                sigma * root * math.sqrt(1.0 + (mu / sigma) ** 2))

    def _values(self, shape, dtype, dist, scale, base, step):
        """The float32 sample written for a tensor (at most NPY_CAP values)."""
        m = numel(npy_shape(shape))
        if dist == 'mask':
            return [float(step.random() < 0.5) for _ in range(m)]
        if isinstance(dist, tuple):
            return [dist[1]] * m
        if dist == 'zeros':
            return [0.0] * m
        if dist == 'ids':
            return [float(step.randrange(max(1, int(scale)))) for _ in range(m)]
        jitter = math.exp(base.gauss(0.0, 0.1)) * self.trend
        if dist == 'ones':
            return [1.0 + 0.02 * step.gauss(0.0, 1.0) for _ in range(m)]
        if dist == 'pos':
            if m == 1:
                return [scale * jitter]
            return [scale * jitter * (0.2 + 1.6 * step.random()) for _ in range(m)]
        if dist == 'prob':
            raw = [step.random() ** 4 for _ in range(m)]
            width = max(1, min(int(shape[-1]) if shape else 1, m))
            out = []
            for i in range(0, m, width):
                chunk = raw[i:i + width]
                total = math.fsum(chunk) or 1.0
                out.extend(x / total for x in chunk)
            return out
        sigma = scale * jitter
        mu = sigma * base.gauss(0.0, 0.05)
        return [step.gauss(mu, sigma) for _ in range(m)]

    @staticmethod
    def _stats_of(values, dtype):
        """Statistics of a written sample, as msProbe would report them for that array."""
        if not values:
            return (None, None, None, None)
        if dtype == 'bool':
            return (any(values), all(values), None, None)
        if any(x != x for x in values):
            return (math.nan,) * 4
        if dtype == 'i64' and len(values) == 1:
            v = int(values[0])
            return (v, v, v, v)
        mean = round_dtype(math.fsum(values) / len(values), 'f32')
        norm = round_dtype(math.sqrt(math.fsum(x * x for x in values)), 'f32')
        return (max(values), min(values), mean, norm)


# ---------------------------------------------------------------------------------------------------------------
# JSON rendering and streaming writers

class Renderer:
    """Renders values exactly like ``json.dumps(value, indent=N)`` (allow_nan=True) with a fast path for
    tensors: their text is a cached template per (shape, dtype, requires_grad, depth) filled with the
    pre-rendered statistics.  For task ``tensor`` it also writes one .npy file per dumped tensor item."""

    def __init__(self, indent, profile, task, npy_dir=None, tensor_format='npy'):
        self.nl = ['\n' + ' ' * (indent * i) for i in range(64)]
        self.profile, self.task, self.npy_dir = profile, task, npy_dir
        self.tensor_format = tensor_format
        self.templates = {}
        self.npy_files = 0

    def value(self, v, lvl, path=None, indexed=True):
        """json text of ``v`` at nesting depth ``lvl``; ``path`` is the item name (task tensor only)."""
        cls = v.__class__
        if cls is Tensor:
            return self.tensor(v, lvl, path)
        if v is None:
            return 'null'
        if cls is bool:
            return 'true' if v else 'false'
        if cls is int:
            return str(v)
        if cls is float:
            return json_float(v)
        if cls is str:
            return json.dumps(v)
        inner, outer = self.nl[lvl + 1], self.nl[lvl]
        if cls is list or cls is tuple:
            if not v:
                return '[]'
            if path is None:
                items = [self.value(x, lvl + 1) for x in v]
            else:
                items = [self.value(x, lvl + 1, '%s.%d' % (path, i) if indexed else path) for i, x in enumerate(v)]
            return '[' + inner + (',' + inner).join(items) + outer + ']'
        if not v:
            return '{}'
        items = [json.dumps(k) + ': ' + self.value(x, lvl + 1, None if path is None else path + '.' + k)
                 for k, x in v.items()]
        return '{' + inner + (',' + inner).join(items) + outer + '}'

    def _template(self, t, lvl):
        """Text of a tensor leaf with ``%s`` slots for its statistics (and md5/data_name)."""
        key = (t.shape, t.dtype, t.rg, lvl)
        tpl = self.templates.get(key)
        if tpl is None:
            n1, p = self.nl[lvl + 1], self.profile
            parts = ['{', n1, '"type": "%s",' % p['tensor_type'], n1, '"dtype": "%s",' % p['dtypes'][t.dtype],
                     n1, '"shape": ', self.value(list(t.shape), lvl + 1)]
            if self.task != 'structure':
                parts += [',', n1, '"Max": @', ',', n1, '"Min": @', ',', n1, '"Mean": @', ',', n1, '"Norm": @']
                if p['requires_grad']:
                    parts += [',', n1, '"requires_grad": ', 'true' if t.rg else 'false']
                if self.task == 'md5':
                    parts += [',', n1, '"md5": "@"']
                if self.task == 'tensor':
                    parts += [',', n1, '"data_name": "@"']
            parts += [self.nl[lvl], '}']
            tpl = self.templates[key] = ''.join(parts).replace('%', '%%').replace('@', '%s')
        return tpl

    def tensor(self, t, lvl, path):
        """json text of a tensor leaf."""
        tpl = self._template(t, lvl)
        if self.task == 'statistics':
            return tpl % t.stats
        if self.task == 'structure':
            return tpl
        if self.task == 'md5':
            return tpl % (t.stats + (t.md5(),))
        data_name = path + ('.pt' if self.tensor_format == 'pt' else '.npy')
        self._write_npy(data_name, t)
        return tpl % (t.stats + (data_name,))

    def _write_npy(self, data_name, t):
        """Write the tensor's sample as an NPY v1.0 little-endian float32 array, or as a torch.save file of a
        float32 tensor (``.pt``: PyTorch dumps)."""
        if self.npy_dir is None:
            return
        if data_name.endswith('.pt'):
            blob = torch_pt_bytes(data_name[:-3], struct.pack('<%df' % len(t.values), *t.values),
                                  npy_shape(t.shape), requires_grad=bool(t.rg))
            with open(os.path.join(self.npy_dir, data_name), 'wb') as fh:
                fh.write(blob)
            self.npy_files += 1
            return
        if t.blob is None:
            shape = npy_shape(t.shape)
            text = '(%s)' % (', '.join(map(str, shape)) + (',' if len(shape) == 1 else ''))
            header = "{'descr': '<f4', 'fortran_order': False, 'shape': %s, }" % text
            header += ' ' * (63 - (10 + len(header)) % 64) + '\n'
            t.blob = (b'\x93NUMPY\x01\x00' + struct.pack('<H', len(header)) + header.encode('latin1')
                      + struct.pack('<%df' % len(t.values), *t.values))
        with open(os.path.join(self.npy_dir, data_name), 'wb') as fh:
            fh.write(t.blob)
        self.npy_files += 1

    def entry(self, name, body, lvl):
        """json text of one dump.json entry; item paths follow msProbe's data_name convention."""
        if self.task != 'tensor':
            return self.value(body, lvl)
        inner, params_grad = self.nl[lvl + 1], name.endswith('.parameters_grad')
        items = []
        for key, v in body.items():
            if params_grad:
                text = self.value(v, lvl + 1, name + '.' + key, indexed=False)
            else:
                text = self.value(v, lvl + 1, name + '.' + ('output' if key == 'output' else
                                                           'parameters' if key == 'parameters' else 'input'))
            items.append(json.dumps(key) + ': ' + text)
        return '{' + inner + (',' + inner).join(items) + self.nl[lvl] + '}' if items else '{}'


class CountingSink:
    """File stand-in that only counts characters (size calibration)."""

    def __init__(self):
        self.size = 0

    def write(self, text):
        self.size += len(text)

    def close(self):
        pass


class ObjectWriter:
    """Streams the members of one JSON object (formatted as by json.dump with indent) to a file."""

    def __init__(self, fh, nl, lvl):
        self.fh, self.nl, self.lvl, self.count = fh, nl, lvl, 0
        fh.write('{')

    def add(self, key_json, value_json):
        """Write one member (key and value given as json text)."""
        self.fh.write((',' if self.count else '') + self.nl[self.lvl + 1] + key_json + ': ' + value_json)
        self.count += 1

    def close(self):
        self.fh.write(self.nl[self.lvl] + '}' if self.count else '}')


class StackWriter:
    """Writes stack.json.  New format: names sharing one call stack are grouped in order of first use; the
    names of a group are spooled to a temporary file when many are pending, so memory stays small."""
    SPOOL_LIMIT = 200000

    def __init__(self, fh, renderer, fmt, spool_dir):
        self.fh, self.r, self.fmt, self.spool_dir = fh, renderer, fmt, spool_dir
        self.groups = {}        # frames tuple -> group index
        self.frames = []        # group index -> frames
        self.pending = []       # group index -> names not yet spooled
        self.spooled = set()
        self.npending = 0
        self.old = ObjectWriter(fh, renderer.nl, 0) if fmt == 'old' else None
        self.old_cache = {}

    def add(self, name, frames):
        """Record the stack of one dumped node."""
        if self.old is not None:
            text = self.old_cache.get(frames)
            if text is None:
                text = self.old_cache[frames] = self.r.value(list(frames), 1)
            self.old.add('"%s"' % name, text)
            return
        gid = self.groups.get(frames)
        if gid is None:
            gid = self.groups[frames] = len(self.frames)
            self.frames.append(frames)
            self.pending.append([])
        self.pending[gid].append(name)
        self.npending += 1
        if self.spool_dir is not None and self.npending >= self.SPOOL_LIMIT:
            self._spool()

    def _spool(self):
        """Move pending names to the per-group temporary files."""
        for gid, names in enumerate(self.pending):
            if names:
                with open(os.path.join(self.spool_dir, '%d.txt' % gid), 'a') as fh:
                    fh.write('\n'.join(names) + '\n')
                self.spooled.add(gid)
                names.clear()
        self.npending = 0

    def _names(self, gid):
        """All names of a group, in order of use."""
        if gid in self.spooled:
            with open(os.path.join(self.spool_dir, '%d.txt' % gid)) as fh:
                for line in fh:
                    yield line[:-1]
        yield from self.pending[gid]

    def close(self):
        if self.old is not None:
            self.old.close()
            return
        nl, out = self.r.nl, ObjectWriter(self.fh, self.r.nl, 0)
        for gid, frames in enumerate(self.frames):
            out.add('"%d"' % gid, '[' + nl[2] + '[')
            self.fh.write(','.join(nl[3] + '"%s"' % name for name in self._names(gid)))
            self.fh.write(nl[2] + '],' + nl[2] + self.r.value(list(frames), 2) + nl[1] + ']')
        out.close()

    @property
    def key_count(self):
        """Top-level keys of stack.json: groups (new format) or names (old format)."""
        return len(self.frames) if self.old is None else self.old.count


class StackFrames:
    """Builds realistic Megatron call stacks (innermost frame first) for call sites.  A site is a tuple path
    from the schedule phase through the module chain down to an API call; frames are cached per site."""

    def __init__(self, profile, pp, interleaved=False):
        self.p, self.pp, self.cache, self.interleaved = profile, pp, {}, interleaved
        self.machinery = [self.frame(f, ln, fn, c, site_pkg=True) for f, ln, fn, c in profile['call_frames']]

    def frame(self, path, line, func, code, site_pkg=False):
        """One frame string, formatted as Python tracebacks are by msProbe."""
        root = self.p['site'] if site_pkg else self.p['src']
        return 'File %s%s, line %d, in %s, \n %s' % (root, path, line, func, code)

    def frames(self, site):
        """The stack of a site, as a tuple of frame strings."""
        got = self.cache.get(site)
        if got is None:
            got = self.cache[site] = tuple(self._build(site))
        return got

    def _outer(self, phase, code):
        """The schedule function (one call site per phase) or the optimizer step, up to the training script."""
        if phase == 'optimizer':
            head = [self.frame('megatron/training/training.py', 781, 'train_step',
                               'update_successful, grad_norm, num_zeros_in_grad = optimizer.step()')]
        else:
            if self.pp > 1:
                name, line = ('forward_backward_pipelining_with%s_interleaving' % ('' if self.interleaved else 'out'),
                              {'warmup': 1234, 'steady': 1291}.get(phase, 1362))
            else:
                name, line = 'forward_backward_no_pipelining', 452
            head = [self.frame('megatron/core/pipeline_parallel/schedules.py', line + crc(code) % 40, name, code),
                    self.frame('megatron/training/training.py', 753, 'train_step',
                               'losses_reduced = forward_backward_func(')]
        return head + [
            self.frame('megatron/training/training.py', 1352, 'train', 'train_step(forward_step_func,'),
            self.frame('megatron/training/training.py', 369, 'pretrain',
                       'iteration, num_floating_point_operations_so_far = train('),
            self.frame('pretrain_gpt.py', 265, '<module>', 'pretrain(')]

    def _in_forward_step(self, phase, code):
        """Frames below a line of pretrain_gpt.forward_step."""
        return [self.frame('pretrain_gpt.py', 195 + crc(code) % 20, 'forward_step', code),
                self.frame('megatron/core/pipeline_parallel/schedules.py', 275, 'forward_step',
                           'output_tensor, loss_func = forward_step_func(data_iterator, model)')] + \
            self._outer(phase, 'output_tensor, num_tokens = forward_step(')

    def _build(self, site):
        """Frames of a site, built from its parent site."""
        head, parent = site[-1], site[:-1]
        method = self.p['method']
        if head[0] == 'top':
            ctx, phase = head[1], parent[-1][1]
            path, func, code, caller = TOP_SITES[ctx]
            first = self.frame(path, 60 + crc(ctx) % 400, func, code)
            if ctx == 'get_batch':
                return [first] + self._in_forward_step(phase, caller)
            if ctx == 'loss_func':
                return [first, self.frame('megatron/core/pipeline_parallel/schedules.py', 290, 'forward_step',
                                          caller)] + self._outer(phase, 'output_tensor, num_tokens = forward_step(')
            if ctx in ('dp_sync', 'clip_grad', 'optimizer'):
                return [first] + self._outer('optimizer', caller)
            return [first, self.frame(_P2P, 400 + crc(ctx) % 100, ctx, 'return _communicate(')] + \
                self._outer(phase, caller)
        owner = parent[-1]
        if head[0] == 'api':
            key, name, ordinal = head[1], head[2], head[3]
            hook = self.p['hook']
            prefix, _, api = name.partition('.')
            py = {'Torch': 'torch', 'Functional': 'torch.nn.functional', 'Tensor': 'tensor', 'NPU': 'torch_npu',
                  'Distributed': 'torch.distributed', 'Mint': 'mint', 'MintFunctional': 'mint.nn.functional',
                  'Primitive': 'ops'}[prefix]
            code = 'output = %s.%s(...)' % (py, api)
            out = [self.frame(hook[0], 88, hook[1], hook[2], site_pkg=True)]
            if owner[0] == 'module':
                line = 40 + (crc(owner[1] + key) + 7 * ordinal) % 900
                return out + [self.frame(MODULE_FILES[owner[2]], line, method, code)] + self.machinery + \
                    list(self.frames(parent))
            path, func = TOP_SITES[owner[1]][:2]
            return out + [self.frame(path, 60 + (crc(key) + 5 * ordinal) % 500, func, code)] + \
                list(self.frames(parent))[1:]
        # a module: ('module', normalized relative path, class)
        rel = head[1]
        attr = rel.rsplit('.', 1)[-1]
        code = 'hidden_states, context = layer(' if attr == '*' else 'output = self.%s(hidden_states)' % attr
        if owner[0] == 'module':
            return [self.frame(MODULE_FILES[owner[2]], 50 + crc(rel) % 900, method, code)] + self.machinery + \
                list(self.frames(parent))
        return ([self.frame('megatron/core/transformer/module.py', 179, method,
                            'outputs = self.module(*inputs, **kwargs)')] + self.machinery +
                [self.frame('megatron/core/distributed/data_parallel_base.py', 22, method,
                            'return self.module(*inputs, **kwargs)')] + self.machinery +
                self._in_forward_step(owner[1], 'output_tensor = model(tokens, position_ids, attention_mask,'))


# ---------------------------------------------------------------------------------------------------------------
# Tracing one rank and step

def I(v):
    """An int argument leaf."""
    return {'type': 'int', 'value': v}


def F(v):
    """A float argument leaf."""
    return {'type': 'float', 'value': v}


def B(v):
    """A bool argument leaf."""
    return {'type': 'bool', 'value': v}


def S(v):
    """A str argument leaf."""
    return {'type': 'str', 'value': v}


def SL(start, stop, step):
    """A slice argument leaf."""
    return {'type': 'slice', 'value': [start, stop, step]}


class Placement:
    """Parallel coordinates of one rank (Megatron order tp-dp-pp)."""

    def __init__(self, rank, tp, pp, dp):
        self.rank, self.T, self.P, self.DP = rank, tp, pp, dp
        self.tp, self.dp, self.pp = rank % tp, (rank // tp) % dp, rank // (tp * dp)

    def rank_of(self, tp, dp, pp):
        """Global rank of the given parallel coordinates."""
        return tp + self.T * dp + self.T * self.DP * pp

    def group(self, name):
        """Global ranks of this rank's ``tp``, ``dp``, ``pp`` or model-parallel (``mp``) group."""
        if name == 'tp':
            return [self.rank_of(t, self.dp, self.pp) for t in range(self.T)]
        if name == 'dp':
            return [self.rank_of(self.tp, d, self.pp) for d in range(self.DP)]
        if name == 'pp':
            return [self.rank_of(self.tp, self.dp, p) for p in range(self.P)]
        return sorted(self.rank_of(t, self.dp, p) for t in range(self.T) for p in range(self.P))


class ModCall:
    """One forward call of a module, kept until its backward has been generated."""
    __slots__ = ('base', 'count', 'parent', 'args', 'kwargs', 'params', 'layer', 'site', 'children',
                 'outputs', 'omit', 'bname', 'bomit', 'napi', 'lname')

    def __init__(self, base, count, parent, args, kwargs, params, layer, site):
        self.base, self.count, self.parent, self.args, self.kwargs = base, count, parent, args, kwargs
        self.params, self.layer, self.site = params, layer, site
        self.children, self.outputs, self.omit, self.bname, self.bomit, self.napi = [], [], False, None, False, 0


class ApiCall:
    """One forward call of an API (backward generated when ``grad``)."""
    __slots__ = ('base', 'count', 'args', 'outs', 'grad', 'layer')

    def __init__(self, base, count, args, outs, grad, layer):
        self.base, self.count, self.args, self.outs, self.grad, self.layer = base, count, args, outs, grad, layer


def one_f_one_b(micro_batches, pp, stage):
    """Megatron's 1F1B order of (direction, micro batch, phase) for one pipeline stage."""
    warm = min(pp - stage - 1, micro_batches)
    ops = [('F', m, 'warmup') for m in range(warm)]
    for i in range(micro_batches - warm):
        ops += [('F', warm + i, 'steady'), ('B', i, 'steady')]
    return ops + [('B', m, 'cooldown') for m in range(micro_batches - warm, micro_batches)]


def interleaved(micro_batches, pp, vpp, stage):
    """Megatron's interleaved 1F1B order of (direction, chunk, micro batch, phase) for one pipeline stage with
    ``vpp`` model chunks: micro batches go in groups of ``pp``, each group through chunk 0, 1, ... forward and
    through the chunks in reverse order backward."""
    fwd, bwd = [], []
    for g in range(0, micro_batches, pp):
        members = range(g, min(g + pp, micro_batches))
        fwd += [(c, m) for c in range(vpp) for m in members]
        bwd += [(c, m) for c in reversed(range(vpp)) for m in members]
    total = len(fwd)
    warm = total if micro_batches == pp else min(total, (pp - stage - 1) * 2 + (vpp - 1) * pp)
    ops = [('F',) + fwd[i] + ('warmup',) for i in range(warm)]
    for i in range(total - warm):
        ops += [('F',) + fwd[warm + i] + ('steady',), ('B',) + bwd[i] + ('steady',)]
    ops += [('B',) + bwd[i] + ('cooldown',) for i in range(total - warm, total)]
    done = set()
    for d, c, m, _ in ops:
        if d == 'F':
            done.add((c, m))
        elif (c, m) not in done:
            raise SystemExit('gen_dump: interleaved schedule runs a backward before its forward')
    return ops


class RankDump:
    """Generates dump.json, construct.json and stack.json of one rank, one step, one side (target/golden).

    With ``out_dir=None`` the files go to counting sinks (size calibration)."""

    def __init__(self, cfg, place, step, variant, out_dir):
        self.cfg, self.pl, self.step, self.var, self.out_dir = cfg, place, step, variant, out_dir
        self.prof = PROFILES[cfg.framework]
        self.gpt = cfg.model == 'gpt'
        self.mix = cfg.level == 'mix'
        # msProbe writes [parent, micro_step] lists whenever Megatron's schedules are patched: every
        # pipeline run, and any run with several micro batches (--micro-step-ids batch: only the latter).
        self.dumper_ids = getattr(cfg, 'micro_step_ids', 'dumper') == 'dumper'
        self.megatron = cfg.micro_batches > 1 or (self.dumper_ids and cfg.pp > 1)
        # MegatronStepInfo: counters of forward_step / backward_step calls, both -1 at the start of a step.
        self.ms_fwd, self.ms_bwd, self.ms_is_fwd = -1, -1, False
        self.chunks = getattr(cfg, 'vpp', None) or 1
        self.f = TensorFactory(cfg.seed, step, place, cfg.task, variant)
        self.set_chunk(0)
        if getattr(cfg, 'consistent_stats', False):
            self.f.logical = self._logical_context
        self.frames = StackFrames(self.prof, cfg.pp, (getattr(cfg, 'vpp', None) or 1) > 1)
        self.mod_count, self.api_count, self.weights, self.pgrads = {}, {}, {}, {}
        self.pending, self.trees, self.grads = [], {}, {}
        self.cur, self.top, self.special, self.micro, self.phase = None, None, None, 0, 'steady'
        self.layer_ctx = -1     # layer of the code being traced: -1 before the layers, cfg.layers after them
        self.top_site, self.top_ord = None, 0
        self.anomalies = {'nonfinite': [], 'omitted': [], 'drift_first': None, 'drift_layer_nodes': []}
        self.entries = 0
        self.norm_rel = {}

    def set_chunk(self, chunk):
        """Trace model chunk ``chunk`` (virtual pipeline stage ``chunk * pp + stage``).  With --vpp the module
        names carry the chunk index as their second segment (``Module.<chunk>.module.module...``), as msProbe
        names the modules of a model list."""
        cfg = self.cfg
        self.chunk = self.f.chunk = chunk
        self.vstage = chunk * cfg.pp + self.pl.pp
        self.first, self.last = self.vstage == 0, self.vstage == cfg.pp * self.chunks - 1
        named = getattr(cfg, 'vpp', None) is not None
        self.root = self.prof['prefix'] + ('.%d' % chunk if named else '') + '.' + self.prof['root']

    # -- files -------------------------------------------------------------------------------------------------
    def _open(self, name):
        """An output file of this rank (or a counting sink)."""
        if self.out_dir is None:
            return CountingSink()
        return open(os.path.join(self.out_dir, name), 'w', encoding='ascii', buffering=1 << 20)

    def run(self):
        """Generate the rank's files; returns a summary dict for the manifest."""
        cfg = self.cfg
        npy_dir = None
        if self.out_dir is not None:
            os.makedirs(self.out_dir, exist_ok=True)
            if cfg.task == 'tensor':
                npy_dir = os.path.join(os.path.abspath(self.out_dir), 'dump_tensor_data')
                os.makedirs(npy_dir, exist_ok=True)
        self.r = Renderer(cfg.indent, self.prof, cfg.task, npy_dir, cfg.tensor_format)
        nl = self.r.nl
        self.dump_fh, cons_fh, stack_fh = (self._open(n) for n in ('dump.json', 'construct.json', 'stack.json'))
        task = 'statistics' if cfg.task == 'md5' else cfg.task
        self.dump_fh.write('{' + ''.join(nl[1] + '"%s": %s,' % (k, json.dumps(v)) for k, v in (
            ('task', task), ('level', cfg.level), ('framework', cfg.framework), ('dump_data_dir', npy_dir)))
            + nl[1] + '"data": ')
        self.dump = ObjectWriter(self.dump_fh, nl, 1)
        self.cons = ObjectWriter(cons_fh, nl, 0)
        with tempfile.TemporaryDirectory(dir=self.out_dir) if self.out_dir else contextlib.nullcontext() as spool:
            self.stack = StackWriter(stack_fh, self.r, cfg.stack_format, spool)
            if self.chunks > 1:
                schedule = interleaved(cfg.micro_batches, cfg.pp, self.chunks, self.pl.pp)
            else:
                schedule = [(d, 0, m, ph) for d, m, ph in one_f_one_b(cfg.micro_batches, cfg.pp, self.pl.pp)]
            for direction, chunk, micro, phase in schedule:
                self.micro, self.phase = micro, phase
                self.set_chunk(chunk)
                if direction == 'F':
                    self._forward_micro()
                else:
                    self._backward_micro()
            if self.mix:
                self._optimizer_phase()
            self.dump.close()
            self.dump_fh.write(nl[0] + '}')
            self.cons.close()
            self.stack.close()
        sizes = {}
        for name, fh in (('dump.json', self.dump_fh), ('construct.json', cons_fh), ('stack.json', stack_fh)):
            fh.close()
            sizes[name] = fh.size if self.out_dir is None else os.path.getsize(os.path.join(self.out_dir, name))
        construct_entries = self.cons.count - (1 if self.megatron and self.cons.count else 0)
        return {'sizes': sizes, 'entries': self.entries, 'construct_entries': construct_entries,
                'stack_keys': self.stack.key_count, 'npy_files': self.r.npy_files}

    # -- recording ---------------------------------------------------------------------------------------------
    def _construct(self, name, parent):
        """Record node -> parent in construct.json."""
        value = [parent, self._micro_id()] if self.megatron else parent
        self.cons.add('"%s"' % name, self.r.value(value, 1))
        if self.megatron and self.cons.count == 1:
            # The dumper keeps the key where it first wrote it, with max(forward, backward) counter at
            # the end: one forward_step per (chunk, micro batch).
            calls = self.cfg.micro_batches * (self.chunks if self.dumper_ids else 1)
            self.cons.add('"megatron_micro_step_number"', str(calls - 1))

    def _micro_id(self):
        """The micro step the dumper records now: get_micro_step() of msProbe's megatron_utils (the forward
        counter after a forward_step, the backward counter otherwise; -1 before the first forward_step, e.g.
        the recv a later pipeline stage begins with), or the schedule's micro batch with --micro-step-ids batch."""
        if not self.dumper_ids:
            return self.micro
        return self.ms_fwd if self.ms_is_fwd else self.ms_bwd

    def _megatron_step(self, forward):
        """A call of Megatron's (wrapped) forward_step / backward_step."""
        if forward:
            self.ms_fwd, self.ms_is_fwd = self.ms_fwd + 1, True
        else:
            self.ms_bwd, self.ms_is_fwd = self.ms_bwd + 1, False

    def _flush_pending(self):
        """Record the modules opened since the last construct update (msProbe writes them lazily)."""
        for name, parent in self.pending:
            self._construct(name, parent)
        self.pending.clear()

    def _emit(self, name, body, site):
        """Write one dump.json entry (and its stack); note injected anomalies."""
        self.dump.add('"%s"' % name, self.r.entry(name, body, 2))
        self.entries += 1
        if site is not None:
            self.stack.add(name, self.frames.frames(site))
        if self.var.overflow_layer is not None or (self.var.diverge_layer is not None
                                                   and self.anomalies['drift_first'] is None):
            flags = set(t.flag for t in _tensors(body))
            if 'nonfinite' in flags:
                self.anomalies['nonfinite'].append(name)
            if 'drift' in flags and self.anomalies['drift_first'] is None:
                self.anomalies['drift_first'] = name

    def _omitted(self, name):
        """Note a node left out of the golden dump."""
        if len(self.anomalies['omitted']) < 100000:
            self.anomalies['omitted'].append(name)

    def _set_top(self, ctx):
        """Enter a call context outside the model (data loading, loss function, p2p, optimizer)."""
        self.top_site, self.top_ord = (('phase', self.phase), ('top', ctx)), 0

    def _special(self, name):
        """Start an optimizer-phase parent node (``clip_grad`` / ``optimizer``)."""
        self.special = name
        self._set_top(name)
        if self.mix:
            self._construct(name, None)

    # -- modules and APIs --------------------------------------------------------------------------------------
    def enter(self, rel, cls, args, kwargs=None, params=None):
        """Open a forward module call (``rel`` is the path below the model root)."""
        base = '%s.%s.%s' % (self.root, rel, cls) if rel else '%s.%s' % (self.root, cls)
        count = self.mod_count.get(base, 0)
        self.mod_count[base] = count + 1
        parent = self.cur
        norm = self.norm_rel.get(rel)
        if norm is None:
            norm = self.norm_rel[rel] = '.'.join('*' if p.isdigit() else p for p in rel.split('.'))
        site = (parent.site if parent else (('phase', self.phase),)) + (('module', norm, cls),)
        layer = self.layer_ctx
        node = ModCall(base, count, parent, args, kwargs or {}, params, layer, site)
        node.lname = (self._global_rel(rel), cls, count)
        name = '%s.forward.%d' % (base, count)
        node.omit = (parent is not None and parent.omit) or bool(self.var.missing and self.var.missing in name)
        (parent.children if parent else self.top).append(node)
        if node.omit:
            self._omitted(name)
        else:
            self.pending.append((name, '%s.forward.%d' % (parent.base, parent.count) if parent else None))
            if cls == 'TransformerLayer' and layer == self.var.diverge_layer:
                self.anomalies['drift_layer_nodes'].append(name)
        self.cur, self.f.layer = node, layer
        return node

    def leave(self, node, outputs):
        """Close a forward module call and dump it."""
        node.outputs = outputs
        self._flush_pending()
        if not node.omit:
            body = {'input_args': node.args, 'input_kwargs': node.kwargs, 'output': outputs}
            if node.params:
                body['parameters'] = node.params
            self._emit('%s.forward.%d' % (node.base, node.count), body, node.site)
        self.cur = node.parent
        self.f.layer = self.layer_ctx

    def api(self, key, args, kwargs, outs, grad=True):
        """Record a forward API call inside the current module (or at top level)."""
        base = self.prof['apis'][key]
        count = self.api_count.get(base, 0)
        self.api_count[base] = count + 1
        parent = self.cur
        call = ApiCall(base, count, args, outs, grad, self.f.layer)
        if parent is not None:
            parent.children.append(call)
            site = parent.site + (('api', key, base, parent.napi),)
            parent.napi += 1
        else:
            if self.top is not None:
                self.top.append(call)
            site = self.top_site + (('api', key, base, self.top_ord),)
            self.top_ord += 1
        if self.mix:
            name = '%s.%d.forward' % (base, count)
            if parent is not None and parent.omit:
                self._omitted(name)
            else:
                self._construct(name, '%s.forward.%d' % (parent.base, parent.count) if parent else self.special)
                self._flush_pending()
                self._emit(name, {'input_args': args, 'input_kwargs': kwargs, 'output': outs}, site)
        return outs

    def _global_rel(self, rel):
        """A module path with the stage-local layer number replaced by the global one."""
        prefix = 'decoder.layers.'
        if self.layer_ctx >= 0 and rel.startswith(prefix):
            rest = rel[len(prefix):].split('.', 1)
            return prefix + str(self.layer_ctx) + ('.' + rest[1] if len(rest) > 1 else '')
        return rel

    @staticmethod
    def _grad_target(key):
        """The logical tensor whose gradient flows into ``key``: a partial sum before its all-reduce
        receives the gradient of the reduced result."""
        if key is not None and key[0] == 'row_partial':
            return ('row_out',) + key[1:]
        return key

    def _local(self, n):
        """A view argument that depends on the TP size: -1 (inferred) with --consistent-stats."""
        return n if self.f.logical is None else -1

    def _logical_context(self):
        """Where a tensor is created, independent of the parallel layout (--consistent-stats)."""
        if self.cur is not None:
            return ('module',) + self.cur.lname
        ctx = self.top_site[1][1] if self.top_site else None
        return ('top', ctx, self.special, self.micro)

    def key(self, *parts):
        """An explicit logical key (only used with --consistent-stats)."""
        return parts if self.f.logical is not None else None

    def weight(self, rel, pname, shape, sharded, dist='normal', scale=0.02):
        """A module parameter (created once per step, reused by every micro batch)."""
        key = (self.chunk, rel, pname)
        w = self.weights.get(key)
        if w is None:
            w = self.weights[key] = self.f.new(shape, 'bf16', dist, scale, 'w_shard' if sharded else 'w',
                                               weight=True, key=self.key('w', self._global_rel(rel), pname))
        return w

    def new(self, shape, dtype='bf16', dist='normal', scale=1.0, kind='act', rg=True, key=None, whole=False):
        """A new tensor in the current layer context."""
        return self.f.new(shape, dtype, dist, scale, kind, rg, key=key, whole=whole)

    def group(self, name):
        """The ``group`` argument of a collective: a ProcessGroup (PyTorch) or a group name (MindSpore)."""
        ranks = self.pl.group(name)
        if self.cfg.framework == 'mindspore':
            return S('%s-%s' % (name, '-'.join(map(str, ranks))))
        return {'type': 'torch.ProcessGroup', 'group_ranks': ranks,
                'group_id': '%08x' % crc('%s%s' % (name, ranks))}

    # -- backward ----------------------------------------------------------------------------------------------
    def grad(self, t):
        """The gradient flowing to a tensor in the current micro batch (None for non-differentiable)."""
        if t.__class__ is not Tensor or not t.rg:
            return None
        if t.origin is not None:
            t = t.origin
        g = self.grads.get(id(t))
        if g is None:
            dist = 'pos' if numel(t.shape) == 1 else 'normal'     # a scalar gradient is never ~0
            g = self.grads[id(t)] = self.f.new(t.shape, t.dtype, dist, ACT_GRAD_SCALE, GRAD_KIND[t.kind], rg=False,
                                               key=self.key('grad', self._grad_target(t.key)), whole=t.whole)
        return g

    def _bw_calls(self, calls, parent):
        """Backward of recorded calls, in reverse order."""
        for call in reversed(calls):
            if call.__class__ is ModCall:
                self._bw_module(call, parent)
            elif call.grad:
                self._bw_api(call, parent)

    def _bw_module(self, node, parent):
        """Backward of a module call: children first, then the module entry and its parameter grads."""
        bname = '%s.backward.%d' % (node.base, node.count)
        node.bomit = (parent is not None and parent.bomit) or bool(self.var.missing and self.var.missing in bname)
        self.f.layer = node.layer
        if node.bomit:
            self._omitted(bname)
        else:
            node.bname = bname
            self.pending.append((bname, parent.bname if parent else None))
        self._bw_calls(node.children, node)
        self.f.layer = node.layer
        body = {'input': [self.grad(o) for o in node.outputs], 'output': [self.grad(a) for a in node.args]}
        self._flush_pending()
        if not node.bomit:
            self._emit(bname, body, None)
        if node.params and self.micro == self.cfg.micro_batches - 1:
            pg = {}
            for pname, w in node.params.items():
                if w is not None:
                    g = self.pgrads[id(w)] = self.f.new(w.shape, w.dtype, 'normal', PARAM_GRAD_SCALE, w.kind, False,
                                                        key=self.key('pgrad', w.key))
                    pg[pname] = [g]
            name = node.base + '.parameters_grad'
            if node.bomit:
                self._omitted(name)
            else:
                self._emit(name, pg, None)
        self.f.layer = parent.layer if parent else -1

    def _bw_api(self, call, parent):
        """Backward entry of an API call."""
        self.f.layer = call.layer
        body = {'input': [self.grad(o) for o in call.outs], 'output': [self.grad(a) for a in call.args]}
        if self.mix:
            name = '%s.%d.backward' % (call.base, call.count)
            if parent is not None and parent.bomit:
                self._omitted(name)
            else:
                self._construct(name, parent.bname if parent else None)
                self._flush_pending()
                self._emit(name, body, None)

    # -- schedule ----------------------------------------------------------------------------------------------
    def _boundary(self, stage, what):
        """Activation (``fwd``) or gradient (``bwd``) crossing into virtual stage ``stage`` from ``stage - 1``;
        both neighbouring ranks create it from the same seeds."""
        cfg, pl = self.cfg, self.pl
        key = 'boundary|%d|%d|%d|%s' % (pl.dp, stage, self.micro, what)
        layer = stage * cfg.layers_per_chunk - (1 if what == 'fwd' else 0)
        scale = 1.0 if what == 'fwd' else ACT_GRAD_SCALE
        # The same logical tensor as the output of the last layer before the boundary (and its gradient).
        out_key = ('layer_out', stage * cfg.layers_per_chunk - 1, self.micro)
        logical = self.key(*out_key) if what == 'fwd' else self.key('grad', out_key)
        return self.f.new([SEQ, MBS, cfg.hidden], 'bf16', 'normal', scale, 'act', what == 'fwd', layer=layer,
                          rngs=self.f.shared_rngs(key), key=logical)

    def _p2p(self, ctx, op, tensor, peer_stage):
        """A point-to-point transfer with the neighbouring (virtual) stage (top level, outside the model)."""
        self._set_top(ctx)
        peer = self.pl.rank_of(self.pl.tp, self.pl.dp, peer_stage % self.cfg.pp)
        if op == 'send':
            self.api('send', [tensor], {'dst': I(peer), 'group': self.group('pp')}, [tensor, None], grad=False)
        else:
            buf = self.new(tensor.shape, tensor.dtype, 'zeros', rg=False)
            self.api('recv', [buf], {'src': I(peer), 'group': self.group('pp')}, [tensor, I(peer)], grad=False)

    def _forward_micro(self):
        """One forward micro batch: receive, data, model, loss or send."""
        cfg, pl = self.cfg, self.pl
        self.top, self.special, self.layer_ctx, self.f.layer = [], None, -1, -1
        h_in = sent = loss = None
        v = self.vstage
        if not self.first:
            h_in = self._boundary(v, 'fwd')
            self._p2p('recv_forward', 'recv', h_in, v - 1)
        self._megatron_step(True)
        ids, pos, labels, loss_mask = self._get_batch()
        out = self._gpt_model(ids, pos, labels, h_in)
        if self.last:
            loss = self._loss_func(out, loss_mask)
        else:
            sent = out
            self._p2p('send_forward', 'send', sent, v + 1)
        self.trees[(self.chunk, self.micro)] = (self.top, h_in, sent, loss)
        self.top = None

    def _backward_micro(self):
        """One backward micro batch: receive the output gradient, back-propagate, send the input gradient."""
        v = self.vstage
        top, h_in, sent, loss = self.trees.pop((self.chunk, self.micro))
        self.grads, self.special = {}, None
        if self.last:
            self.grads[id(loss)] = self.f.new([], 'f32', ('const', 1.0), kind='act', rg=False, layer=-1,
                                              key=self.key('grad', loss.key))
        else:
            grad = self._boundary(v + 1, 'bwd')
            self._p2p('recv_backward', 'recv', grad, v + 1)
            self.grads[id(sent)] = grad
        self._megatron_step(False)
        if not self.first:
            self.grads[id(h_in)] = self._boundary(v, 'bwd')
        self._bw_calls(top, None)
        if not self.first:
            self._p2p('send_backward', 'send', self.grads[id(h_in)], v - 1)
        self.grads = {}

    # -- model -------------------------------------------------------------------------------------------------
    def _get_batch(self):
        """Token ids, positions, labels and loss mask for this stage (data-loading APIs at top level)."""
        cfg = self.cfg
        self._set_top('get_batch')
        ids = pos = labels = loss_mask = None
        if not (self.first or self.last):
            return ids, pos, labels, loss_mask
        raw = self.new([MBS, SEQ + 1], 'i64', 'ids', cfg.vocab, rg=False)
        if cfg.tp > 1:
            self.api('broadcast', [raw, I(self.pl.group('tp')[0])], {'group': self.group('tp')}, [raw, None],
                     grad=False)
        if self.first:
            ids = self.new([MBS, SEQ], 'i64', 'ids', cfg.vocab, rg=False)
            self.api('getitem', [raw, [SL(None, None, None), SL(None, -1, None)]], {}, [ids], grad=False)
            self.api('contiguous', [ids], {}, [ids], grad=False)
            pos = self.new([MBS, SEQ], 'i64', 'ids', SEQ, rg=False)
        if self.last:
            labels = self.new([MBS, SEQ], 'i64', 'ids', cfg.vocab, rg=False)
            self.api('getitem', [raw, [SL(None, None, None), SL(1, None, None)]], {}, [labels], grad=False)
            self.api('contiguous', [labels], {}, [labels], grad=False)
            loss_mask = self.new([MBS, SEQ], 'f32', ('const', 1.0), rg=False)
        return ids, pos, labels, loss_mask

    def _gpt_model(self, ids, pos, labels, h_in):
        """The stage's part of GPTModel."""
        mask = self.new([MBS, 1, SEQ, SEQ], 'bool', 'mask', rg=False)
        model = self.enter('', 'GPTModel', [ids, pos, mask], {'decoder_input': None, 'labels': labels,
                                                              'inference_params': None})
        x = self._embedding(ids, pos) if self.first else None
        rope = None if self.gpt else self._rotary()
        h = self._decoder(x, h_in, mask, rope)
        out = self._output_and_loss(h, labels) if self.last else h
        self.leave(model, [out])
        return out

    def _embedding(self, ids, pos):
        """LanguageModelEmbedding (first stage)."""
        cfg, T, h = self.cfg, self.cfg.tp, self.cfg.hidden
        vt = cfg.vocab // T
        emb = self.enter('embedding', 'LanguageModelEmbedding', [ids, pos], {'tokentype_ids': None})
        w = self.weight('embedding.word_embeddings', 'weight', [vt, h], True)
        word = self.enter('embedding.word_embeddings', 'VocabParallelEmbedding', [ids], {}, {'weight': w})
        if T > 1:
            lo = self.pl.tp * vt
            below = self.new(ids.shape, 'bool', 'mask', rg=False)
            above = self.new(ids.shape, 'bool', 'mask', rg=False)
            either = self.new(ids.shape, 'bool', 'mask', rg=False)
            local = self.new(ids.shape, 'i64', 'ids', vt if self.f.logical is None else cfg.vocab, 'act_shard', rg=False,
                             key=ids.key)
            self.api('lt', [ids, I(lo)], {}, [below], grad=False)
            self.api('ge', [ids, I(lo + vt)], {}, [above], grad=False)
            self.api('or', [below, above], {}, [either], grad=False)
            self.api('sub', [ids, I(lo)], {}, [local], grad=False)
            part = self.new([MBS, SEQ, h], kind='act_shard', key=self.key('word_embedding_out', self.micro), whole=True)
            self.api('embedding', [local, w], {}, [part])
            e = self.new([MBS, SEQ, h], key=self.key('word_embedding_out', self.micro))
            self.api('all_reduce', [part], {'group': self.group('tp'), 'async_op': B(False)}, [e, None], grad=False)
        else:
            e = self.new([MBS, SEQ, h], key=self.key('word_embedding_out', self.micro))
            self.api('embedding', [ids, w], {}, [e])
        self.leave(word, [e])
        if self.gpt:
            pw = self.weight('embedding.position_embeddings', 'weight', [SEQ, h], False)
            pmod = self.enter('embedding.position_embeddings', 'Embedding', [pos], {}, {'weight': pw})
            pe = self.new([MBS, SEQ, h])
            self.api('embedding', [pos, pw], {}, [pe])
            self.leave(pmod, [pe])
            x = self.new([MBS, SEQ, h])
            self.api('add', [e, pe], {}, [x])
        else:
            x = e
        xt = x.reshaped([SEQ, MBS, h])
        self.api('transpose', [x, I(0), I(1)], {}, [xt])
        self.api('contiguous', [xt], {}, [xt])
        drop = self.enter('embedding.embedding_dropout', 'Dropout', [xt])
        xd = self.new([SEQ, MBS, h])
        self.api('dropout', [xt], self._dropout_kwargs(), [xd])
        self.leave(drop, [xd])
        self.leave(emb, [xd])
        return xd

    def _dropout_kwargs(self):
        """Keyword arguments of a dropout call."""
        return {'p': F(0.1 if self.gpt else 0.0), 'training': B(True), 'inplace': B(False)}

    def _rotary(self):
        """RotaryEmbedding (Llama): position frequencies."""
        half = HEAD_DIM // 2
        rot = self.enter('rotary_pos_emb', 'RotaryEmbedding', [I(SEQ)], {'offset': I(0)})
        positions = self.new([SEQ], 'f32', 'ids', SEQ, rg=False)
        inv_freq = self.new([half], 'f32', 'pos', 0.1, 'w', rg=False)
        freqs = self.new([SEQ, half], 'f32', 'pos', 50.0, rg=False)
        self.api('outer', [positions, inv_freq], {}, [freqs], grad=False)
        emb = self.new([SEQ, HEAD_DIM], 'f32', 'pos', 50.0, rg=False)
        self.api('cat', [[freqs, freqs]], {'dim': I(-1)}, [emb], grad=False)
        out = emb.reshaped([SEQ, 1, 1, HEAD_DIM])
        self.leave(rot, [out])
        return out

    def _decoder(self, x, h_in, mask, rope):
        """TransformerBlock: this stage's layers and, on the last stage, the final norm."""
        cfg = self.cfg
        block = self.enter('decoder', 'TransformerBlock', [x], {'attention_mask': mask, 'rotary_pos_emb': rope,
                                                               'inference_params': None})
        h = x if self.first else h_in
        for i in range(cfg.layers_per_chunk):
            h = self._layer(i, h, mask, rope)
        self.layer_ctx = self.f.layer = cfg.layers
        if self.last:
            h = self._norm('decoder.final_layernorm', h)
        self.leave(block, [h])
        return h

    def _layer(self, i, h, mask, rope):
        """One TransformerLayer (local index ``i``); returns its output."""
        cfg = self.cfg
        g = self.vstage * cfg.layers_per_chunk + i
        rel = 'decoder.layers.%d' % i
        self.layer_ctx = g
        layer = self.enter(rel, 'TransformerLayer', [h], {
            'attention_mask': mask, 'context': None, 'context_mask': None, 'rotary_pos_emb': rope,
            'inference_params': None, 'packed_seq_params': None})
        overflow = g == self.var.overflow_layer and self.micro == 0
        x = self._norm(rel + '.input_layernorm', h)
        a = self._attention(rel + '.self_attention', x, mask, rope)
        h1 = self.new(h.shape)
        self.api('add', [a, h], {}, [h1])
        y = self._norm(rel + '.pre_mlp_layernorm', h1)
        m = self._mlp(rel + '.mlp', y, overflow)
        if i == cfg.layers_per_chunk - 1 and not self.last:
            h2 = self._boundary(self.vstage + 1, 'fwd')
        else:
            h2 = self.f.new(h.shape, key=self.key('layer_out', g, self.micro))
        # An overflowing layer dumps NaN; the next layer continues from finite values so that the
        # injected anomaly stays confined to the nodes listed in the manifest.
        shown = self.f.nonfinite(h2, 'nan') if overflow else h2
        self.api('add', [m, h1], {}, [shown])
        self.leave(layer, [shown, None])
        self.layer_ctx = self.f.layer = -1
        return h2

    def _norm(self, rel, x):
        """FusedLayerNorm (GPT) or RMSNorm (Llama)."""
        h = self.cfg.hidden
        params = {'weight': self.weight(rel, 'weight', [h], False, 'ones')}
        if self.gpt:
            params['bias'] = self.weight(rel, 'bias', [h], False, 'normal', 0.01)
        mod = self.enter(rel, 'FusedLayerNorm' if self.gpt else 'RMSNorm', [x], {}, params)
        y = self.new(x.shape)
        if self.gpt:
            size = ({'type': 'torch.Size', 'value': [h]} if self.cfg.framework == 'pytorch' else [I(h)])
            self.api('layer_norm', [x, size, params['weight'], params['bias'], F(1e-05)], {}, [y])
        else:
            rstd = self.new(list(x.shape[:-1]) + [1], 'f32', 'pos', 1.0, rg=False)
            self.api('rms_norm', [x, params['weight']], {'epsilon': F(1e-05)}, [y, rstd])
        self.leave(mod, [y])
        return y

    def _linear(self, x, w, bias, y):
        """The matrix product inside a parallel linear layer (F.linear for GPT, t()+matmul for Llama)."""
        if self.gpt:
            self.api('linear', [x, w, bias], {}, [y])
        else:
            wt = w.reshaped([w.shape[1], w.shape[0]])
            self.api('t', [w], {}, [wt])
            self.api('matmul', [x, wt], {}, [y])

    def _column(self, rel, x, out_features, kwargs=None):
        """ColumnParallelLinear: output features sharded by tp."""
        T, h = self.cfg.tp, x.shape[-1]
        w = self.weight(rel, 'weight', [out_features // T, h], True)
        params = {'weight': w}
        if self.gpt and kwargs is None:
            params['bias'] = self.weight(rel, 'bias', [out_features // T], True, 'normal', 0.01)
        mod = self.enter(rel, 'ColumnParallelLinear', [x], kwargs or {}, params)
        y = self.new(list(x.shape[:-1]) + [out_features // T], kind='act_shard',
                     scale=2.0 if kwargs is not None else 1.0)
        self._linear(x, w, params.get('bias'), y)
        self.leave(mod, [y, None])
        return y

    def _row(self, rel, x, in_features, overflow=False):
        """RowParallelLinear: input features sharded by tp, output all-reduced."""
        cfg = self.cfg
        h, T = cfg.hidden, cfg.tp
        w = self.weight(rel, 'weight', [h, in_features // T], True)
        params = {'weight': w}
        bias = None
        if self.gpt:
            bias = params['bias'] = self.weight(rel, 'bias', [h], False, 'normal', 0.01)
        mod = self.enter(rel, 'RowParallelLinear', [x], {}, params)
        out_key = self.key('row_out', mod.lname)
        part = self.new(list(x.shape[:-1]) + [h], kind='act_shard',
                        key=out_key if T == 1 or out_key is None else self.key('row_partial', mod.lname), whole=True)
        if overflow:
            part = self.f.nonfinite(part, 'inf')
        self._linear(x, w, None, part)
        if T > 1:
            full = self.new(part.shape, key=out_key)
            if overflow:
                full = self.f.nonfinite(full, 'inf')
            self.api('all_reduce', [part], {'group': self.group('tp'), 'async_op': B(False)}, [full, None],
                     grad=False)
        else:
            full = part
        self.leave(mod, [full, bias])
        return full, bias

    def _attention(self, rel, x, mask, rope):
        """SelfAttention: qkv projection, core attention, output projection."""
        cfg = self.cfg
        heads = cfg.heads // cfg.tp
        attn = self.enter(rel, 'SelfAttention', [x], {
            'attention_mask': mask, 'key_value_states': None, 'inference_params': None,
            'rotary_pos_emb': rope, 'packed_seq_params': None})
        qkv = self._column(rel + '.linear_qkv', x, 3 * cfg.hidden)
        mixed = qkv.reshaped([SEQ, MBS, heads, 3 * HEAD_DIM])
        self.api('view', [qkv, I(SEQ), I(MBS), I(self._local(heads)), I(3 * HEAD_DIM)], {}, [mixed])
        q, k, v = (self.new([SEQ, MBS, heads, HEAD_DIM], kind='act_shard') for _ in range(3))
        self.api('split', [mixed, [I(HEAD_DIM)] * 3], {'dim': I(3)}, [q, k, v])
        ctx = self._core_attention(rel + '.core_attention', q, k, v, mask)
        out, bias = self._row(rel + '.linear_proj', ctx, cfg.hidden)
        self.leave(attn, [out, bias])
        return out

    def _core_attention(self, rel, q, k, v, mask):
        """DotProductAttention: scores, masked softmax, dropout, context."""
        cfg = self.cfg
        heads = cfg.heads // cfg.tp
        bh = MBS * heads
        core = self.enter(rel, 'DotProductAttention', [q, k, v, mask], {'attention_bias': None,
                                                                       'packed_seq_params': None})
        qv, kv, vv = (t.reshaped([SEQ, bh, HEAD_DIM]) for t in (q, k, v))
        for src, dst in ((q, qv), (k, kv)):
            if self.f.logical is None:
                self.api('view', [src, I(SEQ), I(bh), I(-1)], {}, [dst])
            else:
                self.api('view', [src, I(SEQ), I(-1), I(HEAD_DIM)], {}, [dst])
        buf = self.new([bh, SEQ, SEQ], dist='zeros', kind='act_shard', rg=False)
        scores = self.new([bh, SEQ, SEQ], scale=1.5, kind='act_shard')
        self.api('baddbmm', [buf, qv, kv], {'beta': F(0.0), 'alpha': F(1.0 / math.sqrt(HEAD_DIM))}, [scores])
        s4 = scores.reshaped([MBS, heads, SEQ, SEQ])
        self.api('view', [scores, I(MBS), I(self._local(heads)), I(SEQ), I(SEQ)], {}, [s4])
        softmax = self.enter(rel + '.scale_mask_softmax', 'FusedScaleMaskSoftmax', [s4, mask])
        probs = self.new(s4.shape, dist='prob', scale=SEQ, kind='act_shard')
        kwargs = {'dim': I(-1)}
        if self.cfg.framework == 'pytorch':
            kwargs.update({'_stacklevel': I(3), 'dtype': {'type': 'torch.dtype', 'value': 'torch.float32'}})
        self.api('softmax', [s4], kwargs, [probs])
        self.leave(softmax, [probs])
        drop = self.enter(rel + '.attention_dropout', 'Dropout', [probs])
        dropped = self.new(probs.shape, dist='prob', scale=SEQ, kind='act_shard')
        self.api('dropout', [probs], self._dropout_kwargs(), [dropped])
        self.leave(drop, [dropped])
        pv = dropped.reshaped([bh, SEQ, SEQ])
        if self.f.logical is None:
            self.api('view', [dropped, I(bh), I(SEQ), I(-1)], {}, [pv])
        else:
            self.api('view', [dropped, I(-1), I(SEQ), I(SEQ)], {}, [pv])
        ctx = self.new([bh, SEQ, HEAD_DIM], kind='act_shard')
        self.api('bmm', [pv, vv], {}, [ctx])
        out = ctx.reshaped([SEQ, MBS, heads * HEAD_DIM])
        self.api('view', [ctx, I(SEQ), I(MBS), I(self._local(heads * HEAD_DIM))], {}, [out])
        self.leave(core, [out])
        return out

    def _mlp(self, rel, y, overflow):
        """MLP: fc1, activation (gelu, or swiglu for Llama), fc2."""
        cfg = self.cfg
        ft = cfg.ffn // cfg.tp
        mlp = self.enter(rel, 'MLP', [y])
        fc1 = self._column(rel + '.linear_fc1', y, cfg.ffn if self.gpt else 2 * cfg.ffn)
        act = self.new(list(y.shape[:-1]) + [ft], kind='act_shard')
        if self.gpt:
            self.api('gelu', [fc1], {'approximate': S('tanh')}, [act])
        else:
            a, b = (self.new(act.shape, kind='act_shard') for _ in range(2))
            self.api('chunk', [fc1, I(2)], {'dim': I(-1)}, [a, b])
            silu = self.new(act.shape, kind='act_shard')
            self.api('silu', [a], {'inplace': B(False)}, [silu])
            self.api('mul', [silu, b], {}, [act])
        out, bias = self._row(rel + '.linear_fc2', act, cfg.ffn, overflow)
        self.leave(mlp, [out, bias])
        return out

    def _output_and_loss(self, h, labels):
        """Output layer and the vocab-parallel cross entropy (a custom autograd function: no API backward)."""
        cfg = self.cfg
        logits = self._column('output_layer', h, cfg.vocab, {'weight': None, 'runtime_gather_output': None})
        labels_t = labels.reshaped([SEQ, MBS])
        self.api('transpose', [labels, I(0), I(1)], {}, [labels_t], grad=False)
        top = self.new([SEQ, MBS], 'f32', 'pos', 5.0, 'act_shard', rg=False, whole=True)
        self.api('max', [logits], {'dim': I(-1)}, [top], grad=False)
        # (with --consistent-stats the reduced result is the whole tensor the partial results are shares of)
        top = self._tp_all_reduce(top, 'pos', 6.0 if self.f.logical is None else 5.0)
        shifted = self.new(logits.shape, 'f32', 'normal', 2.0, 'act_shard', rg=False)
        self.api('sub', [logits, top], {}, [shifted], grad=False)
        lse = self.new([SEQ, MBS], 'f32', 'pos', 2.0, 'act_shard', rg=False, whole=True)
        self.api('logsumexp', [shifted], {'dim': I(-1)}, [lse], grad=False)
        lse = self._tp_all_reduce(lse, 'pos', 3.0 if self.f.logical is None else 2.0)
        loss = self.new([SEQ, MBS], 'f32', 'pos', self._loss_level())
        self.api('sub', [lse, top], {}, [loss], grad=False)
        loss_t = loss.reshaped([MBS, SEQ])
        self.api('transpose', [loss, I(0), I(1)], {}, [loss_t])
        self.api('contiguous', [loss_t], {}, [loss_t])
        return loss_t

    def _tp_all_reduce(self, t, dist, scale):
        """All-reduce over the TP group (identity when tp == 1)."""
        if self.cfg.tp == 1:
            return t
        out = self.new(t.shape, t.dtype, dist, scale, 'act', rg=False, key=t.key)
        self.api('all_reduce', [t], {'group': self.group('tp')}, [out, None], grad=False)
        return out

    def _loss_level(self):
        """Typical per-token loss of this step (slowly decreasing)."""
        return max(1.0, math.log(self.cfg.vocab) - 0.15 * self.step)

    def _loss_func(self, loss, loss_mask):
        """pretrain_gpt.loss_func: masked mean of the per-token losses (top-level APIs)."""
        self._set_top('loss_func')
        n, level = MBS * SEQ, self._loss_level()
        flat = loss.reshaped([n])
        self.api('float', [loss], {}, [loss])
        self.api('view', [loss, I(-1)], {}, [flat])
        masked = self.new([n], 'f32', 'pos', level)
        self.api('mul', [flat, loss_mask.reshaped([n])], {}, [masked])
        total = self.new([], 'f32', 'pos', level * n)
        self.api('sum', [masked], {}, [total])
        count = self.new([], 'f32', ('const', float(n)), rg=False)
        self.api('sum', [loss_mask], {}, [count], grad=False)
        mean = self.new([], 'f32', 'pos', level)
        self.api('div', [total, count], {}, [mean])
        if self.cfg.dp > 1:
            reduced = self.new([], 'f32', 'pos', level, rg=False)
            self.api('all_reduce', [mean], {'group': self.group('dp')}, [reduced, None], grad=False)
        return mean

    def _optimizer_phase(self):
        """Gradient sync over DP, gradient clipping and the fused AdamW step (level mix only)."""
        cfg = self.cfg
        self.micro, self.phase, self.top = cfg.micro_batches - 1, 'optimizer', None
        params = list(self.weights.values())
        grads = [self.pgrads.get(id(w)) for w in params]
        if cfg.dp > 1:
            self._set_top('dp_sync')
            size = sum(numel(w.shape) for w in params)
            buf = self.new([size], 'f32', 'normal', PARAM_GRAD_SCALE, rg=False)
            out = self.new([size], 'f32', 'normal', PARAM_GRAD_SCALE, 'w', rg=False)
            self.api('all_reduce', [buf], {'group': self.group('dp'), 'async_op': B(False)}, [out, None],
                     grad=False)
        self._special('clip_grad')
        for g in grads:
            norm = self.new([], 'f32', 'pos', PARAM_GRAD_SCALE * 30, g.kind, rg=False, key=self.key('grad_norm', g.key),
                            whole=True)
            self.api('norm', [g, F(2.0)], {}, [norm], grad=False)
        if cfg.tp * cfg.pp > 1:
            total = self.new([], 'f32', 'pos', PARAM_GRAD_SCALE * 300, 'w', rg=False)
            self.api('all_reduce', [total], {'group': self.group('mp')}, [total, None], grad=False)
        self._special('optimizer')
        exp_avg = [self.f.new(w.shape, 'f32', 'normal', 1e-5, w.kind, rg=False, key=self.key('exp_avg', w.key))
                   for w in params]
        exp_avg_sq = [self.f.new(w.shape, 'f32', 'pos', 1e-9, w.kind, rg=False, key=self.key('exp_avg_sq', w.key))
                      for w in params]
        steps = [self.f.new([], 'f32', ('const', float(self.step + 1)), w.kind, rg=False,
                            key=self.key('adam_step', w.key)) for w in params]
        self.api('adamw', [params, grads, exp_avg, exp_avg_sq, [], steps], {
            'lr': F(0.0003), 'beta1': F(0.9), 'beta2': F(0.95), 'weight_decay': F(0.1), 'eps': F(1e-08),
            'amsgrad': B(False), 'maximize': B(False), 'grad_scale': None, 'found_inf': None}, [None], grad=False)


def _tensors(value):
    """All tensors nested in a dump entry."""
    cls = value.__class__
    if cls is Tensor:
        yield value
    elif cls is list or cls is tuple:
        for v in value:
            yield from _tensors(v)
    elif cls is dict:
        for v in value.values():
            yield from _tensors(v)


# ---------------------------------------------------------------------------------------------------------------
# Run orchestration

def parse_args(argv):
    """Parse and validate the command line."""
    p = argparse.ArgumentParser(
        description='Generate synthetic msProbe dumps (dump.json, construct.json, stack.json) of a '
                    'Megatron-style GPT/Llama training run, optionally with a golden twin and injected anomalies.',
        epilog='Ranks are placed in Megatron order tp-dp-pp: tp = r % tp, dp = (r // tp) % dp, '
               'pp = r // (tp * dp).  Layer numbers given to --diverge-layer / --overflow-layer are global '
               '(0 .. layers-1); module names use the stage-local numbering.')
    p.add_argument('out_dir', metavar='OUT_DIR', help='output folder (target side)')
    p.add_argument('--framework', choices=['pytorch', 'mindspore'], default='pytorch')
    p.add_argument('--model', choices=['gpt', 'llama'], default='gpt')
    p.add_argument('--layers', type=int, help='transformer layers in the whole model (default 4, or 2*pp)')
    p.add_argument('--hidden', type=int, default=1024, help='hidden size (multiple of 64; default 1024)')
    p.add_argument('--ranks', type=int, default=1)
    p.add_argument('--steps', type=int, default=1)
    p.add_argument('--tp', type=int, default=1)
    p.add_argument('--pp', type=int, default=1)
    p.add_argument('--vpp', type=int, help='model chunks per pipeline stage (Megatron interleaved schedule); when '
                   'given, module names carry the chunk index (Module.<k>.module...), also with --vpp 1')
    p.add_argument('--level', choices=['L0', 'mix'], default='mix')
    p.add_argument('--tensor-format', choices=['pt', 'npy'], default=None,
                   help='task tensor: the files written, as the dumper does by default (pytorch .pt, mindspore .npy)')
    p.add_argument('--task', choices=['statistics', 'md5', 'tensor', 'structure'], default='statistics',
                   help='md5 writes task "statistics" with an "md5" field per tensor (msProbe summary_mode md5)')
    p.add_argument('--micro-batches', type=int, default=1)
    p.add_argument('--micro-step-ids', choices=['dumper', 'batch'], default='dumper',
                   help='construct.json micro steps: "dumper" counts forward_step / backward_step calls as '
                        'msProbe does (-1 before the first forward_step, so the recv a later pipeline stage '
                        'begins with carries -1; lists whenever pp > 1); "batch" writes the micro batch index '
                        'and lists only with --micro-batches > 1 (the output of earlier versions)')
    p.add_argument('--target-mb', type=float, help='grow layers (up to %d per stage), then micro batches, '
                   'until each dump.json is about this many MB' % LAYERS_PER_STAGE_CAP)
    p.add_argument('--golden', metavar='DIR', help='also write a golden twin with the same layout into DIR')
    p.add_argument('--noise', type=float, default=0.0, help='golden: relative noise on every statistic (0..1)')
    p.add_argument('--diverge-layer', type=int, metavar='K',
                   help='golden: statistics of layer K and later are scaled by 1 + 0.5*(layer-K+1)')
    p.add_argument('--missing-module', metavar='SUBSTR', help='golden: omit modules whose name contains SUBSTR')
    p.add_argument('--overflow-layer', type=int, metavar='K',
                   help='target: Infinity in the MLP output of layer K (micro batch 0) and NaN in the residual add')
    p.add_argument('--overflow-rank', type=int, metavar='R',
                   help='with --overflow-layer: inject the overflow on rank R only (default: every rank)')
    p.add_argument('--overflow-step', type=int, metavar='S',
                   help='with --overflow-layer: inject the overflow in step S only (default: every step)')
    p.add_argument('--seed', type=int, default=0)
    p.add_argument('--consistent-stats', action='store_true',
                   help='statistics follow from each tensor\'s logical identity, not from the rank layout: the same '
                        'model split differently (tp, pp) merges back (msProbe graph merge) to the same statistics')
    p.add_argument('--layout', choices=['auto', 'files', 'ranks', 'steps'], default='auto')
    p.add_argument('--stack-format', choices=['new', 'old'], default='new')
    p.add_argument('--indent', type=int, default=1, help='json indent (msProbe writes 1)')
    p.add_argument('--manifest', metavar='PATH', help='where to write manifest.json (default OUT_DIR/manifest.json)')
    p.add_argument('--force', action='store_true', help='replace generated content already in OUT_DIR / DIR')
    args = p.parse_args(argv)
    _validate(p, args)
    return args


def _validate(p, a):
    """Check argument combinations (exits through ``p.error``)."""
    for name in ('ranks', 'steps', 'tp', 'pp', 'micro_batches', 'indent'):
        if getattr(a, name) < (0 if name == 'indent' else 1):
            p.error('--%s must be positive' % name.replace('_', '-'))
    if a.layers is None:
        unit = a.pp * (a.vpp or 1)
        a.layers = 4 if 4 % unit == 0 else 2 * unit
    if a.layers < a.pp or a.layers % a.pp:
        p.error('--layers (%d) must be a positive multiple of --pp (%d)' % (a.layers, a.pp))
    if a.vpp is not None:
        if a.vpp < 1:
            p.error('--vpp must be positive')
        if a.vpp > 1 and a.pp < 2:
            p.error('--vpp > 1 needs --pp >= 2')
        if a.layers % (a.pp * a.vpp):
            p.error('--layers (%d) must be a multiple of pp*vpp (%d)' % (a.layers, a.pp * a.vpp))
    if a.ranks % (a.tp * a.pp):
        p.error('--ranks (%d) must be divisible by tp*pp (%d)' % (a.ranks, a.tp * a.pp))
    if a.hidden < 64 or a.hidden % 64:
        p.error('--hidden must be a multiple of 64')
    if (a.hidden // HEAD_DIM) % a.tp:
        p.error('the number of heads (hidden/64 = %d) must be divisible by --tp' % (a.hidden // HEAD_DIM))
    if not 0.0 <= a.noise < 1.0:
        p.error('--noise must be in [0, 1)')
    for name in ('diverge_layer', 'overflow_layer'):
        k = getattr(a, name)
        if k is not None and not 0 <= k < a.layers:
            p.error('--%s must be in [0, %d)' % (name.replace('_', '-'), a.layers))
    if (a.overflow_rank is not None or a.overflow_step is not None) and a.overflow_layer is None:
        p.error('--overflow-rank / --overflow-step need --overflow-layer')
    if a.overflow_rank is not None and not 0 <= a.overflow_rank < a.ranks:
        p.error('--overflow-rank must be in [0, %d)' % a.ranks)
    if a.overflow_step is not None and not 0 <= a.overflow_step < a.steps:
        p.error('--overflow-step must be in [0, %d)' % a.steps)
    if a.golden is None and (a.noise or a.diverge_layer is not None or a.missing_module):
        p.error('--noise, --diverge-layer and --missing-module describe the golden twin: give --golden DIR')
    if a.consistent_stats and a.task == 'tensor':
        p.error('--consistent-stats needs a statistics task (not --task tensor)')
    if a.consistent_stats and a.tp not in TensorFactory.SHARD_NORMS:
        p.error('--consistent-stats supports --tp %s' % ', '.join(map(str, sorted(TensorFactory.SHARD_NORMS))))
    if a.layout == 'files' and (a.ranks > 1 or a.steps > 1):
        p.error('--layout files needs --ranks 1 --steps 1')
    if a.layout == 'ranks' and a.steps > 1:
        p.error('--layout ranks needs --steps 1')
    if a.golden and os.path.abspath(a.golden) == os.path.abspath(a.out_dir):
        p.error('--golden must differ from OUT_DIR')
    if a.target_mb is not None and a.target_mb <= 0:
        p.error('--target-mb must be positive')


def derive(cfg):
    """Fill in the model dimensions derived from the arguments."""
    cfg.dp = cfg.ranks // (cfg.tp * cfg.pp)
    if getattr(cfg, 'tensor_format', None) is None:
        cfg.tensor_format = 'npy' if cfg.framework == 'mindspore' else 'pt'
    cfg.layers_per_stage = cfg.layers // cfg.pp
    cfg.layers_per_chunk = cfg.layers_per_stage // (cfg.vpp or 1)
    cfg.heads = cfg.hidden // HEAD_DIM
    unit = 256 * cfg.tp
    cfg.ffn = 4 * cfg.hidden if cfg.model == 'gpt' else -(-(8 * cfg.hidden // 3) // unit) * unit
    pad = 128 * cfg.tp
    cfg.vocab = -(-(50257 if cfg.model == 'gpt' else 32000) // pad) * pad
    if cfg.layout == 'auto':
        cfg.layout = 'steps' if cfg.steps > 1 else 'ranks' if cfg.ranks > 1 else 'files'


def measure(cfg, layers_per_stage, micro_batches):
    """Size of rank 0's dump.json (step 0, target side) for a model size, without writing anything."""
    probe = argparse.Namespace(**vars(cfg))
    probe.layers_per_stage, probe.micro_batches = layers_per_stage, micro_batches
    probe.layers_per_chunk = layers_per_stage // (cfg.vpp or 1)
    probe.layers = layers_per_stage * cfg.pp
    place = Placement(0, cfg.tp, cfg.pp, cfg.dp)
    return RankDump(probe, place, 0, Variant(), None).run()['sizes']['dump.json']


def fit_target(cfg):
    """Grow layers (up to the cap), then micro batches, so that a dump.json is about --target-mb MB.

    The size is modelled as a + b*M + c*L*M + d*L (L layers per stage, M micro batches), fitted on four
    small probe runs."""
    v = cfg.vpp or 1
    s11, s21, s12, s22 = (measure(cfg, lp * v, m) for lp, m in ((1, 1), (2, 1), (1, 2), (2, 2)))
    c = s22 - s12 - s21 + s11
    d = s21 - s11 - c
    b = s12 - s11 - c
    a = s11 - b - c - d
    target = cfg.target_mb * 1e6
    lp, m = cfg.layers_per_stage // v, cfg.micro_batches

    def size(layers, micro):
        """Modelled dump.json size."""
        return a + b * micro + c * layers * micro + d * layers

    if size(lp, m) < target:
        need = (target - a - b * m) / (c * m + d)
        if need <= max(lp, LAYERS_PER_STAGE_CAP):
            lp = max(lp, int(round(need)))
        else:
            lp = max(lp, LAYERS_PER_STAGE_CAP)
            m = max(m, int(round((target - a - d * lp) / (b + c * lp))))
    lp = max(v, lp // v * v)
    cfg.layers_per_stage, cfg.micro_batches, cfg.layers = lp, m, lp * cfg.pp
    cfg.layers_per_chunk = lp // v


def rank_dir(cfg, base, step, rank):
    """Folder of one rank and step under ``base`` for the chosen layout."""
    if cfg.layout == 'files':
        return base
    if cfg.layout == 'ranks':
        return os.path.join(base, 'rank%d' % rank)
    return os.path.join(base, 'step%d' % step, 'rank%d' % rank)


def prepare_dir(path, force):
    """Create an output folder; refuse a non-empty one unless --force (then remove generated content)."""
    if os.path.isdir(path) and os.listdir(path):
        if not force:
            sys.exit('gen_dump: %s is not empty (use --force to replace generated content)' % path)
        for name in os.listdir(path):
            full = os.path.join(path, name)
            if name in ('dump.json', 'construct.json', 'stack.json', 'manifest.json'):
                os.remove(full)
            elif name == 'dump_tensor_data' or (os.path.isdir(full) and name[:4] in ('rank', 'step')):
                shutil.rmtree(full)
    os.makedirs(path, exist_ok=True)


def anomaly_records(cfg, side, step, rank, found):
    """Manifest records of the anomalies injected into one rank's files."""
    out = []
    if side == 'target' and found['nonfinite']:
        out.append({'type': 'overflow', 'side': side, 'step': step, 'rank': rank, 'layer': cfg.overflow_layer,
                    'nodes': found['nonfinite']})
    if side == 'golden' and found['drift_first']:
        out.append({'type': 'diverge', 'side': side, 'step': step, 'rank': rank, 'layer': cfg.diverge_layer,
                    'first_node': found['drift_first'], 'layer_nodes': found['drift_layer_nodes']})
    if side == 'golden' and found['omitted']:
        out.append({'type': 'missing_module', 'side': side, 'step': step, 'rank': rank,
                    'pattern': cfg.missing_module, 'nodes': found['omitted']})
    return out


def main(argv=None):
    """Generate every step, rank and side, then write the manifest and a summary line."""
    args = sys.argv[1:] if argv is None else list(argv)
    if args[:1] == ['--corpus']:
        return corpus_main(args[1:])
    cfg = parse_args(argv)
    derive(cfg)
    start = time.time()
    if cfg.target_mb:
        fit_target(cfg)
    sides = [('target', cfg.out_dir, Variant(overflow_layer=cfg.overflow_layer))]
    if cfg.golden:
        sides.append(('golden', cfg.golden, Variant(cfg.noise, cfg.diverge_layer, cfg.missing_module)))
    for _, base, _ in sides:
        prepare_dir(base, cfg.force)
    outputs, anomalies, total_bytes, files = [], [], 0, 0
    for step in range(cfg.steps):
        for rank in range(cfg.ranks):
            place = Placement(rank, cfg.tp, cfg.pp, cfg.dp)
            for side, base, variant in sides:
                if side == 'target' and cfg.overflow_layer is not None and (
                        (cfg.overflow_rank is not None and rank != cfg.overflow_rank) or
                        (cfg.overflow_step is not None and step != cfg.overflow_step)):
                    variant = Variant()   # the overflow is injected on one rank / step only
                folder = rank_dir(cfg, base, step, rank)
                gen = RankDump(cfg, place, step, variant, folder)
                info = gen.run()
                total_bytes += sum(info['sizes'].values())
                files += 3 + info['npy_files']
                outputs.append(dict({'side': side, 'step': step, 'rank': rank,
                                     'path': os.path.relpath(folder, base)}, **info))
                anomalies += anomaly_records(cfg, side, step, rank, gen.anomalies)
    if cfg.noise:
        anomalies.append({'type': 'noise', 'side': 'golden', 'relative': cfg.noise})
    manifest = {
        'generator': 'scripts/gen_dump.py',
        'parameters': {k: getattr(cfg, k) for k in (
            'framework', 'model', 'layers', 'layers_per_stage', 'hidden', 'heads', 'ffn', 'vocab', 'ranks',
            'steps', 'tp', 'pp', 'vpp', 'dp', 'level', 'task', 'micro_batches', 'micro_step_ids', 'target_mb', 'seed', 'layout',
            'stack_format', 'indent', 'golden', 'noise', 'diverge_layer', 'missing_module', 'overflow_layer', 'overflow_rank', 'overflow_step')},
        'constants': {'seq': SEQ, 'micro_batch_size': MBS, 'head_dim': HEAD_DIM, 'npy_cap': NPY_CAP},
        'placement': {'order': 'tp-dp-pp', 'ranks': [
            dict(rank=r, tp=pl.tp, dp=pl.dp, pp=pl.pp,
                 layers=[pl.pp * cfg.layers_per_stage, (pl.pp + 1) * cfg.layers_per_stage - 1],
                 **({} if not cfg.vpp else {'chunk_layers': [
                     [(c * cfg.pp + pl.pp) * cfg.layers_per_chunk, (c * cfg.pp + pl.pp + 1) * cfg.layers_per_chunk - 1]
                     for c in range(cfg.vpp)]}))
            for r, pl in ((r, Placement(r, cfg.tp, cfg.pp, cfg.dp)) for r in range(cfg.ranks))]},
        'outputs': outputs,
        'anomalies': anomalies,
    }
    manifest_path = cfg.manifest or os.path.join(cfg.out_dir, 'manifest.json')
    with open(manifest_path, 'w') as fh:
        json.dump(manifest, fh, indent=1)
    seconds = time.time() - start
    mb = total_bytes / 1e6
    print('gen_dump: %d files, %.1f MB in %.1f s (%.1f MB/s) -> %s%s' % (
        files, mb, seconds, mb / seconds if seconds else 0.0, cfg.out_dir,
        ' + ' + cfg.golden if cfg.golden else ''), file=sys.stderr)


# ---------------------------------------------------------------------------------------------------------------
# Dumper corpus (``--corpus CASE OUT_DIR``; ``--corpus list``)
#
# Small, hand-shaped inputs, one per shape the msProbe dumper can write (see tests/corpus/dumper_corpus.md, which
# names the dumper source of every shape).  Each builder returns the files of one side; JSON is written with
# ``json.dump(obj, f, indent=1)`` like msProbe's writer, so key order is insertion order and float NaN / inf are
# the bare tokens NaN / Infinity / -Infinity.  The golden side (compare cases) is the same case with every float
# statistic scaled by CORPUS_GOLDEN_SCALE (and whatever the builder changes on purpose).

CORPUS_GOLDEN_SCALE = 1.01
_CORPUS_SIDE = {'scale': 1.0, 'golden': False}


def _cf(x):
    """A float statistic of the current side (ints, bools, None, NaN and inf are kept)."""
    if isinstance(x, float) and math.isfinite(x):
        return x * _CORPUS_SIDE['scale']
    return x


def _pt(shape=(2, 3), dtype='torch.float32', mx=1.5, mn=-0.5, mean=0.25, norm=2.0, rg=True, **extra):
    """PyTorch tensor leaf: type, dtype, shape, Max, Min, Mean, Norm, then requires_grad and the rest."""
    d = {'type': 'torch.Tensor', 'dtype': dtype, 'shape': list(shape),
         'Max': _cf(mx), 'Min': _cf(mn), 'Mean': _cf(mean), 'Norm': _cf(norm), 'requires_grad': rg}
    d.update(extra)
    return d


def _ms(shape=(2, 3), dtype='Float32', mx=1.5, mn=-0.5, mean=0.25, norm=2.0, **extra):
    """MindSpore tensor leaf: no requires_grad; layout / hsdp_shard_size / md5 / data_name follow Norm."""
    d = {'type': 'mindspore.Tensor', 'dtype': dtype, 'shape': list(shape),
         'Max': _cf(mx), 'Min': _cf(mn), 'Mean': _cf(mean), 'Norm': _cf(norm)}
    d.update(extra)
    return d


def _v(typ, value):
    """Builtin / simple value leaf."""
    return {'type': typ, 'value': value}


def _frame(path, line, func, code):
    return 'File %s, line %d, in %s, \n %s' % (path, line, func, code)


def _stack_new(groups):
    """stack.json, new format: {"0": [[names], [frames]], ...}."""
    return {str(i): [list(names), list(frames)] for i, (names, frames) in enumerate(groups)}


def _stack_for(names, path='/workspace/train.py'):
    """One group per name with two frames (innermost first), as the dumper groups distinct stacks."""
    return _stack_new([([n], [_frame(path, 10 + 3 * i, 'forward', 'y = %s(x)' % n.split('.')[1]),
                               _frame(path, 200, 'main', 'loss = model(x)')]) for i, n in enumerate(names)])


def _dump(data, task='statistics', level='mix', framework='pytorch', dump_data_dir=None):
    return {'task': task, 'level': level, 'framework': framework, 'dump_data_dir': dump_data_dir, 'data': data}


def _rank(dump, construct, stack, npy=None):
    """Files of one rank folder."""
    files = {'dump.json': dump}
    if construct is not None:
        files['construct.json'] = construct
    if stack is not None:
        files['stack.json'] = stack
    for name, arr in (npy or {}).items():
        files['dump_tensor_data/' + name] = arr
    return files


def _npy_bytes(values, shape, descr='<f4'):
    """NPY 1.0 bytes of a float32 (descr '<f4') or int64 ('<i8') array."""
    text = '(%s)' % (', '.join(map(str, shape)) + (',' if len(shape) == 1 else ''))
    header = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (descr, text)
    header += ' ' * (63 - (10 + len(header)) % 64) + '\n'
    fmt = '<%d%s' % (len(values), 'f' if descr == '<f4' else 'q')
    return b'\x93NUMPY\x01\x00' + struct.pack('<H', len(header)) + header.encode('latin1') + struct.pack(fmt, *values)


# --- shared small models -----------------------------------------------------------------------------------------

def _mlp_mix(extra_construct_api=True):
    """PT mix: two root APIs (bare null parents), fc1 -> relu -> fc2 with their APIs, backward, parameters_grad."""
    data = {
        'Tensor.__add__.0.forward': {'input_args': [_pt((2, 4)), _v('int', 1)], 'input_kwargs': {},
                                     'output': [_pt((2, 4), mx=2.5, mn=0.5, mean=1.25, norm=3.0)]},
        'Torch.zeros.0.forward': {'input_args': [_v('int', 2), _v('int', 4)],
                                  'input_kwargs': {'dtype': _v('torch.dtype', 'torch.float32')},
                                  'output': [_pt((2, 4), mx=0.0, mn=0.0, mean=0.0, norm=0.0, rg=False)]},
        'Functional.linear.0.forward': {
            'input_args': [_pt((2, 4)), _pt((3, 4), mx=0.3, mn=-0.3, mean=0.01, norm=1.1)],
            'input_kwargs': {'bias': _pt((3,), mx=0.1, mn=-0.1, mean=0.0, norm=0.15)},
            'output': [_pt((2, 3), mx=1.2, mn=-0.9, mean=0.1, norm=1.7)]},
        'Module.fc1.Linear.forward.0': {
            'input_args': [_pt((2, 4))], 'input_kwargs': {},
            'output': [_pt((2, 3), mx=1.2, mn=-0.9, mean=0.1, norm=1.7)],
            'parameters': {'weight': _pt((3, 4), mx=0.3, mn=-0.3, mean=0.01, norm=1.1),
                           'bias': _pt((3,), mx=0.1, mn=-0.1, mean=0.0, norm=0.15)}},
        'Functional.relu.0.forward': {'input_args': [_pt((2, 3), mx=1.2, mn=-0.9, mean=0.1, norm=1.7)],
                                      'input_kwargs': {'inplace': _v('bool', False)},
                                      'output': [_pt((2, 3), mx=1.2, mn=0.0, mean=0.4, norm=1.5)]},
        'Module.act.ReLU.forward.0': {'input_args': [_pt((2, 3), mx=1.2, mn=-0.9, mean=0.1, norm=1.7)],
                                      'input_kwargs': {},
                                      'output': [_pt((2, 3), mx=1.2, mn=0.0, mean=0.4, norm=1.5)],
                                      'parameters': {}},
        'Functional.linear.1.forward': {
            'input_args': [_pt((2, 3), mx=1.2, mn=0.0, mean=0.4, norm=1.5), _pt((2, 3), mx=0.5, mn=-0.5)],
            'input_kwargs': {'bias': None},
            'output': [_pt((2, 2), mx=0.8, mn=-0.2, mean=0.3, norm=0.9)]},
        'Module.fc2.Linear.forward.0': {
            'input_args': [_pt((2, 3), mx=1.2, mn=0.0, mean=0.4, norm=1.5)], 'input_kwargs': {},
            'output': [_pt((2, 2), mx=0.8, mn=-0.2, mean=0.3, norm=0.9)],
            'parameters': {'weight': _pt((2, 3), mx=0.5, mn=-0.5)}},
        'Tensor.sum.0.forward': {'input_args': [_pt((2, 2), mx=0.8, mn=-0.2, mean=0.3, norm=0.9)],
                                 'input_kwargs': {}, 'output': [_pt((), mx=1.2, mn=1.2, mean=1.2, norm=1.2)]},
        'Functional.linear.1.backward': {'input': [_pt((2, 2), mx=0.01, mn=-0.01, mean=0.0, norm=0.02, rg=False)],
                                         'output': [_pt((2, 3), mx=0.02, mn=-0.02, mean=0.0, norm=0.03, rg=False),
                                                    _pt((2, 3), mx=0.03, mn=-0.03, mean=0.0, norm=0.04, rg=False)]},
        'Module.fc2.Linear.backward.0': {'input': [_pt((2, 2), mx=0.01, mn=-0.01, mean=0.0, norm=0.02, rg=False)],
                                         'output': [_pt((2, 3), mx=0.02, mn=-0.02, mean=0.0, norm=0.03, rg=False)]},
        'Module.fc2.Linear.parameters_grad': {'weight': [_pt((2, 3), mx=0.03, mn=-0.03, mean=0.0, norm=0.04, rg=False)]},
        'Functional.relu.0.backward': {'input': [_pt((2, 3), mx=0.02, mn=-0.02, mean=0.0, norm=0.03, rg=False)],
                                       'output': [_pt((2, 3), mx=0.02, mn=0.0, mean=0.005, norm=0.02, rg=False)]},
        'Module.act.ReLU.backward.0': {'input': [_pt((2, 3), mx=0.02, mn=-0.02, mean=0.0, norm=0.03, rg=False)],
                                       'output': [_pt((2, 3), mx=0.02, mn=0.0, mean=0.005, norm=0.02, rg=False)]},
        'Functional.linear.0.backward': {'input': [_pt((2, 3), mx=0.02, mn=0.0, mean=0.005, norm=0.02, rg=False)],
                                         'output': [None, _pt((3, 4), mx=0.01, mn=-0.01, mean=0.0, norm=0.02, rg=False),
                                                    _pt((3,), mx=0.01, mn=0.0, mean=0.004, norm=0.01, rg=False)]},
        'Module.fc1.Linear.backward.0': {'input': [_pt((2, 3), mx=0.02, mn=0.0, mean=0.005, norm=0.02, rg=False)],
                                         'output': [None]},
        'Module.fc1.Linear.parameters_grad': {'weight': [_pt((3, 4), mx=0.01, mn=-0.01, mean=0.0, norm=0.02, rg=False)],
                                              'bias': [_pt((3,), mx=0.01, mn=0.0, mean=0.004, norm=0.01, rg=False)]},
        'Module.head.Linear.parameters_grad': {'weight': [_pt((2, 2), rg=False)]},
    }
    # The dumper pops and re-inserts a Module key at its output merge, so it follows its children's records.
    construct = {
        'Tensor.__add__.0.forward': None,
        'Torch.zeros.0.forward': None,
        'Functional.linear.0.forward': 'Module.fc1.Linear.forward.0',
        'Module.fc1.Linear.forward.0': None,
        'Functional.relu.0.forward': 'Module.act.ReLU.forward.0',
        'Module.act.ReLU.forward.0': None,
    }
    if extra_construct_api:
        construct['Tensor.reshape.0.forward'] = 'Module.act.ReLU.forward.0'   # hooked, filtered out of dump.json
    construct.update({
        'Functional.linear.1.forward': 'Module.fc2.Linear.forward.0',
        'Module.fc2.Linear.forward.0': None,
        'Tensor.sum.0.forward': None,
        'Functional.linear.1.backward': 'Module.fc2.Linear.backward.0',
        'Module.fc2.Linear.backward.0': None,
        'Functional.relu.0.backward': 'Module.act.ReLU.backward.0',
        'Module.act.ReLU.backward.0': None,
        'Functional.linear.0.backward': 'Module.fc1.Linear.backward.0',
        'Module.fc1.Linear.backward.0': None,
    })
    stack = _stack_new([
        (['Tensor.__add__.0.forward', 'Torch.zeros.0.forward'],
         [_frame('/workspace/train.py', 88, 'main', 'x = x + 1'), _frame('/workspace/train.py', 120, '<module>', 'main()')]),
        (['Module.fc1.Linear.forward.0', 'Module.fc2.Linear.forward.0'],
         [_frame('/workspace/model.py', 21, 'forward', 'x = self.fc(x)'), _frame('/workspace/train.py', 90, 'main', 'y = model(x)')]),
        (['Functional.linear.0.forward', 'Functional.linear.1.forward'],
         [_frame('/usr/lib/python3/site-packages/torch/nn/modules/linear.py', 125, 'forward',
                 'return F.linear(input, self.weight, self.bias)')]),
        (['Functional.relu.0.forward', 'Module.act.ReLU.forward.0'],
         [_frame('/workspace/model.py', 22, 'forward', 'x = self.act(x)')]),
        (['Tensor.sum.0.forward'], [_frame('/workspace/train.py', 91, 'main', 'loss = y.sum()')]),
    ])
    return data, construct, stack


def _l0_nested():
    """PT L0: nested modules; backward children recorded with a null parent (the builder's upnode fix)."""
    data = {
        'Module.block.fc.Linear.forward.0': {'input_args': [_pt((2, 4))], 'input_kwargs': {},
                                             'output': [_pt((2, 4), mx=0.9)],
                                             'parameters': {'weight': _pt((4, 4), mx=0.2, mn=-0.2)}},
        'Module.block.drop.Dropout.forward.0': {'input_args': [_pt((2, 4), mx=0.9)], 'input_kwargs': {},
                                                'output': [_pt((2, 4), mx=0.9)], 'parameters': {}},
        'Module.block.Block.forward.0': {'input_args': [_pt((2, 4))], 'input_kwargs': {'mask': None},
                                         'output': [_pt((2, 4), mx=0.9)], 'parameters': {}},
        'Module.head.Linear.forward.0': {'input_args': [_pt((2, 4), mx=0.9)], 'input_kwargs': {},
                                         'output': [_pt((2, 1), mx=0.4)],
                                         'parameters': {'weight': _pt((1, 4), mx=0.2), 'bias': _pt((1,), mx=0.1)}},
        'Module.head.Linear.backward.0': {'input': [_pt((2, 1), mx=0.5, rg=False)],
                                          'output': [_pt((2, 4), mx=0.05, rg=False)]},
        'Module.head.Linear.parameters_grad': {'weight': [_pt((1, 4), mx=0.05, rg=False)],
                                               'bias': [_pt((1,), mx=0.5, rg=False)]},
        'Module.block.Block.backward.0': {'input': [_pt((2, 4), mx=0.05, rg=False)],
                                          'output': [_pt((2, 4), mx=0.04, rg=False)]},
        'Module.block.drop.Dropout.backward.0': {'input': [_pt((2, 4), mx=0.05, rg=False)],
                                                 'output': [_pt((2, 4), mx=0.05, rg=False)]},
        'Module.block.fc.Linear.backward.0': {'input': [_pt((2, 4), mx=0.05, rg=False)],
                                              'output': [_pt((2, 4), mx=0.04, rg=False)]},
        'Module.block.fc.Linear.parameters_grad': {'weight': [_pt((4, 4), mx=0.03, rg=False)]},
    }
    construct = {
        'Module.block.Block.forward.0': None,
        'Module.block.fc.Linear.forward.0': 'Module.block.Block.forward.0',
        'Module.block.drop.Dropout.forward.0': 'Module.block.Block.forward.0',
        'Module.head.Linear.forward.0': None,
        'Module.head.Linear.backward.0': None,
        'Module.block.Block.backward.0': None,
        'Module.block.drop.Dropout.backward.0': None,
        'Module.block.fc.Linear.backward.0': 'Module.block.Block.backward.0',
    }
    stack = _stack_for(['Module.block.Block.forward.0', 'Module.block.fc.Linear.forward.0',
                        'Module.block.drop.Dropout.forward.0', 'Module.head.Linear.forward.0'])
    return data, construct, stack


# --- builders: side ('target' or 'golden') -> {relative folder: {file name: content}} ----------------------------

def _c_layout_files(side):
    d, c, s = _mlp_mix()
    return {'': _rank(_dump(d), c, s)}


def _c_layout_rank(side):
    out = {}
    saved = _CORPUS_SIDE['scale']
    for r in (0, 1):
        _CORPUS_SIDE['scale'] = saved * (1.0 + 0.5 * r)
        d, c, s = _l0_nested()
        out['rank%d' % r] = _rank(_dump(d, level='L0'), c, s)
    _CORPUS_SIDE['scale'] = saved
    return out


def _c_layout_step_rank(side):
    out = {}
    saved = _CORPUS_SIDE['scale']
    for step in (0, 1):
        for r in (0, 1):
            _CORPUS_SIDE['scale'] = saved * (1.0 + 0.25 * step + 0.5 * r)
            d, c, s = _l0_nested()
            out['step%d/rank%d' % (step, r)] = _rank(_dump(d, level='L0'), c, s)
    _CORPUS_SIDE['scale'] = saved
    return out


def _tensor_records(framework, suffix):
    """Tensor-task records with data_name (kwargs category 'kwargs', parameters, backward, parameters_grad)."""
    leaf = _ms if framework == 'mindspore' else _pt
    pre = 'Cell' if framework == 'mindspore' else 'Module'
    values = {}

    def t(name, shape, mx, mn, mean, norm, vals):
        values[name + suffix] = (vals, shape)
        return leaf(shape, mx=mx, mn=mn, mean=mean, norm=norm, data_name=name + suffix)

    lin = 'Functional.linear.0.forward'
    g = 1.0 + (0.05 if _CORPUS_SIDE['golden'] else 0.0)
    x = [0.5, -0.25, 1.0, 0.75]
    w = [0.1, -0.2, 0.3, 0.4, -0.1, 0.2, 0.05, -0.3]
    y = [0.5 * g, -0.3, 0.25, 1.0]
    data = {
        lin: {'input_args': [t(lin + '.input.0', [1, 4], 1.0, -0.25, 0.5, 1.3693064, x),
                             t(lin + '.input.1', [2, 4], 0.4, -0.3, 0.05625, 0.6964194, w)],
              'input_kwargs': {'bias': t(lin + '.kwargs.bias', [2], 0.2, -0.1, 0.05, 0.2236068, [0.2, -0.1])},
              'output': [t(lin + '.output.0', [2, 2], 1.0 * g, -0.3, 0.3625, 1.1968709, y)]},
        pre + '.fc.Linear.forward.0': {
            'input_args': [t(pre + '.fc.Linear.forward.0.input.0', [1, 4], 1.0, -0.25, 0.5, 1.3693064, x)],
            'input_kwargs': {},
            'output': [t(pre + '.fc.Linear.forward.0.output.0', [2, 2], 1.0 * g, -0.3, 0.3625, 1.1968709, y)],
            'parameters': {'weight': t(pre + '.fc.Linear.forward.0.parameters.weight', [2, 4], 0.4, -0.3, 0.05625,
                                       0.6964194, w)}},
        pre + '.fc.Linear.backward.0': {
            'input': [t(pre + '.fc.Linear.backward.0.input.0', [2, 2], 1.0, 1.0, 1.0, 2.0, [1.0, 1.0, 1.0, 1.0])],
            'output': [t(pre + '.fc.Linear.backward.0.output.0', [1, 4], 0.7, -0.5, 0.1, 1.0, [0.7, -0.5, 0.2, 0.0])]},
        pre + '.fc.Linear.parameters_grad': {
            'weight': [t(pre + '.fc.Linear.parameters_grad.weight', [2, 4], 1.0, -0.25, 0.5, 1.9364917, x + x)]},
    }
    npy = {name: _npy_bytes(vals, shape) for name, (vals, shape) in values.items()}
    construct = {lin: pre + '.fc.Linear.forward.0', pre + '.fc.Linear.forward.0': None,
                 pre + '.fc.Linear.backward.0': None}
    stack = _stack_for([lin])
    return data, construct, stack, npy


def _c_layout_step_proc(side):
    d, c, s, npy = _tensor_records('mindspore', '.npy')
    stale = '/home/user/dump/step0/proc4242/dump_tensor_data'   # the path at dump time (renamed dir, stale path)
    return {'step0/proc4242': _rank(_dump(d, task='tensor', framework='mindspore', dump_data_dir=stale), c, s, npy)}


def _c_t_tensor_npy(side):
    d, c, s, npy = _tensor_records('mindspore', '.npy')
    return {'': _rank(_dump(d, task='tensor', framework='mindspore',
                            dump_data_dir='/home/user/dump/step0/rank0/dump_tensor_data'), c, s, npy)}


def _bf16_bytes(values):
    """bfloat16 storage bytes (each float32 value truncated to its upper half, as the values are chosen exact)."""
    return b''.join(struct.pack('<f', v)[2:] for v in values)


def _c_t_tensor_pt(side):
    """PyTorch task tensor: `.pt` files (torch.save zip + pickle) as the dumper writes them with save_pt, in the
    forms a real run holds: a slice saved as a strided view with a storage offset (slicing, 8c015a92:
    `tensor[slice]` is saved, so the file keeps the whole storage), a transposed (non-contiguous) weight, a
    bfloat16 golden tensor (bf16 autocast), int64 targets, a bool mask and a 0-d loss."""
    d, c, s, _ = _tensor_records('pytorch', '.pt')
    golden = _CORPUS_SIDE['golden']
    lin = 'Functional.linear.0.forward'
    files = {}
    g = 1.0 + (0.05 if golden else 0.0)

    def f32(vals):
        return struct.pack('<%df' % len(vals), *vals)

    # input.0 [1, 4]: a slice of a [3, 4] activation (rows 1:2), offset 4 into 12 elements.
    act = [0.0, 0.0, 0.0, 0.0, 0.5, -0.25, 1.0, 0.75, 9.0, 9.0, 9.0, 9.0]
    files[lin + '.input.0.pt'] = torch_pt_bytes(lin + '.input.0', f32(act), [1, 4], offset=4, requires_grad=True)
    # input.1 [2, 4]: weight.t() of a [4, 2] parameter: stride (1, 2).
    w = [0.1, -0.2, 0.3, 0.4, -0.1, 0.2, 0.05, -0.3]
    wt = [w[(i % 2) * 4 + i // 2] for i in range(8)]
    files[lin + '.input.1.pt'] = torch_pt_bytes(lin + '.input.1', f32(wt), [2, 4], stride=[1, 2], requires_grad=True)
    files[lin + '.kwargs.bias.pt'] = torch_pt_bytes(lin + '.kwargs.bias', f32([0.2, -0.1]), [2], requires_grad=True)
    y = [0.5 * g, -0.3, 0.25, 1.0]
    if golden:   # bf16 autocast: the output is bfloat16 (values exact in bf16)
        files[lin + '.output.0.pt'] = torch_pt_bytes(lin + '.output.0', _bf16_bytes([0.5234375, -0.30078125, 0.25, 1.0]),
                                                     [2, 2], 'BFloat16Storage', requires_grad=True)
        d[lin]['output'][0]['dtype'] = 'torch.bfloat16'
    else:
        files[lin + '.output.0.pt'] = torch_pt_bytes(lin + '.output.0', f32(y), [2, 2], requires_grad=True)
    pre = 'Module.fc.Linear'
    for name, vals, shape in ((pre + '.forward.0.input.0', [0.5, -0.25, 1.0, 0.75], [1, 4]),
                              (pre + '.forward.0.output.0', y, [2, 2]),
                              (pre + '.forward.0.parameters.weight', w, [2, 4]),
                              (pre + '.backward.0.input.0', [1.0, 1.0, 1.0, 1.0], [2, 2]),
                              (pre + '.backward.0.output.0', [0.7, -0.5, 0.2, 0.0], [1, 4]),
                              (pre + '.parameters_grad.weight', [0.5, -0.25, 1.0, 0.75] * 2, [2, 4])):
        files[name + '.pt'] = torch_pt_bytes(name, f32(vals), shape)
    # cross_entropy: float logits, int64 targets, a bool mask argument, a 0-d loss.
    ce = 'Functional.cross_entropy.0.forward'
    d[ce] = {'input_args': [_pt([2, 2], mx=1.0, mn=-0.3, mean=0.36, norm=1.2, data_name=ce + '.input.0.pt'),
                            _pt([2], dtype='torch.int64', mx=1, mn=0, mean=0.5, norm=1.0, rg=False,
                                data_name=ce + '.input.1.pt'),
                            _pt([2], dtype='torch.bool', mx=True, mn=False, mean=None, norm=None, rg=False,
                                data_name=ce + '.input.2.pt')],
             'input_kwargs': {},
             'output': [_pt([], mx=0.7, mn=0.7, mean=0.7, norm=0.7, data_name=ce + '.output.0.pt')]}
    files[ce + '.input.0.pt'] = torch_pt_bytes(ce + '.input.0', f32(y), [2, 2], requires_grad=True)
    files[ce + '.input.1.pt'] = torch_pt_bytes(ce + '.input.1', struct.pack('<2q', 1, 0), [2], 'LongStorage')
    files[ce + '.input.2.pt'] = torch_pt_bytes(ce + '.input.2', b'\x01\x00' if not golden else b'\x01\x01', [2],
                                               'BoolStorage')
    files[ce + '.output.0.pt'] = torch_pt_bytes(ce + '.output.0', f32([0.75 * g]), [], requires_grad=True)
    c[ce] = None
    return {'': _rank(_dump(d, task='tensor', dump_data_dir='/home/user/dump/step0/rank0/dump_tensor_data'), c, s,
                      files)}


def _c_s_module_preorder(side):
    """msProbe HEAD (4400e05c): a Module's inputs are collected in a forward pre-hook, so its stack group is
    recorded before its children's API groups (pre-order), an inplace module's inputs are taken before it
    writes over them (ReLU(inplace=True): input statistics differ from the output's), and a Module key updated
    again is popped and re-inserted (parameters_grad after the last gradient; records keep their final order)."""
    d, c, _ = _mlp_mix()
    relu = d['Module.act.ReLU.forward.0']
    relu['input_kwargs'] = {}
    relu['input_args'] = [_pt((2, 3), mx=1.2, mn=-0.9, mean=0.1, norm=1.7)]        # before the inplace write
    relu['output'] = [_pt((2, 3), mx=1.2, mn=0.0, mean=0.4, norm=1.5)]
    d['Functional.relu.0.forward']['input_kwargs'] = {'inplace': _v('bool', True)}
    # parameters_grad of fc1: bias last, so the key was re-inserted after its second update.
    d['Module.fc1.Linear.parameters_grad'] = d.pop('Module.fc1.Linear.parameters_grad')
    model, linear = '/workspace/model.py', '/usr/lib/python3/site-packages/torch/nn/modules/linear.py'
    stack = _stack_new([
        (['Tensor.__add__.0.forward', 'Torch.zeros.0.forward'],
         [_frame('/workspace/train.py', 88, 'main', 'x = x + 1'), _frame('/workspace/train.py', 120, '<module>', 'main()')]),
        (['Module.fc1.Linear.forward.0', 'Module.fc2.Linear.forward.0'],     # pre-hook: before linear.0
         [_frame('/usr/lib/python3/site-packages/torch/nn/modules/module.py', 1190, '_call_impl',
                 'result = forward_pre_hook(self, input)'), _frame(model, 21, 'forward', 'x = self.fc(x)')]),
        (['Functional.linear.0.forward', 'Functional.linear.1.forward'],
         [_frame(linear, 125, 'forward', 'return F.linear(input, self.weight, self.bias)')]),
        (['Module.act.ReLU.forward.0'],
         [_frame('/usr/lib/python3/site-packages/torch/nn/modules/module.py', 1190, '_call_impl',
                 'result = forward_pre_hook(self, input)'), _frame(model, 22, 'forward', 'x = self.act(x)')]),
        (['Functional.relu.0.forward'], [_frame(model, 22, 'forward', 'x = self.act(x)')]),
        (['Tensor.sum.0.forward'], [_frame('/workspace/train.py', 91, 'main', 'loss = y.sum()')]),
    ])
    return {'': _rank(_dump(d), c, stack)}


def _c_api_npu_atb(side):
    """torch_npu's atb APIs (a59532a9): wrapped from torch_npu.atb and named without the `atb.` part, as NPU
    APIs: NPU.npu_ring_mla.0.forward, NPU._npu_paged_attention_v2.0.backward."""
    mla, pa = 'NPU.npu_ring_mla.0.forward', 'NPU._npu_paged_attention_v2.0'
    data = {
        mla: {'input_args': [_pt((2, 8, 64), dtype='torch.float16'), _pt((2, 8, 64), dtype='torch.float16'),
                             _v('int', 8)],
              'input_kwargs': {'kernel_type': _v('str', 'kernel_type_high_precision'), 'mask': None},
              'output': [_pt((2, 8, 64), dtype='torch.float16', mx=0.9, mn=-0.8, mean=0.01, norm=3.2),
                         _pt((2, 8), mx=2.0, mn=1.0, mean=1.5, norm=5.0)]},
        pa + '.forward': {'input_args': [_pt((4, 16), dtype='torch.bfloat16'), _v('float', 0.125)],
                          'input_kwargs': {}, 'output': [_pt((4, 16), dtype='torch.bfloat16', mx=0.7)]},
        'Module.attn.Attention.forward.0': {'input_args': [_pt((2, 8, 64), dtype='torch.float16')], 'input_kwargs': {},
                                            'output': [_pt((2, 8, 64), dtype='torch.float16', mx=0.9, mn=-0.8,
                                                           mean=0.01, norm=3.2)], 'parameters': {}},
        pa + '.backward': {'input': [_pt((4, 16), dtype='torch.bfloat16', mx=0.01, rg=False)],
                           'output': [_pt((4, 16), dtype='torch.bfloat16', mx=0.02, rg=False), None]},
    }
    construct = {mla: 'Module.attn.Attention.forward.0', pa + '.forward': 'Module.attn.Attention.forward.0',
                 'Module.attn.Attention.forward.0': None, pa + '.backward': None}
    return {'': _rank(_dump(data), construct, _stack_for([mla, pa + '.forward']))}


def _c_layout_aclgraph_stats(side):
    """AclGraphDumper's statistics task (063ec9a7): only step0/pid<PID>/dump.json (indent 2, no construct.json
    or stack.json), names like Module.layers.0.Linear.forward.0 / Aten.mm.0.forward, leaves without
    requires_grad. msProbe's graph_visualize cannot build it (construct.json is missing)."""
    data = {'Aten.mm.0.forward': {'input_args': [{'type': 'torch.Tensor', 'dtype': 'torch.float16', 'shape': [4, 8],
                                                  'Max': 1.0, 'Min': -1.0, 'Mean': 0.0, 'Norm': 2.0}],
                                  'input_kwargs': {},
                                  'output': [{'type': 'torch.Tensor', 'dtype': 'torch.float16', 'shape': [4, 4],
                                              'Max': 1.5, 'Min': -1.5, 'Mean': 0.0, 'Norm': 3.0}]}}
    return {'step0/pid4242': {'dump.json': _dump(data, level='L1')}}


def _c_dj_level_l0(side):
    d, c, s = _l0_nested()
    return {'': _rank(_dump(d, level='L0'), c, s)}


def _c_dj_structure(side):
    _, c, s = _mlp_mix()
    return {'': _rank(_dump({}, task='structure'), c, s)}


def _c_layout_proc(side):
    """-tp pointing at step<N> of a single-process run: the only entry is proc<pid>."""
    d, c = _l0_mix_small()
    return {'proc4242': _rank(_dump(d), c, _stack_for(['Functional.linear.0.forward']))}


def _c_ms_cells(side):
    """MindSpore mix: Cell records with output + parameters only, Cell backward with "output": [], MS leaves."""
    layout = {'Device Matrix': [2, 1], 'Alias Name': ['dp', 'mp'], 'Interleaved': 'Yes', 'Partial': [],
              'Tensor Map': [1, -1], 'Rank List': [0, 1]}
    data = {
        'Mint.add.0.forward': {'input_args': [_ms((2, 3)), _v('float', 1.0)], 'input_kwargs': {},
                               'output': [_ms((2, 3), mx=2.5, mn=0.5, mean=1.25, norm=3.0)]},
        'Functional.matmul.0.forward': {'input_args': [_ms((2, 3), mx=2.5, mn=0.5, mean=1.25, norm=3.0),
                                                       _ms((3, 4), mx=0.3, mn=-0.3, mean=0.0, norm=1.0, layout=layout,
                                                           hsdp_shard_size=2)],
                                        'input_kwargs': {}, 'output': [_ms((2, 4), mx=0.7, mn=-0.6)]},
        'Tensor.astype.0.forward': {'input_args': [_ms((2, 4), mx=0.7, mn=-0.6), _v('mindspore.dtype', 'Float16')],
                                    'input_kwargs': {}, 'output': [_ms((2, 4), dtype='Float16', mx=0.7, mn=-0.6)]},
        'Cell.dense.Dense.forward.0': {'output': [_ms((2, 4), dtype='Float16', mx=0.7, mn=-0.6)],
                                       'parameters': {'weight': _ms((3, 4), mx=0.3, mn=-0.3, mean=0.0, norm=1.0)}},
        'Primitive.relu.ReLU.0.forward': {'input_args': [_ms((2, 4), dtype='Float16', mx=0.7, mn=-0.6)],
                                          'input_kwargs': {}, 'output': [_ms((2, 4), dtype='Float16', mx=0.7, mn=0.0)]},
        'Jit.loss_fn.0.forward': {'input_args': [_ms((2, 4), dtype='Float16', mx=0.7, mn=0.0),
                                                 _ms((2,), dtype='Int32', mx=3.0, mn=0.0, mean=1.5, norm=3.0)],
                                  'input_kwargs': {}, 'output': [_ms((), mx=0.9, mn=0.9, mean=0.9, norm=0.9)]},
        'Cell.act.ReLU.forward.0': {'output': [_ms((2, 4), dtype='Float16', mx=0.7, mn=0.0)], 'parameters': {}},
        'Jit.loss_fn.0.backward': {'input': [_ms((), mx=1.0, mn=1.0, mean=1.0, norm=1.0)],
                                   'output': [_ms((2, 4), dtype='Float16', mx=0.1, mn=-0.1), None]},
        'Primitive.relu.ReLU.0.backward': {'input': [_ms((2, 4), dtype='Float16', mx=0.1, mn=-0.1)],
                                           'output': [_ms((2, 4), dtype='Float16', mx=0.1, mn=0.0)]},
        'Cell.act.ReLU.backward.0': {'input': [_ms((2, 4), dtype='Float16', mx=0.1, mn=-0.1)], 'output': []},
        'Cell.dense.Dense.backward.0': {'input': [_ms((2, 4), dtype='Float16', mx=0.1, mn=0.0)],
                                        'output': [_ms((2, 3), mx=0.05, mn=-0.05)]},
        'Cell.dense.Dense.parameters_grad': {'weight': [_ms((3, 4), mx=0.02, mn=-0.02, mean=0.0, norm=0.1)]},
        'Mint.mean.0.forward': {'input_args': [_ms((2, 4), dtype='Bool', mx=True, mn=False, mean=None, norm=None)],
                                'input_kwargs': {'dtype': _v('mindspore.dtype', 'Float32')},
                                'output': [_ms((), mx=0.5, mn=0.5, mean=0.5, norm=0.5)]},
    }
    construct = {
        'Mint.add.0.forward': None,
        'Functional.matmul.0.forward': 'Cell.dense.Dense.forward.0',
        'Cell.dense.Dense.forward.0': None,
        'Tensor.astype.0.forward': 'Cell.dense.Dense.forward.0',
        'Primitive.relu.ReLU.0.forward': 'Cell.act.ReLU.forward.0',
        'Cell.act.ReLU.forward.0': None,
        'Jit.loss_fn.0.forward': None,
        'Jit.loss_fn.0.backward': None,
        'Primitive.relu.ReLU.0.backward': 'Cell.act.ReLU.backward.0',
        'Cell.act.ReLU.backward.0': None,
        'Cell.dense.Dense.backward.0': None,
        'Mint.mean.0.forward': None,
    }
    stack = _stack_for(['Mint.add.0.forward', 'Functional.matmul.0.forward', 'Tensor.astype.0.forward',
                        'Primitive.relu.ReLU.0.forward', 'Jit.loss_fn.0.forward', 'Mint.mean.0.forward'])
    return {'': _rank(_dump(data, framework='mindspore'), construct, stack)}


def _c_rec_data_mode(side):
    """data_mode ["output"]: forward records hold output (+ parameters), backward records output only."""
    d, c, s = _mlp_mix(extra_construct_api=False)
    kept = {}
    for name, rec in d.items():
        if name.endswith('parameters_grad'):
            continue                      # parameters_grad is a backward input: not collected with ["output"]
        kept[name] = {k: v for k, v in rec.items() if k in ('output', 'parameters')}
    return {'': _rank(_dump(kept), c, s)}


def _c_rec_data_mode_input(side):
    """data_mode ["input"]: forward records hold input_args + input_kwargs (no parameters), backward input only."""
    d, c, s = _mlp_mix(extra_construct_api=False)
    kept = {}
    for name, rec in d.items():
        if name.endswith('parameters_grad'):
            kept[name] = rec
            continue
        kept[name] = {k: v for k, v in rec.items() if k in ('input_args', 'input_kwargs', 'input')}
    return {'': _rank(_dump(kept), c, s)}


def _phase_records():
    return {
        'Torch.norm.0.forward': {'input_args': [_pt((3, 4), mx=0.01, mn=-0.01, mean=0.0, norm=0.02, rg=False)],
                                 'input_kwargs': {'p': _v('float', 2.0)},
                                 'output': [_pt((), mx=0.02, mn=0.02, mean=0.02, norm=0.02, rg=False)]},
        'Tensor.mul_.0.forward': {'input_args': [_pt((3, 4), mx=0.01, mn=-0.01, mean=0.0, norm=0.02, rg=False),
                                                 _v('float', 0.5)],
                                  'input_kwargs': {}, 'output': [_pt((3, 4), mx=0.005, mn=-0.005, mean=0.0, norm=0.01, rg=False)]},
        'Torch._foreach_add_.0.forward': {'input_args': [[_pt((3, 4), mx=0.3, mn=-0.3, mean=0.01, norm=1.1),
                                                          _pt((3,), mx=0.1, mn=-0.1, mean=0.0, norm=0.15)],
                                                         [_pt((3, 4), mx=0.005, mn=-0.005, mean=0.0, norm=0.01, rg=False),
                                                          _pt((3,), mx=0.01, mn=0.0, mean=0.004, norm=0.01, rg=False)]],
                                          'input_kwargs': {'alpha': _v('float', -0.001)},
                                          'output': [_pt((3, 4), mx=0.3, mn=-0.3, mean=0.01, norm=1.1),
                                                     _pt((3,), mx=0.1, mn=-0.1, mean=0.0, norm=0.15)]},
    }


def _two_micro_batches(data, construct, micro):
    """Repeat forward / backward records of a one-batch model as micro batch 1 (counters +1)."""
    import re as _re
    d2, c2 = {}, {}

    def bump(name):
        if name is None:
            return None
        if name.startswith('Module.'):
            return _re.sub(r'\.(\d+)$', lambda m: '.%d' % (int(m.group(1)) + 1), name)
        return _re.sub(r'\.(\d+)\.(forward|backward)$', lambda m: '.%d.%s' % (int(m.group(1)) + 1, m.group(2)), name)

    for k, v in data.items():
        if k.endswith('parameters_grad'):
            d2[k] = v
            continue
        d2[k] = v
        d2[bump(k)] = v
    for mb in (0, 1):
        for k, v in construct.items():
            key = k if mb == 0 else bump(k)
            par = v if mb == 0 else bump(v)
            c2[key] = micro(key, par, mb)
    return d2, c2


def _c_c_optimizer(side):
    """Two micro batches (non-Megatron paging), then clip_grad and optimizer phases (phase key, null parent).

    The golden run has no clip_grad phase and one more module after the optimizer (unmatched root children)."""
    d, c = _l0_mix_small()
    d, c = _two_micro_batches(d, c, lambda k, p, mb: p)
    d.update(_phase_records())
    if _CORPUS_SIDE['golden']:
        for k in ('Torch.norm.0.forward', 'Tensor.mul_.0.forward'):
            del d[k]
        c.update({'optimizer': None, 'Torch._foreach_add_.0.forward': 'optimizer'})
        d['Module.fc.Linear.forward.3'] = d['Module.fc.Linear.forward.0']
        c['Module.fc.Linear.forward.3'] = None
        return {'': _rank(_dump(d), c, _stack_for(['Functional.linear.0.forward']))}
    c.update({'clip_grad': None, 'Torch.norm.0.forward': 'clip_grad', 'Tensor.mul_.0.forward': 'clip_grad',
              'optimizer': None, 'Torch._foreach_add_.0.forward': 'optimizer'})
    return {'': _rank(_dump(d), c, _stack_for(['Functional.linear.0.forward', 'Torch.norm.0.forward']))}


def _l0_mix_small():
    """One linear module with its API, forward and backward (mix)."""
    data = {
        'Functional.linear.0.forward': {'input_args': [_pt((2, 4)), _pt((3, 4), mx=0.3, mn=-0.3, mean=0.01, norm=1.1)],
                                        'input_kwargs': {'bias': None},
                                        'output': [_pt((2, 3), mx=1.2, mn=-0.9, mean=0.1, norm=1.7)]},
        'Module.fc.Linear.forward.0': {'input_args': [_pt((2, 4))], 'input_kwargs': {},
                                       'output': [_pt((2, 3), mx=1.2, mn=-0.9, mean=0.1, norm=1.7)],
                                       'parameters': {'weight': _pt((3, 4), mx=0.3, mn=-0.3, mean=0.01, norm=1.1)}},
        'Functional.linear.0.backward': {'input': [_pt((2, 3), mx=0.02, mn=-0.02, mean=0.0, norm=0.03, rg=False)],
                                         'output': [_pt((2, 4), mx=0.01, mn=-0.01, mean=0.0, norm=0.02, rg=False),
                                                    _pt((3, 4), mx=0.01, mn=-0.01, mean=0.0, norm=0.02, rg=False)]},
        'Module.fc.Linear.backward.0': {'input': [_pt((2, 3), mx=0.02, mn=-0.02, mean=0.0, norm=0.03, rg=False)],
                                        'output': [_pt((2, 4), mx=0.01, mn=-0.01, mean=0.0, norm=0.02, rg=False)]},
        'Module.fc.Linear.parameters_grad': {'weight': [_pt((3, 4), mx=0.01, mn=-0.01, mean=0.0, norm=0.02, rg=False)]},
    }
    construct = {'Functional.linear.0.forward': 'Module.fc.Linear.forward.0', 'Module.fc.Linear.forward.0': None,
                 'Functional.linear.0.backward': 'Module.fc.Linear.backward.0', 'Module.fc.Linear.backward.0': None}
    return data, construct


def _megatron(construct, number, at=2):
    """Insert "megatron_micro_step_number" where the dumper first writes it (mid-file, at the first list)."""
    out = {}
    for i, (k, v) in enumerate(construct.items()):
        if i == at:
            out['megatron_micro_step_number'] = number
        out[k] = v
    return out


def _c_c_megatron_lists(side):
    d, c = _l0_mix_small()
    d, c = _two_micro_batches(d, c, lambda k, p, mb: [p, mb])
    c = _megatron(c, 1)
    return {'': _rank(_dump(d), c, _stack_for(['Functional.linear.0.forward', 'Module.fc.Linear.forward.0']))}


def _recv_records():
    """What a later pipeline stage records before its first forward_step: irecv and a buffer."""
    return {
        'Torch.empty.0.forward': {'input_args': [_v('int', 2), _v('int', 4)],
                                  'input_kwargs': {'dtype': _v('torch.dtype', 'torch.float32'),
                                                   'device': _v('torch.device', 'npu:0')},
                                  'output': [_pt((2, 4), mx=0.0, mn=0.0, mean=0.0, norm=0.0, rg=False)]},
        'Distributed.irecv.0.forward': {'input_args': [_pt((2, 4), mx=0.0, mn=0.0, mean=0.0, norm=0.0, rg=False)],
                                        'input_kwargs': {'src': _v('int', 0)},
                                        'output': [_pt((2, 4), mx=0.0, mn=0.0, mean=0.0, norm=0.0, rg=False),
                                                   _v('int', 0)]},
    }


def _c_c_megatron_bare(side):
    """Megatron lists plus bare values: APIs before the first forward_step (is_megatron reset by step())."""
    d, c = _l0_mix_small()
    d, c = _two_micro_batches(d, c, lambda k, p, mb: [p, mb])
    d = dict(_recv_records(), **d)
    d['Tensor.zero_.0.forward'] = {'input_args': [_pt((2, 4), rg=False)], 'input_kwargs': {},
                                   'output': [_pt((2, 4), mx=0.0, mn=0.0, mean=0.0, norm=0.0, rg=False)]}
    c = dict([('Torch.empty.0.forward', None), ('Distributed.irecv.0.forward', None),
              ('Tensor.zero_.0.forward', 'Module.fc.Linear.forward.0')], **c)   # a bare string parent
    c = _megatron(c, 1, at=3)
    return {'': _rank(_dump(d), c, _stack_for(['Distributed.irecv.0.forward', 'Functional.linear.0.forward']))}


def _c_c_megatron_minus_one(side):
    """The shape issue 18 reports for PP > 1 (not written by the current dumper source): [null, -1] lists."""
    d, c = _l0_mix_small()
    d, c = _two_micro_batches(d, c, lambda k, p, mb: [p, mb])
    d = dict(_recv_records(), **d)
    c = dict([('Torch.empty.0.forward', [None, -1]), ('Distributed.irecv.0.forward', [None, -1])], **c)
    c = _megatron(c, 1, at=0)
    return {'': _rank(_dump(d), c, _stack_for(['Distributed.irecv.0.forward', 'Functional.linear.0.forward']))}


def _c_c_megatron_vpp(side):
    """VPP 2 chunks x 2 micro batches: forward_step ran 4 times, number = N*V-1 = 3; optimizer as [null, 3]."""
    data, construct = {}, {}
    w = _pt((3, 3), mx=0.3, mn=-0.3, mean=0.01, norm=1.1)
    fwd_micro = 0
    for mb in (0, 1):
        for chunk in (0, 1):
            mod = 'Module.%d.module.layer.Linear.forward.%d' % (chunk, mb)
            api = 'Functional.linear.%d.forward' % (2 * mb + chunk)
            data[api] = {'input_args': [_pt((2, 3)), w], 'input_kwargs': {'bias': None}, 'output': [_pt((2, 3), mx=1.1)]}
            data[mod] = {'input_args': [_pt((2, 3))], 'input_kwargs': {}, 'output': [_pt((2, 3), mx=1.1)],
                         'parameters': {'weight': w}}
            construct[api] = [mod, fwd_micro]
            construct[mod] = [None, fwd_micro]
            fwd_micro += 1
    bwd_micro = 0
    for mb in (0, 1):
        for chunk in (1, 0):
            mod = 'Module.%d.module.layer.Linear.backward.%d' % (chunk, mb)
            data[mod] = {'input': [_pt((2, 3), mx=0.01, rg=False)], 'output': [_pt((2, 3), mx=0.02, rg=False)]}
            construct[mod] = [None, bwd_micro]
            bwd_micro += 1
    data.update(_phase_records())
    construct.update({'clip_grad': [None, 3], 'Torch.norm.0.forward': ['clip_grad', 3],
                      'Tensor.mul_.0.forward': ['clip_grad', 3], 'optimizer': [None, 3],
                      'Torch._foreach_add_.0.forward': ['optimizer', 3]})
    construct = _megatron(construct, 3, at=1)
    return {'': _rank(_dump(data), construct, _stack_for(['Functional.linear.0.forward', 'Torch.norm.0.forward']))}


def _c_s_fallback(side):
    """stack.json groups whose frames were all filtered ([]) or whose retrieval failed."""
    d, c = _l0_mix_small()
    stack = _stack_new([(['Functional.linear.0.forward'], []),
                        (['Module.fc.Linear.forward.0'], ['The call stack retrieval failed.'])])
    return {'': _rank(_dump(d), c, stack)}


def _c_s_old(side):
    """Old stack.json format (older msProbe): name -> frames."""
    d, c = _l0_mix_small()
    stack = {'Functional.linear.0.forward': [_frame('/workspace/model.py', 12, 'forward', 'y = F.linear(x, w)'),
                                             _frame('/workspace/train.py', 7, 'main', 'model(x)')],
             'Module.fc.Linear.forward.0': [_frame('/workspace/train.py', 7, 'main', 'model(x)')]}
    return {'': _rank(_dump(d), c, stack)}


def _c_s_empty(side):
    d, c = _l0_mix_small()
    return {'': _rank(_dump(d), c, {})}


def _leaf_records():
    """Every kind of value leaf the PyTorch dumper writes, as arguments of a few APIs."""
    class_types = {
        'torch.distributed.tensor.DTensor': {'device_mesh': [[0, 1]],
                                             'placements': [{'Shard': {'dim': 0}}, {'Replicate': {}}]},
        'torch._subclasses.fake_tensor.FakeTensor': {},
        'torch.nested._internal.nested_tensor.NestedTensor': {},
    }
    sub = []
    for typ, extra in class_types.items():
        t = _pt((4, 2))
        t['type'] = typ
        t.update(extra)
        sub.append(t)
    return {
        'Tensor.__getitem__.0.forward': {
            'input_args': [_pt((4, 8)), [_v('slice', [0, None, 2]), _v('ellipsis', '...'), _v('int', -1)]],
            'input_kwargs': {}, 'output': [_pt((2, 8))]},
        'Torch.stats.0.forward': {
            'input_args': [_pt((3,), dtype='torch.int64', mx=7, mn=0, mean=None, norm=None, rg=False),
                           _pt((3,), dtype='torch.bool', mx=True, mn=False, mean=None, norm=None, rg=False),
                           _pt((3,), dtype='torch.float64', mx=2.5, mn=-1.0, mean=None, norm=None),
                           _pt((), dtype='torch.int32', mx=5, mn=5, mean=5, norm=5, rg=False),
                           _pt((0,), dtype='torch.float8_e4m3fn', mx=None, mn=None, mean=None, norm=None, rg=False),
                           _pt((2,), dtype='torch.complex64', mx=1.5, mn=0.5, mean=1.0, norm=None, rg=False)],
            'input_kwargs': {'dim': _v('int', 0), 'keepdim': _v('bool', True), 'eps': _v('float', 1e-06),
                             'reduction': _v('str', 'mean'), 'generator': None},
            'output': [None, [], {}, _pt((3,))]},
        'Torch.special.0.forward': {
            'input_args': sub + [{}, _v('torch.Size', [2, 3]),
                                 {'type': 'torch.memory_format', 'format': 'contiguous_format'}],
            'input_kwargs': {'dtype': _v('torch.dtype', 'torch.float16'), 'device': _v('torch.device', 'cpu:None'),
                             'op': _v('torch.distributed.ReduceOp', 'RedOpType.SUM'),
                             'group': {'type': 'torch.ProcessGroup', 'group_ranks': [0, 1], 'group_id': '1b2c3d4e'}},
            'output': [{'logits': _pt((2, 5)), 'past': [[_pt((1, 2)), _pt((1, 2))]]}, _v('int', 3)]},
        'Torch.numpy_values.0.forward': {
            'input_args': [_v('float32', 0.5), _v('int64', 3), _v('bool_', True), _v('str_', 'ab'),
                           {'type': 'numpy.ndarray', 'dtype': 'float32', 'shape': [3],
                            'Max': _cf(3.0), 'Min': _cf(1.0), 'Mean': _cf(2.0), 'Norm': _cf(3.7416574)},
                           {'type': 'numpy.ndarray', 'dtype': '<U1', 'shape': [2],
                            'Max': None, 'Min': None, 'Mean': None, 'Norm': None}],
            'input_kwargs': {'flag': _v('MyBool', True)},
            'output': [_v('float', 0.25)]},
    }


def _c_v_leaves(side):
    data = _leaf_records()
    construct = {k: None for k in data}
    return {'': _rank(_dump(data), construct, _stack_for(list(data)))}


def _c_t_nonfinite_oc(side):
    """NaN / Infinity / -Infinity tokens in the target's statistics and a float argument (golden finite)."""
    d, c = _l0_mix_small()
    if not _CORPUS_SIDE['golden']:
        nan, inf = float('nan'), float('inf')
        d['Functional.linear.0.forward']['output'] = [_pt((2, 3), mx=inf, mn=-inf, mean=nan, norm=inf)]
        d['Module.fc.Linear.forward.0']['output'] = [_pt((2, 3), mx=nan, mn=nan, mean=nan, norm=nan)]
        d['Functional.linear.0.forward']['input_kwargs'] = {'bias': None, 'scale': _v('float', nan)}
        d['Module.fc.Linear.backward.0']['input'] = [_pt((2, 3), mx=inf, mn=0.0, mean=inf, norm=inf, rg=False)]
    else:
        d['Functional.linear.0.forward']['input_kwargs'] = {'bias': None, 'scale': _v('float', 1.0)}
    return {'': _rank(_dump(d), c, _stack_for(['Functional.linear.0.forward']))}


def _md5_of(text):
    return '%08x' % (zlib.crc32(text.encode()) & 0xffffffff)


def _c_t_md5(side):
    """summary_mode md5: "md5" appended last (after requires_grad); one output differs on the golden side."""
    def add(obj, path):
        if isinstance(obj, dict) and obj.get('type') == 'torch.Tensor':
            differs = _CORPUS_SIDE['golden'] and path == 'Functional.linear.0.forward/output/0'
            obj['md5'] = _md5_of(path + ('g' if differs else ''))
        elif isinstance(obj, dict):
            for k, v in obj.items():
                add(v, path + '/' + k)
        elif isinstance(obj, list):
            for i, v in enumerate(obj):
                add(v, path + '/' + str(i))

    saved = _CORPUS_SIDE['scale']
    _CORPUS_SIDE['scale'] = 1.0       # same statistics on both sides; only one checksum differs
    d, c = _l0_mix_small()
    _CORPUS_SIDE['scale'] = saved
    for name, rec in d.items():
        add(rec, name)
    return {'': _rank(_dump(d), c, _stack_for(['Functional.linear.0.forward']))}


def _c_t_xor(side):
    """summary_mode xor: no Max/Min/Mean/Norm, a 0x-prefixed 16-hex md5 between shape and requires_grad."""
    d, c = _l0_mix_small()

    def xor(obj, path):
        if isinstance(obj, dict) and obj.get('type') == 'torch.Tensor':
            differs = _CORPUS_SIDE['golden'] and 'backward' in path
            v = '0x%016x' % (zlib.crc32((path + ('g' if differs else '')).encode()) * 0x10001)
            return {'type': obj['type'], 'dtype': obj['dtype'], 'shape': obj['shape'], 'md5': v,
                    'requires_grad': obj['requires_grad']}
        if isinstance(obj, dict):
            return {k: xor(v, path + '/' + k) for k, v in obj.items()}
        if isinstance(obj, list):
            return [xor(v, path + '/' + str(i)) for i, v in enumerate(obj)]
        return obj

    d = {name: xor(rec, name) for name, rec in d.items()}
    return {'': _rank(_dump(d), c, _stack_for(['Functional.linear.0.forward']))}


def _c_t_async(side):
    """async_dump with summary_mode md5: no md5 is written (async skips it) and complex tensors get null stats."""
    d, c = _l0_mix_small()
    d['Functional.linear.0.forward']['input_kwargs'] = {
        'bias': _pt((3,), dtype='torch.complex64', mx=None, mn=None, mean=None, norm=None, rg=False)}
    return {'': _rank(_dump(d), c, _stack_for(['Functional.linear.0.forward']))}


def _c_rec_bwd_nulls(side):
    """Backward records with null gradients, an empty output list and a None forward output."""
    d, c = _l0_mix_small()
    d['Functional.linear.0.forward']['output'] = [_pt((2, 3), mx=1.2, mn=-0.9, mean=0.1, norm=1.7), None]
    d['Functional.linear.0.backward'] = {'input': [_pt((2, 3), mx=0.02, mn=-0.02, mean=0.0, norm=0.03, rg=False), None],
                                         'output': [None, None]}
    d['Module.fc.Linear.backward.0'] = {'input': [None], 'output': []}
    return {'': _rank(_dump(d), c, _stack_for(['Functional.linear.0.forward']))}


def _dist_rank(rank):
    """Two ranks: an all_reduce over a group (output = args + kwargs values), a broadcast from src 0, send/recv."""
    group = {'type': 'torch.ProcessGroup', 'group_ranks': [0, 1], 'group_id': '1b2c3d4e'}
    t = _pt((2, 2), mx=0.5 + rank, mn=0.1, mean=0.3, norm=0.8, rg=False)
    red = _pt((2, 2), mx=1.5, mn=0.2, mean=0.6, norm=1.6, rg=False)
    data = {
        'Distributed.all_reduce.0.forward': {
            'input_args': [t], 'input_kwargs': {'op': _v('torch.distributed.ReduceOp', 'RedOpType.SUM'),
                                                'group': group, 'async_op': _v('bool', False)},
            'output': [red, _v('torch.distributed.ReduceOp', 'RedOpType.SUM'), group, _v('bool', False)]},
        'Distributed.broadcast.0.forward': {
            'input_args': [red], 'input_kwargs': {'src': _v('int', 0), 'group': group},
            'output': [red, _v('int', 0), group]},
        ('Distributed.send.0.forward' if rank == 0 else 'Distributed.recv.0.forward'): {
            'input_args': [red], 'input_kwargs': {'dst' if rank == 0 else 'src': _v('int', 1 - rank)},
            'output': [red, _v('int', 1 - rank)]},
    }
    construct = {k: 'Module.dist.Sync.forward.0' for k in data}
    construct['Module.dist.Sync.forward.0'] = None
    data['Module.dist.Sync.forward.0'] = {'input_args': [t], 'input_kwargs': {}, 'output': [red], 'parameters': {}}
    return data, construct


def _c_rec_distributed(side):
    out = {}
    for r in (0, 1):
        d, c = _dist_rank(r)
        out['rank%d' % r] = _rank(_dump(d), c, _stack_for([k for k in d if k.startswith('Distributed')]))
    return out


def _p2p_rank(rank, ms):
    cls = 'mindspore.mint.distributed.P2POp' if ms else 'torch.distributed.P2POp'
    leaf = _ms if ms else (lambda *a, **k: _pt(*a, rg=False, **k))
    peer = 1 - rank
    gid = None if ms else '9a0b1c2d'

    def op(kind, mx):
        return {'class_type': cls, 'tensor': leaf((2, 2), mx=mx, mn=0.0, mean=0.25, norm=0.5),
                'op': kind, 'peer': peer, 'tag': 0, 'group_id': gid}

    ops = [op('isend', 1.0), op('irecv', 0.0)] if rank == 0 else [op('irecv', 0.0), op('isend', 1.0)]
    name = 'Distributed.batch_isend_irecv.0.forward'
    data = {name: {'input_args': [ops], 'input_kwargs': {}, 'output': [ops]},
            'Module.stage.Stage.forward.0': {'input_args': [leaf((2, 2))], 'input_kwargs': {},
                                             'output': [leaf((2, 2))]}}
    if not ms:
        data['Module.stage.Stage.forward.0']['parameters'] = {}
    else:
        data['Module.stage.Stage.forward.0'] = {'output': [leaf((2, 2))], 'parameters': {}}
        data = {k.replace('Module.', 'Cell.'): v for k, v in data.items()}
    mod = ('Cell' if ms else 'Module') + '.stage.Stage.forward.0'
    construct = {name: mod, mod: None}
    return data, construct


def _c_rec_batch_p2p(side):
    out = {}
    for r in (0, 1):
        d, c = _p2p_rank(r, ms=False)
        out['rank%d' % r] = _rank(_dump(d), c, _stack_for(['Distributed.batch_isend_irecv.0.forward']))
    return out


def _c_rec_batch_p2p_ms(side):
    out = {}
    for r in (0, 1):
        d, c = _p2p_rank(r, ms=True)
        out['rank%d' % r] = _rank(_dump(d, framework='mindspore'), c,
                                  _stack_for(['Distributed.batch_isend_irecv.0.forward']))
    return out


def _c_c_empty_l1(side):
    d, _ = _l0_mix_small()
    d = {k: v for k, v in d.items() if not k.startswith('Module.')}
    return {'': _rank(_dump(d, level='L1'), {}, _stack_for(['Functional.linear.0.forward']))}


def _c_rec_nan_check(side):
    """task nan_check (L1): tensors without statistics, an int is_nan per record, construct {}."""
    t = {'type': 'torch.Tensor', 'dtype': 'torch.float16', 'shape': [2, 2], 'requires_grad': False}
    data = {'Functional.gelu.0.forward': {'input_args': [t], 'input_kwargs': {}, 'output': [t], 'is_nan': 1}}
    return {'': _rank(_dump(data, task='nan_check', level='L1'), {}, _stack_for(list(data)))}


def _c_layout_no_extra_info(side):
    d, _ = _l0_mix_small()
    return {'': _rank(_dump(d), None, None)}


def _c_layout_debug_level(side):
    debug = {'task': 'statistics', 'level': 'debug', 'framework': 'pytorch', 'dump_data_dir': None,
             'data': {'loss.0.debug': _pt((), mx=0.9, mn=0.9, mean=0.9, norm=0.9)}}
    return {'': {'debug.json': debug}}


# id -> (builder, mode, extra flags, expected error substring or None)
CORPUS = {
    'layout_files': (_c_layout_files, 'build', [], None),
    'layout_rank': (_c_layout_rank, 'build', [], None),
    'layout_step_rank': (_c_layout_step_rank, 'build', [], None),
    'layout_step_proc': (_c_layout_step_proc, 'build', [], None),
    'dj_level_l0': (_c_dj_level_l0, 'build', [], None),
    'layout_proc': (_c_layout_proc, 'build', [], None),
    'dj_structure': (_c_dj_structure, 'build', [], None),
    'dj_structure_compare': (_c_dj_structure, 'compare', [], None),
    'ms_cells': (_c_ms_cells, 'build', [], None),
    'rec_data_mode': (_c_rec_data_mode, 'build', [], None),
    'rec_data_mode_input': (_c_rec_data_mode_input, 'build', [], None),
    'c_optimizer': (_c_c_optimizer, 'compare', [], None),
    'c_megatron_lists': (_c_c_megatron_lists, 'compare', [], None),
    'c_megatron_bare': (_c_c_megatron_bare, 'build', [], None),
    'c_megatron_minus_one': (_c_c_megatron_minus_one, 'build', [], None),
    'c_megatron_vpp': (_c_c_megatron_vpp, 'build', [], None),
    's_fallback': (_c_s_fallback, 'build', [], None),
    's_old': (_c_s_old, 'build', [], None),
    's_empty': (_c_s_empty, 'build', [], None),
    'v_leaves': (_c_v_leaves, 'compare', [], None),
    't_nonfinite_oc': (_c_t_nonfinite_oc, 'compare', ['-oc'], None),
    't_nonfinite_build_oc': (_c_t_nonfinite_oc, 'build', ['-oc'], None),
    't_md5': (_c_t_md5, 'compare', [], None),
    't_xor': (_c_t_xor, 'compare', [], None),
    't_async': (_c_t_async, 'compare', [], None),
    't_tensor_npy': (_c_t_tensor_npy, 'compare', [], None),
    't_tensor_pt': (_c_t_tensor_pt, 'compare', [], None),
    's_module_preorder': (_c_s_module_preorder, 'compare', [], None),
    'api_npu_atb': (_c_api_npu_atb, 'compare', [], None),
    'rec_bwd_nulls': (_c_rec_bwd_nulls, 'compare', [], None),
    'rec_distributed': (_c_rec_distributed, 'compare', [], None),
    'rec_distributed_fm': (_c_rec_distributed, 'compare', ['-fm'], None),
    'rec_batch_p2p': (_c_rec_batch_p2p, 'compare', [], None),
    'rec_batch_p2p_ms': (_c_rec_batch_p2p_ms, 'compare', [], None),
    'c_empty_l1': (_c_c_empty_l1, 'build', [], "The content of 'construct.json' is empty"),
    'rec_nan_check': (_c_rec_nan_check, 'build', [], "The content of 'construct.json' is empty"),
    'layout_no_extra_info': (_c_layout_no_extra_info, 'build', [], 'construct.json does not exist'),
    'layout_debug_level': (_c_layout_debug_level, 'build', [], 'construct.json does not exist'),
    'layout_aclgraph_stats': (_c_layout_aclgraph_stats, 'build', [], 'No or multiple proc directories'),
}


def _corpus_write(folder, files):
    for name, content in files.items():
        path = os.path.join(folder, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        if isinstance(content, bytes):
            with open(path, 'wb') as fh:
                fh.write(content)
        else:
            with open(path, 'w') as fh:
                json.dump(content, fh, indent=1)


def corpus_main(argv):
    """``--corpus list`` or ``--corpus CASE OUT_DIR``: write one corpus case (target, golden, case.json)."""
    if argv == ['list']:
        print('\n'.join(CORPUS))
        return 0
    if len(argv) != 2 or argv[0] not in CORPUS:
        sys.exit('usage: gen_dump.py --corpus list | --corpus CASE OUT_DIR (CASE one of: %s)' % ', '.join(CORPUS))
    case, out = argv
    builder, mode, flags, error = CORPUS[case]
    if os.path.isdir(out) and os.listdir(out):
        sys.exit('gen_dump: %s is not empty' % out)
    sides = [('target', 1.0)] + ([('golden', CORPUS_GOLDEN_SCALE)] if mode == 'compare' else [])
    for side, scale in sides:
        _CORPUS_SIDE.update(scale=scale, golden=side == 'golden')
        for folder, files in builder(side).items():
            _corpus_write(os.path.join(out, side, folder), files)
    _CORPUS_SIDE.update(scale=1.0, golden=False)
    meta = {'id': case, 'mode': mode, 'flags': flags, 'expect': 'error' if error else 'rows'}
    if error:
        meta['error'] = error
    with open(os.path.join(out, 'case.json'), 'w') as fh:
        json.dump(meta, fh, indent=1)
    return 0



if __name__ == '__main__':
    main()
