#!/usr/bin/env python3
"""`visprobe serve LOGDIR` (issue 48) with a real HTTP client on a loopback port: the run listing (nested
folders, shard parts, dump and monitor folders, a file appearing later), databases over HTTP Range (RFC 9110:
suffix ranges, unsatisfiable ranges answer 416, several ranges answered whole), builds and data2db started over
the API with their progress events, results listed and equal row for row to the CLI's, cancel (nothing left
behind), and every refusal: no or wrong token, traversal, absolute paths, encoded separators, NUL bytes,
symlinks that lead out, read-only, oversized requests; a client that leaves mid-read costs nothing.

  python3 tests/cli/test_serve.py --visprobe build/native/visprobe --shared ../shared --source .
"""
import argparse
import glob
import http.client
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import urllib.parse

import vp_test
from test_corpus import read_rows
from test_real_dumper import read_trend_rows

ARGS = None


def fixture(side):
    return os.path.join(ARGS.shared, 'fixtures', 'msprobe-real-dumper', side)


class Server:
    """A `visprobe serve` process on a free loopback port."""

    def __init__(self, logdir, *flags):
        self.proc = subprocess.Popen([ARGS.visprobe, 'serve', logdir, '--port', '0'] + list(flags),
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        line = self.proc.stdout.readline()
        m = re.search(r'http://127\.0\.0\.1:(\d+)/(?:\?token=([0-9a-f]+))?', line)
        if not m:
            self.proc.kill()
            raise AssertionError('no URL in: %r %r' % (line, self.proc.stdout.read()))
        self.port, self.token = int(m.group(1)), m.group(2) or ''
        threading.Thread(target=self.proc.stdout.read, daemon=True).start()   # drain

    def request(self, method, path, body=None, headers=None, token=True):
        c = http.client.HTTPConnection('127.0.0.1', self.port, timeout=60)
        h = dict(headers or {})
        if token and self.token:
            h['Authorization'] = 'token ' + self.token
        if body is not None and not isinstance(body, (bytes, str)):
            body = json.dumps(body)
            h['Content-Type'] = 'application/json'
        c.request(method, path, body=body, headers=h)
        r = c.getresponse()
        data = r.read()
        c.close()
        headers = {}
        for k, v in r.getheaders():   # repeated headers (Set-Cookie) joined as HTTP folds them
            headers[k.lower()] = headers[k.lower()] + ', ' + v if k.lower() in headers else v
        return r.status, headers, data

    def json(self, method, path, body=None):
        status, _, data = self.request(method, path, body)
        return status, json.loads(data or b'{}')

    def runs(self):
        status, d = self.json('GET', '/api/runs')
        assert status == 200, d
        return {r['path']: r for r in d['runs']}

    def file(self, rel, rng=None, method='GET'):
        h = {'Range': rng} if rng else {}
        return self.request(method, '/api/file?path=' + urllib.parse.quote(rel, safe=''), headers=h)

    def wait_job(self, job_id, timeout=300):
        """Follows the job's event stream to its end; returns the last event and how many came."""
        c = http.client.HTTPConnection('127.0.0.1', self.port, timeout=timeout)
        c.request('GET', '/api/jobs/%d/events' % job_id, headers={'Authorization': 'token ' + self.token})
        r = c.getresponse()
        assert r.status == 200 and r.getheader('Content-Type').startswith('text/event-stream')
        events = []
        while True:
            line = r.readline()
            if not line:
                break
            if line.startswith(b'data: '):
                events.append(json.loads(line[6:]))
                if events[-1]['state'] in ('done', 'failed', 'cancelled'):
                    break
        c.close()
        return events

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


class Serve(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix='visprobe_serve_')
        cls.logdir = os.path.join(cls.tmp, 'logs')
        d = cls.logdir
        os.makedirs(os.path.join(d, 'exp', 'nested', 'deeper'))
        shutil.copytree(fixture('pt_tensor_target'), os.path.join(d, 'dumps', 'pt_target'))
        shutil.copytree(fixture('pt_tensor_golden'), os.path.join(d, 'dumps', 'pt_golden'))
        shutil.copytree(fixture('dist_tp2pp2_target'), os.path.join(d, 'dumps', 'dist'))
        out = os.path.join(cls.tmp, 'cli')
        vp_test.run(ARGS.visprobe, ['graph_visualize', '-tp', os.path.join(d, 'dumps', 'pt_target', 'step0', 'rank0'), '-o', out],
                    check=True)
        cls.db = glob.glob(os.path.join(out, '*.vis.db'))[0]
        shutil.copy(cls.db, os.path.join(d, 'exp', 'nested', 'deeper', 'a.vis.db'))
        shutil.copy(cls.db, os.path.join(d, 'exp', 'run.part-1-of-2.vis.db'))
        os.makedirs(os.path.join(d, '.hidden'))
        shutil.copy(cls.db, os.path.join(d, '.hidden', 'secret.vis.db'))
        vp_test.run([sys.executable, os.path.join(ARGS.source, 'scripts', 'gen_trend_data.py'), 'monitor',
                     os.path.join(d, 'monitor_run'), '--ranks', '2', '--steps', '3', '--layers', '2', '--seed', '1'],
                    check=True)
        # A symlink that leads out of LOGDIR, and a secret outside it.
        with open(os.path.join(cls.tmp, 'outside.txt'), 'w') as f:
            f.write('secret')
        os.symlink(os.path.join(cls.tmp, 'outside.txt'), os.path.join(d, 'link_out.vis.db'))
        os.symlink(cls.tmp, os.path.join(d, 'dir_out'))
        cls.s = Server(d)

    @classmethod
    def tearDownClass(cls):
        cls.s.stop()
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_listing(self):
        runs = self.s.runs()
        self.assertEqual(runs['exp/nested/deeper/a.vis.db']['kind'], 'graph')
        self.assertEqual(runs['exp/nested/deeper/a.vis.db']['summary']['graph_type'], 'build')
        self.assertEqual(runs['exp/nested/deeper/a.vis.db']['size'], os.path.getsize(self.db))
        self.assertEqual(runs['exp/run.part-1-of-2.vis.db']['kind'], 'part')
        self.assertEqual(runs['dumps/pt_target']['kind'], 'dump')
        self.assertEqual(runs['dumps/pt_target']['summary']['layout'], 'steps')
        self.assertEqual(runs['dumps/dist']['summary'], {'layout': 'steps', 'ranks': 0, 'steps': 2})
        self.assertEqual(runs['monitor_run']['kind'], 'monitor')
        self.assertNotIn('.hidden/secret.vis.db', runs)
        self.assertNotIn('link_out.vis.db', runs, 'symlinks are not followed')
        self.assertFalse(any(p.startswith('dir_out') for p in runs))
        self.assertFalse(any('dump_tensor_data' in p or p.startswith('dumps/pt_target/') for p in runs))
        # A file that appears later is listed without a restart.
        later = os.path.join(self.logdir, 'exp', 'later.vis.db')
        shutil.copy(self.db, later)
        try:
            self.assertIn('exp/later.vis.db', self.s.runs())
        finally:
            os.remove(later)
        self.assertNotIn('exp/later.vis.db', self.s.runs())

    def test_ranges(self):
        rel, size = 'exp/nested/deeper/a.vis.db', os.path.getsize(self.db)
        with open(self.db, 'rb') as f:
            whole = f.read()
        status, h, body = self.s.file(rel, method='HEAD')
        self.assertEqual((status, int(h['content-length']), h['accept-ranges']), (200, size, 'bytes'))
        status, h, body = self.s.file(rel)
        self.assertEqual((status, body), (200, whole))
        status, h, body = self.s.file(rel, 'bytes=0-99')
        self.assertEqual((status, h['content-range'], body), (206, 'bytes 0-99/%d' % size, whole[:100]))
        status, h, body = self.s.file(rel, 'bytes=-10')
        self.assertEqual((status, h['content-range'], body), (206, 'bytes %d-%d/%d' % (size - 10, size - 1, size), whole[-10:]))
        status, h, body = self.s.file(rel, 'bytes=%d-' % (size - 5))
        self.assertEqual((status, body), (206, whole[-5:]))
        status, h, body = self.s.file(rel, 'bytes=%d-%d' % (size - 3, size + 1000))   # last-pos beyond: clamped
        self.assertEqual((status, h['content-range'], body), (206, 'bytes %d-%d/%d' % (size - 3, size - 1, size), whole[-3:]))
        status, h, body = self.s.file(rel, 'bytes=%d-' % size)
        self.assertEqual((status, h['content-range'], body), (416, 'bytes */%d' % size, b''))
        status, h, body = self.s.file(rel, 'bytes=0-9,20-29')   # several ranges: the whole file
        self.assertEqual((status, body), (200, whole))
        status, h, body = self.s.file(rel, 'bytes=abc')           # not a valid byte range: ignored
        self.assertEqual((status, body), (200, whole))
        status, h, body = self.s.file(rel, 'items=0-9')           # a unit the server does not know: ignored
        self.assertEqual((status, body), (200, whole))

    def test_refusals(self):
        s = self.s
        status, _, _ = s.request('GET', '/api/runs', token=False)
        self.assertEqual(status, 401)
        status, _, _ = s.request('GET', '/api/runs', headers={'Authorization': 'token ' + 'f' * len(s.token)}, token=False)
        self.assertEqual(status, 401)
        status, _, _ = s.request('GET', '/index.html', token=False)
        self.assertEqual(status, 401)
        status, h, _ = s.request('GET', '/?token=' + s.token, token=False)
        self.assertEqual(status, 200)
        self.assertIn('visprobe_token=' + s.token, h['set-cookie'])
        status, _, _ = s.request('GET', '/api/runs', headers={'Cookie': 'visprobe_token=' + s.token}, token=False)
        self.assertEqual(status, 200)
        for bad in ['../outside.txt', '/etc/passwd', 'exp/../../outside.txt', 'exp/./nested', 'exp//x', 'a\\..\\b',
                    'exp/nested/deeper/a.vis.db\x00.txt', 'link_out.vis.db', 'dir_out/outside.txt']:
            status, _, body = s.file(bad)
            self.assertIn(status, (403, 404), bad)
            self.assertNotIn(b'secret', body)
        # Encoded separators and dots in the URL itself: decoded to the same refused paths.
        for raw in ['/api/file?path=..%2Foutside.txt', '/api/file?path=%2e%2e/outside.txt', '/api/file?path=%2Fetc%2Fpasswd',
                    '/api/file?path=exp%2Fnested%2Fdeeper%2Fa.vis.db%00', '/api/..%2F..%2Fetc%2Fpasswd', '/../../etc/passwd']:
            status, _, body = s.request('GET', raw)
            self.assertIn(status, (400, 403, 404), raw)
            self.assertNotIn(b'root:', body)
        status, d = s.json('POST', '/api/build', {'target': '../cli'})
        self.assertEqual(status, 400)
        self.assertRegex(d['error'], r'outside|\.\.')
        status, d = s.json('POST', '/api/build', {'target': 'dumps/pt_target', 'output': '/tmp'})
        self.assertEqual(status, 400)
        status, _, _ = s.request('POST', '/api/build', body=b'{"target": "' + b'x' * 100000 + b'"}',
                                 headers={'Content-Type': 'application/json'})
        self.assertEqual(status, 413)
        status, d = s.json('POST', '/api/build', {'nonsense': 1})
        self.assertEqual(status, 400)

    def test_client_leaving_mid_read_costs_nothing(self):
        big = os.path.join(self.logdir, 'exp', 'big.vis.db')
        with open(big, 'wb') as f:
            f.truncate(512 << 20)
        try:
            for _ in range(20):
                sock = socket.create_connection(('127.0.0.1', self.s.port))
                sock.sendall(('GET /api/file?path=exp/big.vis.db HTTP/1.1\r\nHost: x\r\nAuthorization: token %s\r\n\r\n'
                              % self.s.token).encode())
                sock.recv(1000)
                sock.close()
            status, _ = self.s.json('GET', '/api/info')
            self.assertEqual(status, 200)
        finally:
            os.remove(big)

    def test_build_and_data2db_from_the_api_equal_the_cli(self):
        s = self.s
        status, d = s.json('POST', '/api/build', {'target': 'dumps/pt_target/step0/rank0', 'golden': 'dumps/pt_golden/step0/rank0',
                                                  'output': 'exp', 'options': {'fuzzyMatch': True}})
        self.assertEqual(status, 202, d)
        events = s.wait_job(d['id'])
        last = events[-1]
        self.assertEqual(last['state'], 'done', last)
        self.assertEqual(last['percent'], 100.0)
        self.assertTrue(any(0 <= e['percent'] < 100 for e in events) or len(events) >= 2, events)
        [result] = last['results']
        self.assertTrue(result.startswith('exp/compare_') and result.endswith('.vis.db'), result)
        self.assertIn(result, s.runs())
        out = os.path.join(self.tmp, 'cli_compare')
        vp_test.run(ARGS.visprobe, ['graph_visualize', '-tp', os.path.join(self.logdir, 'dumps', 'pt_target', 'step0', 'rank0'),
                                    '-gp', os.path.join(self.logdir, 'dumps', 'pt_golden', 'step0', 'rank0'), '-fm', '-o', out],
                    check=True)
        want = read_rows(glob.glob(os.path.join(out, '*.vis.db'))[0], self.logdir)
        self.assertEqual(read_rows(os.path.join(self.logdir, result), self.logdir), want)
        # data2db of the TP2 x PP2 run.
        status, d = s.json('POST', '/api/data2db', {'data': 'dumps/dist', 'output': ''})
        self.assertEqual(status, 202, d)
        last = s.wait_job(d['id'])[-1]
        self.assertEqual(last['state'], 'done', last)
        [trend] = last['results']
        out = os.path.join(self.tmp, 'cli_trend')
        vp_test.run(ARGS.visprobe, ['data2db', '--data', os.path.join(self.logdir, 'dumps', 'dist'), '--db', out], check=True)
        self.assertEqual(read_trend_rows(os.path.join(self.logdir, trend)),
                         read_trend_rows(glob.glob(os.path.join(out, '*.trend.db'))[0]))
        self.assertEqual(s.runs()[trend]['kind'], 'trend')
        self.assertEqual(os.listdir(os.path.join(self.logdir, '.visprobe-jobs')), [], 'staging folders removed')

    def test_cancel_leaves_nothing(self):
        gen = os.path.join(self.logdir, 'gen')
        vp_test.run([sys.executable, os.path.join(ARGS.source, 'scripts', 'gen_dump.py'), os.path.join(gen, 't'),
                     '--golden', os.path.join(gen, 'g'), '--target-mb', '60', '--seed', '5', '--layout', 'files'],
                    check=True)
        before = set(os.listdir(self.logdir))
        status, d = self.s.json('POST', '/api/build', {'target': 'gen/t', 'golden': 'gen/g'})
        self.assertEqual(status, 202)
        for _ in range(600):
            status, j = self.s.json('GET', '/api/jobs')
            job = [x for x in j['jobs'] if x['id'] == d['id']][0]
            if job['state'] == 'running' and job['log']:
                break
            time.sleep(0.02)
        self.assertEqual(job['state'], 'running', job)
        status, _ = self.s.json('POST', '/api/jobs/%d/cancel' % d['id'])
        self.assertEqual(status, 200)
        last = self.s.wait_job(d['id'])[-1]
        self.assertEqual(last['state'], 'cancelled')
        self.assertEqual(last['results'], [])
        self.assertEqual(set(os.listdir(self.logdir)), before, 'nothing written')
        self.assertEqual(os.listdir(os.path.join(self.logdir, '.visprobe-jobs')), [])
        shutil.rmtree(gen)


class ReadOnlyAndNoToken(unittest.TestCase):
    def test_read_only_refuses_builds_no_token_needs_none(self):
        tmp = tempfile.mkdtemp(prefix='visprobe_serve_ro_')
        try:
            shutil.copytree(fixture('pt_tensor_target'), os.path.join(tmp, 'd'))
            s = Server(tmp, '--read-only', '--no-token')
            try:
                self.assertEqual(s.token, '')
                status, info = s.json('GET', '/api/info')
                self.assertEqual((status, info['readOnly']), (200, True))
                status, d = s.json('POST', '/api/build', {'target': 'd'})
                self.assertEqual(status, 403)
                self.assertIn('read-only', d['error'])
                status, d = s.json('POST', '/api/data2db', {'data': 'd'})
                self.assertEqual(status, 403)
                self.assertEqual(os.listdir(tmp), ['d'])
            finally:
                s.stop()
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    def test_bad_arguments(self):
        r = vp_test.run(ARGS.visprobe, ['serve'])
        self.assertEqual(r.returncode, 2)
        self.assertIn('LOGDIR', r.stderr)
        r = vp_test.run(ARGS.visprobe, ['serve', '/nonexistent/logdir', '--port', '0'])
        self.assertEqual(r.returncode, 1)
        self.assertIn('/nonexistent/logdir is not a folder', r.stderr)
        r = vp_test.run(ARGS.visprobe, ['serve', '.', '--port', 'x'])
        self.assertEqual(r.returncode, 2)


def main():
    global ARGS
    p = argparse.ArgumentParser()
    p.add_argument('--visprobe', required=True)
    p.add_argument('--shared', required=True)
    p.add_argument('--source', required=True)
    ARGS, rest = p.parse_known_args()
    ARGS.visprobe = os.path.abspath(ARGS.visprobe)
    unittest.main(argv=[sys.argv[0]] + rest, verbosity=2)


if __name__ == '__main__':
    main()
