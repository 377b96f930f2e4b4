#!/usr/bin/env python3
"""The release artefacts of scripts/package.sh (issue 49), used as a user would, from a fresh directory with
nothing of the build present: the x86_64 tarball unpacks, its `visprobe --version` names the version,
`graph_visualize` writes the rows the build tree's CLI writes, `visprobe serve` serves the page bundled beside the
binary; the aarch64 tarball's CLI runs under qemu-user-static and writes the same rows as x86_64 on msProbe's
samples, the real dumper's dumps and the dumper corpus (label `aarch64`: `--arch aarch64`).

  python3 tests/cli/test_package.py --dist dist --visprobe build/native/visprobe --shared ../shared --source . [--arch x86_64|aarch64]
"""
import argparse
import glob
import http.client
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import threading
import unittest

import vp_test
from test_corpus import read_rows

ARGS = None
QEMU = ['qemu-aarch64-static', '-L', '/usr/aarch64-linux-gnu']


def tarball(arch):
    found = sorted(glob.glob(os.path.join(ARGS.dist, 'visprobe-*-linux-%s.tar.gz' % arch)), key=os.path.getmtime)
    if not found:
        raise AssertionError('no %s tarball in %s: run scripts/package.sh %s' % (arch, ARGS.dist, arch))
    return found[-1]


def unpack(path, where):
    with tarfile.open(path) as t:
        t.extractall(where, filter='data') if sys.version_info >= (3, 12) else t.extractall(where)   # noqa: S202 (our own file)
    [top] = os.listdir(where)
    return os.path.join(where, top)


def inputs():
    """(name, args) of graph_visualize runs on real inputs: msProbe's samples and the real dumper's dumps."""
    s = os.path.join(ARGS.shared, 'fixtures', 'msprobe-samples')
    r = os.path.join(ARGS.shared, 'fixtures', 'msprobe-real-dumper')
    return [
        ('builder', ['-tp', os.path.join(s, 'vis_builder')]),
        ('multi_step_rank', ['-tp', os.path.join(s, 'vis_multi_step_rank')]),
        ('pt_tensor_compare', ['-tp', os.path.join(r, 'pt_tensor_target', 'step0', 'rank0'),
                               '-gp', os.path.join(r, 'pt_tensor_golden', 'step0', 'rank0')]),
        ('dist_compare_oc', ['-tp', os.path.join(r, 'dist_tp2pp2_target'), '-gp', os.path.join(r, 'dist_tp2pp2_golden'), '-oc']),
        ('dist_merge', ['-tp', os.path.join(r, 'dist_tp2pp2_target', 'step0'), '-gp', os.path.join(r, 'dist_tp2pp2_golden', 'step0'),
                        '--rank_size', '4', '4', '--tp', '2', '2', '--pp', '2', '2']),
    ]


def run_rows(cmd, args, out, cwd):
    vp_test.run(cmd, ['graph_visualize'] + args + ['-o', out], cwd=cwd, check=True)
    [db] = glob.glob(os.path.join(out, '*.vis.db'))
    return read_rows(db, ARGS.shared)


class X86(unittest.TestCase):
    def test_tarball_from_a_fresh_directory(self):
        fresh = tempfile.mkdtemp(prefix='visprobe_release_')
        try:
            top = unpack(tarball('x86_64'), fresh)
            version = re.match(r'visprobe-(.+)-linux-x86_64$', os.path.basename(top)).group(1)
            for f in ('visprobe', 'README.md', 'LICENSE', 'THIRD_PARTY_NOTICES.md', 'web/index.html', 'web/visprobe.html',
                      'web/visprobe_web.wasm', 'web/sample/index.json', 'licenses/sqlite.txt'):
                self.assertTrue(os.path.exists(os.path.join(top, f)), f)
            exe = os.path.join(top, 'visprobe')
            r = vp_test.run(exe, ['--version'], cwd=fresh)
            self.assertEqual(r.stdout.strip(), 'visprobe ' + version)
            ldd = vp_test.run('ldd', [exe]).out
            self.assertNotIn('libstdc++', ldd)
            self.assertNotIn('libjemalloc', ldd)
            glibc = sorted(set(re.findall(r'GLIBC_(\d+\.\d+)', vp_test.run('objdump', ['-T', exe]).out)),
                           key=lambda v: tuple(map(int, v.split('.'))))
            self.assertLessEqual(tuple(map(int, glibc[-1].split('.'))), (2, 34), 'runs on glibc 2.34 and later')
            for name, args in inputs()[:3]:
                with self.subTest(input=name):
                    got = run_rows([exe], args, os.path.join(fresh, 'out_' + name), fresh)
                    want = run_rows([os.path.abspath(ARGS.visprobe)], args, os.path.join(fresh, 'tree_' + name), fresh)
                    self.assertEqual(got, want)
            # serve: the page bundled beside the binary, the runs under the folder.
            proc = subprocess.Popen([exe, 'serve', fresh, '--port', '0'], stdout=subprocess.PIPE, text=True, cwd=fresh)
            try:
                line = proc.stdout.readline()
                m = re.search(r'127\.0\.0\.1:(\d+)/\?token=([0-9a-f]+)', line)
                self.assertTrue(m, line)
                threading.Thread(target=proc.stdout.read, daemon=True).start()
                c = http.client.HTTPConnection('127.0.0.1', int(m.group(1)), timeout=30)
                c.request('GET', '/?token=' + m.group(2))
                page = c.getresponse()
                self.assertEqual(page.status, 200)
                self.assertIn(b'<title>visprobe', page.read())
                c.request('GET', '/api/runs', headers={'Authorization': 'token ' + m.group(2)})
                runs = c.getresponse().read().decode()
                self.assertIn('out_builder/build_', runs)
                c.close()
            finally:
                proc.terminate()
                proc.wait(10)
        finally:
            shutil.rmtree(fresh, ignore_errors=True)


class Aarch64(unittest.TestCase):
    def test_aarch64_under_qemu_writes_the_x86_64_rows(self):
        if not shutil.which(QEMU[0]):
            self.fail('qemu-user-static is not installed (apt-get install qemu-user-static)')
        fresh = tempfile.mkdtemp(prefix='visprobe_release_arm_')
        try:
            arm = os.path.join(unpack(tarball('aarch64'), os.path.join(fresh, 'arm')), 'visprobe')
            x86 = os.path.join(unpack(tarball('x86_64'), os.path.join(fresh, 'x86')), 'visprobe')
            self.assertIn('aarch64', vp_test.run('file', [arm]).out.lower().replace('-', ''))
            r = vp_test.run(QEMU + [arm], ['--version'])
            self.assertEqual(r.returncode, 0, r.stderr)
            for name, args in inputs():
                with self.subTest(input=name):
                    self.assertEqual(run_rows(QEMU + [arm], args, os.path.join(fresh, 'arm_' + name), fresh),
                                     run_rows([x86], args, os.path.join(fresh, 'x86_' + name), fresh))
            # The dumper corpus: every case that builds.
            cases = vp_test.run([sys.executable, os.path.join(ARGS.source, 'scripts', 'gen_dump.py')], ['--corpus', 'list'],
                                check=True).out.split()
            checked = 0
            for case in cases:
                d = os.path.join(fresh, 'corpus', case)
                vp_test.run([sys.executable, os.path.join(ARGS.source, 'scripts', 'gen_dump.py')], ['--corpus', case, d],
                            check=True)
                args = ['-tp', os.path.join(d, 'target')] + (['-gp', os.path.join(d, 'golden')] if os.path.isdir(os.path.join(d, 'golden')) else [])
                a = vp_test.run(QEMU + [arm], ['graph_visualize'] + args + ['-o', os.path.join(d, 'arm')])
                b = vp_test.run(x86, ['graph_visualize'] + args + ['-o', os.path.join(d, 'x86')])
                self.assertEqual(a.returncode, b.returncode, case)
                if b.returncode == 0:
                    self.assertEqual(read_rows(glob.glob(os.path.join(d, 'arm', '*.vis.db'))[0], d),
                                     read_rows(glob.glob(os.path.join(d, 'x86', '*.vis.db'))[0], d), case)
                    checked += 1
            self.assertGreater(checked, 30)
        finally:
            shutil.rmtree(fresh, ignore_errors=True)


def main():
    global ARGS
    p = argparse.ArgumentParser()
    p.add_argument('--dist', required=True)
    p.add_argument('--visprobe', required=True)
    p.add_argument('--shared', required=True)
    p.add_argument('--source', required=True)
    p.add_argument('--arch', default='x86_64', choices=['x86_64', 'aarch64'])
    ARGS, rest = p.parse_known_args()
    ARGS.dist = os.path.abspath(ARGS.dist)
    ARGS.shared = os.path.abspath(ARGS.shared)
    suite = unittest.TestLoader().loadTestsFromTestCase(X86 if ARGS.arch == 'x86_64' else Aarch64)
    r = unittest.TextTestRunner(verbosity=2).run(suite)
    sys.exit(0 if r.wasSuccessful() else 1)


if __name__ == '__main__':
    main()
