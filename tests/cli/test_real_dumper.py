#!/usr/bin/env python3
"""Dumps written by msProbe's own PyTorch dumper (../shared/fixtures/msprobe-real-dumper), against msProbe's rows.

The fixture folder holds real dumps (a GPT-like model on CPU torch: `.pt` real-tensor files in float32 / bfloat16 /
int64 / bool, and a real 4-process TP2 x PP2 run with all_reduce, isend and irecv). For each case below this test
runs visprobe (native, and the wasm CLI under Node with --wasm) on the fixture in place and compares every row with
tests/expected/real_dumper/<case>.json: a SHA-256 of each row msProbe's own graph_visualize / data2db wrote for the
same command, by the row's key (the rows themselves are 10 MB; `--update` regenerates the digests by running msProbe
with torch installed, see ../shared/reference/README.md, and `--dump DIR` writes both sides' rows for a diff).
Normalisations, the same on both sides: tb_config.tool_tip is dropped, the fixture folder in text cells becomes
"$CASE", and .trend.db rows are read through names instead of autoincrement ids.

  python3 tests/cli/test_real_dumper.py --visprobe build/native/visprobe --shared ../shared [--wasm build/wasm/visprobe.js]
"""
import argparse
import glob
import hashlib
import json
import os
import shutil
import sys
import tempfile
import unittest

import vp_test
from test_corpus import read_rows  # (the same row reader as the dumper corpus)

ARGS = None
HERE = os.path.dirname(os.path.abspath(__file__))
EXPECTED = os.path.join(HERE, '..', 'expected', 'real_dumper')

# case -> (command, arguments with {F} for the fixture folder)
CASES = {
    'pt_tensor_compare': ('graph_visualize', ['-tp', '{F}/pt_tensor_target/step0/rank0',
                                              '-gp', '{F}/pt_tensor_golden/step0/rank0']),
    'pt_tensor_build': ('graph_visualize', ['-tp', '{F}/pt_tensor_golden/step0/rank0']),
    'pt_tensor_compare_fm': ('graph_visualize', ['-tp', '{F}/pt_tensor_target/step0/rank0',
                                                 '-gp', '{F}/pt_tensor_golden/step0/rank0', '-fm']),
    'dist_compare_oc': ('graph_visualize', ['-tp', '{F}/dist_tp2pp2_target', '-gp', '{F}/dist_tp2pp2_golden', '-oc']),
    'dist_merge_compare': ('graph_visualize', ['-tp', '{F}/dist_tp2pp2_target/step0', '-gp',
                                               '{F}/dist_tp2pp2_golden/step0', '--rank_size', '4', '4',
                                               '--tp', '2', '2', '--pp', '2', '2']),
    'dist_data2db': ('data2db', ['--data', '{F}/dist_tp2pp2_target']),
}

TREND_QUERIES = {
    'trend_data': """SELECT d.rank, d.step, t.target_name, t.vpp_stage, t.micro_step, m.metric_name,
                            d.norm, d.max, d.min, d.mean
                     FROM trend_data d JOIN monitoring_targets t ON t.target_id = d.target_id
                                       JOIN monitoring_metrics m ON m.metric_id = d.metric_id""",
    'tag_target_mapping': """SELECT g.tag_name, g.category, m.metric_name, t.target_name, t.vpp_stage, t.micro_step
                             FROM tag_target_mapping x JOIN monitoring_tags g ON g.tag_id = x.tag_id
                                  JOIN monitoring_metrics m ON m.metric_id = g.metric_id
                                  JOIN monitoring_targets t ON t.target_id = x.target_id""",
    'monitoring_tags': """SELECT g.tag_name, g.category, m.metric_name FROM monitoring_tags g
                          JOIN monitoring_metrics m ON m.metric_id = g.metric_id""",
    'monitoring_targets': 'SELECT target_name, vpp_stage, micro_step FROM monitoring_targets',
    'monitoring_metrics': 'SELECT metric_name FROM monitoring_metrics',
}


def fixture():
    return os.path.join(ARGS.shared, 'fixtures', 'msprobe-real-dumper')


def read_trend_rows(db):
    """The msProbe tables of a .trend.db through names, sorted; global_stats' lists as sorted sets (the
    reference's order there is Python set iteration)."""
    out = {t: sorted([list(r) for r in vp_test.rows(db, q)], key=repr) for t, q in TREND_QUERIES.items()}
    cols = vp_test.columns(db, 'global_stats')
    out['global_stats'] = [{c: (','.join(sorted(v.split(','))) if isinstance(v, str) else v)
                            for c, v in zip(cols, row)} for row in vp_test.rows(db, 'SELECT * FROM global_stats')]
    return out


def read_any(db):
    return read_trend_rows(db) if db.endswith('.trend.db') else read_rows(db, fixture())


def row_key(table, row):
    if isinstance(row, dict) and 'id' in row:
        return str(row['id'])
    if table in TREND_QUERIES:   # the natural key: the leading name columns
        return json.dumps(row[:{'trend_data': 6, 'tag_target_mapping': 6, 'monitoring_tags': 3,
                                'monitoring_targets': 3, 'monitoring_metrics': 1}[table]])
    return json.dumps(row, sort_keys=True)


def digests(rows):
    """{table: [[key, sha256 of the row's canonical JSON], ...]} in key order."""
    out = {}
    for table, items in rows.items():
        pairs = [[row_key(table, r), hashlib.sha256(json.dumps(r, sort_keys=True, ensure_ascii=False).encode()).hexdigest()]
                 for r in items]
        out[table] = sorted(pairs)
    return out


def run_case(kind, command, args, out):
    """visprobe (kind native or wasm, under Node) or msProbe's own CLI (kind msprobe) on the fixture."""
    args = [a.replace('{F}', fixture()) for a in args]
    args = [command] + args + (['--db', out] if command == 'data2db' else ['-o', out])
    if kind == 'msprobe':
        return vp_test.run(os.path.join(ARGS.shared, 'reference', 'msprobe.sh'), args,
                           env={'MSPROBE_PEER_TIMESTAMP': '20260101000000', 'MSPROBE_PEER_TIMEOUT': '900'})
    return vp_test.run(vp_test.cli_cmd(kind, ARGS.visprobe, ARGS.wasm, liftoff=False), args)


def only_db(out):
    dbs = glob.glob(os.path.join(out, '*.vis.db')) + glob.glob(os.path.join(out, '*.trend.db'))
    if len(dbs) != 1:
        raise AssertionError('expected one database in %s, found %s' % (out, os.listdir(out)))
    return dbs[0]


class RealDumper(unittest.TestCase):
    def setUp(self):
        if not os.path.isdir(fixture()):
            self.fail('the shared fixture folder is missing: %s' % fixture())
        self.tmp = tempfile.mkdtemp(prefix='visprobe_real_')

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def check(self, case):
        command, args = CASES[case]
        path = os.path.join(EXPECTED, case + '.json')
        if ARGS.update:
            out = os.path.join(self.tmp, 'msprobe')
            r = run_case('msprobe', command, args, out)
            self.assertEqual(r.returncode, 0, (r.stdout + r.stderr)[-3000:])
            os.makedirs(EXPECTED, exist_ok=True)
            with open(path, 'w') as f:
                json.dump(digests(read_any(only_db(out))), f, indent=0)
                f.write('\n')
            if ARGS.dump:
                with open(os.path.join(ARGS.dump, case + '.msprobe.json'), 'w') as f:
                    json.dump(read_any(only_db(out)), f, indent=1, ensure_ascii=False)
        with open(path) as f:
            want = json.load(f)
        for kind in ['native'] + (['wasm'] if ARGS.wasm else []):
            with self.subTest(cli=kind):
                out = os.path.join(self.tmp, kind)
                r = run_case(kind, command, args, out)
                self.assertEqual(r.returncode, 0, (r.stdout + r.stderr)[-3000:])
                rows = read_any(only_db(out))
                if ARGS.dump:
                    with open(os.path.join(ARGS.dump, '%s.%s.json' % (case, kind)), 'w') as f:
                        json.dump(rows, f, indent=1, ensure_ascii=False)
                got = digests(rows)
                self.assertEqual(sorted(got), sorted(want))
                for table in want:
                    self.assertEqual([k for k, _ in got[table]], [k for k, _ in want[table]], table + ' keys')
                    differ = [k for (k, a), (_, b) in zip(got[table], want[table]) if a != b]
                    self.assertEqual(differ, [], '%s: rows that differ from msProbe\'s (run with --dump DIR)' % table)
                if case == 'pt_tensor_compare':
                    self.check_tensor_cells(rows['tb_nodes'])

    def check_tensor_cells(self, nodes):
        """Real-tensor cells carry metrics read from the .pt files, not `unsupported`."""
        cosines = [v.get('Cosine') for n in nodes for col in ('input_data', 'output_data')
                   for v in json.loads(n[col] or '{}').values() if isinstance(v, dict)]
        numeric = [c for c in cosines if c not in (None, 'unsupported', 'N/A', 'Nan', 'shape unmatched')]
        self.assertGreater(len(numeric), 300, 'real-tensor metrics for most items')
        item = json.loads(next(n for n in nodes if n['id'] == 'NPU_0_0_Module.encoder.layers.0.mlp.dense_h_to_4h.'
                                                                 'Linear.forward.0')['input_data'])
        cell = item['Module.encoder.layers.0.mlp.dense_h_to_4h.Linear.forward.0.input.0']
        self.assertEqual((cell['Cosine'], cell['EucDist'], cell['MaxAbsErr']),
                         ('1.0', '0.023799335063320236', '0.003323674202'))   # torch.load + numpy, by hand


def add_tests():
    for case in CASES:
        setattr(RealDumper, 'test_' + case, lambda self, case=case: self.check(case))


def main():
    global ARGS
    p = argparse.ArgumentParser()
    p.add_argument('--visprobe', required=True)
    p.add_argument('--shared', required=True)
    p.add_argument('--wasm')
    p.add_argument('--update', action='store_true', help='rewrite the expected digests by running msProbe')
    p.add_argument('--dump', help='write the rows of both sides as JSON into this folder')
    ARGS, rest = p.parse_known_args()
    add_tests()
    unittest.main(argv=[sys.argv[0]] + rest, verbosity=2)


if __name__ == '__main__':
    main()
