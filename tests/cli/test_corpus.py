#!/usr/bin/env python3
"""The dumper corpus (issue 18): every shape msProbe's dumper writes, run through `visprobe graph_visualize`.

tests/corpus/dumper_corpus.md lists, one row per case, what the dumper writes (from its source), what msProbe's
graph_visualize does with it and what visprobe does.  `scripts/gen_dump.py --corpus CASE DIR` writes each case
(DIR/target, DIR/golden for compare cases, DIR/case.json).  For every case this test generates the input, runs
visprobe (the native CLI, and the wasm CLI under Node when --wasm is given) and either compares all rows of
tb_nodes, tb_stack and tb_config with tests/corpus/expected/<case>.json, or checks the refusal (exit status 1,
exactly one ERROR line with the expected text and the input folder, no database left).

The expected rows are msProbe's own output on the same input (`--update` regenerates them by running msProbe,
which needs MSPROBE_MIRROR; see ../shared/reference/README.md).  Two normalisations, the same on both sides:
  * tb_config.tool_tip is dropped (visprobe's tool tips differ from msProbe's by design);
  * the generated case folder, an absolute temporary path that msProbe writes into tb_nodes.dump_data_dir
    (tensor dumps), is replaced by "$CASE" in every text column.  No column holds a timestamp.
Rows are keyed by the columns each database has (PRAGMA table_info), so a column visprobe names, adds or leaves
out differently from msProbe's database fails the comparison.
A case whose rows differ from msProbe's on purpose (a "Deviation" of ../shared/spec/graph-engine.md) is listed in
KNOWN_DIFFERENCES: its other cells are still compared, then the test reports itself skipped with the reason.

  python3 tests/cli/test_corpus.py --visprobe build/native/visprobe --source .
  (add --wasm build/wasm/visprobe.js to run the wasm CLI too; --update to rewrite the expected files from msProbe)
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
from vp_test import LOG_LINE, columns

ARGS = None

# Cases whose visprobe rows differ from msProbe's on purpose (../shared/spec/graph-engine.md, "Deviation").
# Every other cell of such a case is still checked; the listed cells are left out and the test is reported skipped.
KNOWN_DIFFERENCES = {
    'dj_structure_compare': (
        'graph-engine.md §9.8 / §19.3 item 1 (Deviation, structure mode): visprobe sets no precision index in '
        'structure mode, so Apis_Between_Modules.0 gets NULL where msProbe gives 0 (its api-collection '
        'max(0, ...) rule); every other cell is identical',
        [('NPU_0_0_Apis_Between_Modules.0', 'precision_index')]),
}


def source(*parts):
    return os.path.join(ARGS.source, *parts)


def gen(*args):
    return vp_test.run([sys.executable, source('scripts', 'gen_dump.py'), '--corpus'], args, check=True).out


def corpus_ids():
    return gen('list').split()


def table_ids():
    """Case ids of the table in tests/corpus/dumper_corpus.md (last column `test_<id>`, first column the id)."""
    ids = []
    with open(source('tests', 'corpus', 'dumper_corpus.md')) as f:
        for line in f:
            if not line.startswith('|') or line.startswith('|---') or line.startswith('| id '):
                continue
            cells = [c.strip() for c in line.strip().strip('|').split('|')]
            m = re.fullmatch(r'`test_([a-z0-9_]+)`', cells[-1])
            if m:
                if cells[0] != m.group(1):
                    raise AssertionError('table row %r names test %s' % (cells[0], cells[-1]))
                ids.append(m.group(1))
    return ids


def cli_args(case_dir, meta, out):
    args = ['graph_visualize', '-tp', os.path.join(case_dir, 'target')]
    if meta['mode'] == 'compare':
        args += ['-gp', os.path.join(case_dir, 'golden')]
    return args + list(meta['flags']) + ['-o', out]


def read_rows(db, case_dir):
    """All rows of the three tables, sorted, tool_tip dropped, the case folder replaced by $CASE."""
    roots = sorted({os.path.realpath(case_dir), os.path.abspath(case_dir)}, key=len, reverse=True)

    def norm(v):
        if isinstance(v, str):
            for r in roots:
                v = v.replace(r, '$CASE')
        return v

    node_cols = columns(db, 'tb_nodes')
    nodes = [dict(zip(node_cols, map(norm, row))) for row in
             vp_test.rows(db, 'SELECT %s FROM tb_nodes ORDER BY id' % ', '.join(node_cols))]
    stacks = [[norm(v) for v in row] for row in vp_test.rows(db, 'SELECT id, stack_info FROM tb_stack ORDER BY id')]
    config_cols = [c for c in columns(db, 'tb_config') if c != 'tool_tip']
    config = [dict(zip(config_cols, map(norm, row))) for row in
              vp_test.rows(db, 'SELECT %s FROM tb_config ORDER BY id' % ', '.join(config_cols))]
    return {'tb_nodes': nodes, 'tb_stack': stacks, 'tb_config': config}


def expected_path(case):
    return source('tests', 'corpus', 'expected', case + '.json')


def update_from_msprobe(case, case_dir, meta, tmp):
    """--update: run msProbe itself on the case and store its rows (rows cases) or check that it fails."""
    if not os.environ.get('MSPROBE_MIRROR'):
        raise unittest.SkipTest('--update needs MSPROBE_MIRROR (see ../shared/reference/README.md)')
    out = os.path.join(tmp, 'msprobe_out')
    r = vp_test.run(os.path.join(ARGS.shared, 'reference', 'msprobe.sh'), cli_args(case_dir, meta, out),
                    env={'MSPROBE_PEER_TIMESTAMP': '20260101000000', 'MSPROBE_PEER_TIMEOUT': '300'}, timeout=900)
    path = expected_path(case)
    if meta['expect'] == 'error':
        if r.returncode == 0:
            raise AssertionError('msProbe succeeded on %s, which case.json expects to fail' % case)
        if os.path.exists(path):
            os.remove(path)
        return
    if r.returncode != 0:
        raise AssertionError('msProbe failed on %s:\n%s' % (case, (r.stdout + r.stderr)[-3000:]))
    dbs = glob.glob(os.path.join(out, '*.vis.db'))
    if len(dbs) != 1:
        raise AssertionError('msProbe wrote %s' % os.listdir(out))
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'w') as f:
        json.dump(read_rows(dbs[0], case_dir), f, indent=1, ensure_ascii=False)
        f.write('\n')


class Corpus(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix='visprobe_corpus_')

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def check_case(self, case):
        case_dir = os.path.join(self.tmp, case)
        gen(case, case_dir)
        with open(os.path.join(case_dir, 'case.json')) as f:
            meta = json.load(f)
        self.assertEqual(meta['id'], case)
        if ARGS.update:
            update_from_msprobe(case, case_dir, meta, self.tmp)
        kinds = ['native'] + (['wasm'] if ARGS.wasm else [])
        for kind in kinds:
            with self.subTest(cli=kind):
                out = os.path.join(self.tmp, 'out_' + kind)
                r = vp_test.run(vp_test.cli_cmd(kind, ARGS.visprobe, ARGS.wasm), cli_args(case_dir, meta, out))
                if meta['expect'] == 'error':
                    self.check_refusal(r, case_dir, meta, out)
                else:
                    self.check_rows(r, case, case_dir, out)
        if case in KNOWN_DIFFERENCES:
            self.skipTest(KNOWN_DIFFERENCES[case][0])

    def check_rows(self, r, case, case_dir, out):
        self.assertEqual(r.returncode, 0, (r.stdout + r.stderr)[-3000:])
        dbs = glob.glob(os.path.join(out, '*.vis.db'))
        self.assertEqual(len(dbs), 1, os.listdir(out))
        got = read_rows(dbs[0], case_dir)
        with open(expected_path(case)) as f:
            want = json.load(f)
        for node_id, column in KNOWN_DIFFERENCES.get(case, ('', []))[1]:
            for rows in (got, want):
                for n in rows['tb_nodes']:
                    if n['id'] == node_id:
                        n[column] = '<known difference>'
        self.assertEqual(got['tb_config'], want['tb_config'])
        self.assertEqual(got['tb_stack'], want['tb_stack'])
        self.assertEqual([n['id'] for n in got['tb_nodes']], [n['id'] for n in want['tb_nodes']])
        for g, w in zip(got['tb_nodes'], want['tb_nodes']):
            self.assertEqual(g, w, 'node ' + w['id'])

    def check_refusal(self, r, case_dir, meta, out):
        self.assertEqual(r.returncode, 1, (r.stdout + r.stderr)[-3000:])
        self.assertNotIn('Traceback', r.stderr)
        errors = [m.group(2) for m in map(LOG_LINE.match, r.stdout.splitlines()) if m and m.group(1) == 'ERROR']
        self.assertEqual(len(errors), 1, r.stdout)
        self.assertIn(meta['error'], errors[0])
        self.assertIn(os.path.join(case_dir, 'target'), errors[0], 'the message names the input')
        if os.path.isdir(out):
            self.assertEqual(os.listdir(out), [], 'a failed run must leave no .vis.db or temporary file')


class CorpusTable(unittest.TestCase):
    def test_every_case_is_in_the_table_and_tested(self):
        cases, rows = corpus_ids(), table_ids()
        self.assertEqual(len(rows), len(set(rows)), 'a case id appears twice in the table')
        self.assertEqual(sorted(rows), sorted(cases), 'table rows vs gen_dump.py --corpus list')

    def test_expected_files_match_the_cases(self):
        want = set()
        for case in corpus_ids():
            d = os.path.join(tempfile.mkdtemp(prefix='visprobe_corpus_meta_'), case)
            try:
                gen(case, d)
                with open(os.path.join(d, 'case.json')) as f:
                    meta = json.load(f)
            finally:
                shutil.rmtree(os.path.dirname(d), ignore_errors=True)
            self.assertIn(meta['mode'], ('build', 'compare'))
            self.assertIn(meta['expect'], ('rows', 'error'))
            if meta['expect'] == 'rows':
                want.add(case + '.json')
            else:
                self.assertTrue(meta.get('error'), case)
        have = set(os.listdir(source('tests', 'corpus', 'expected')))
        self.assertEqual(sorted(have), sorted(want), 'expected files vs cases that build')


def add_case_tests():
    for case in corpus_ids():
        def test(self, case=case):
            self.check_case(case)
        setattr(Corpus, 'test_' + case, test)


def main():
    global ARGS
    p = argparse.ArgumentParser()
    p.add_argument('--visprobe', required=True)
    p.add_argument('--source', required=True)
    p.add_argument('--wasm', help='also run the wasm CLI (build/wasm/visprobe.js) under node')
    p.add_argument('--shared', help='the shared folder with reference/msprobe.sh (default SOURCE/../shared)')
    p.add_argument('--update', action='store_true', help='rewrite tests/corpus/expected from msProbe itself')
    ARGS, rest = p.parse_known_args()
    ARGS.visprobe = os.path.abspath(ARGS.visprobe)
    ARGS.source = os.path.abspath(ARGS.source)
    ARGS.shared = os.path.abspath(ARGS.shared or os.path.join(ARGS.source, '..', 'shared'))
    if ARGS.wasm:
        ARGS.wasm = os.path.abspath(ARGS.wasm)
    add_case_tests()
    unittest.main(argv=[sys.argv[0]] + rest, verbosity=1)


if __name__ == '__main__':
    main()
