#!/usr/bin/env python3
"""`visprobe serve` under load (issue 48), loopback only and bounded: 32 clients read random byte ranges of a
multi-GB database for 30 s while a build runs on the server. No request may fail, every range must hold the
file's bytes, the server's peak resident memory (VmHWM) is reported and bounded, and the build's rows equal the
CLI's. The 4 GB file is sparse (what the server reads does not depend on its content: it is never parsed), so
the test costs no disk; its bytes are checked against the file itself.

  python3 tests/cli/test_serve_load.py --visprobe build/native/visprobe --shared ../shared --source . [--seconds 30]
"""
import argparse
import glob
import os
import random
import shutil
import sys
import tempfile
import threading
import time
import unittest

import test_serve
import vp_test
from test_serve import Server, fixture
from test_corpus import read_rows

ARGS = None
SIZE = 4 << 30


def vm_hwm_mb(pid):
    with open('/proc/%d/status' % pid) as f:
        for line in f:
            if line.startswith('VmHWM:'):
                return int(line.split()[1]) / 1024
    return 0


class Load(unittest.TestCase):
    def test_32_clients_reading_ranges_while_a_build_runs(self):
        tmp = tempfile.mkdtemp(prefix='visprobe_load_')
        try:
            big = os.path.join(tmp, 'big.vis.db')
            with open(big, 'wb') as f:      # sparse, with known bytes at a few places
                f.write(b'SQLite format 3\x00')
                for k in range(1, 64):
                    f.seek(k * (SIZE // 64))
                    f.write(('block %d' % k).encode())
                f.truncate(SIZE)
            shutil.copytree(fixture('pt_tensor_target'), os.path.join(tmp, 't'))
            shutil.copytree(fixture('pt_tensor_golden'), os.path.join(tmp, 'g'))
            s = Server(tmp)
            try:
                status, d = s.json('POST', '/api/build', {'target': 't/step0/rank0', 'golden': 'g/step0/rank0'})
                self.assertEqual(status, 202)
                stop = time.time() + ARGS.seconds
                failures, counts, nbytes = [], [0] * 32, [0] * 32
                with open(big, 'rb') as f:
                    def client(i):
                        rnd = random.Random(i)
                        while time.time() < stop:
                            first = rnd.randrange(0, SIZE - 1)
                            n = rnd.choice([1, 4096, 65536, 1 << 20])
                            last = min(SIZE - 1, first + n - 1)
                            try:
                                st, h, body = s.file('big.vis.db', 'bytes=%d-%d' % (first, last))
                            except Exception as e:   # noqa: BLE001 (any failure counts)
                                failures.append(repr(e))
                                continue
                            if st != 206 or len(body) != last - first + 1:
                                failures.append('%d %d bytes for %d-%d' % (st, len(body), first, last))
                            counts[i] += 1
                            nbytes[i] += len(body)
                            if rnd.random() < 0.05:   # spot-check content against the file
                                with lock:
                                    f.seek(first)
                                    want = f.read(last - first + 1)
                                if body != want:
                                    failures.append('wrong bytes at %d' % first)
                    lock = threading.Lock()
                    threads = [threading.Thread(target=client, args=(i,)) for i in range(32)]
                    for t in threads:
                        t.start()
                    for t in threads:
                        t.join()
                last = s.wait_job(d['id'])[-1]
                hwm = vm_hwm_mb(s.proc.pid)
                total = sum(counts)
                print('# load: %d requests (%.0f MB) by 32 clients in %d s, %d failed; server VmHWM %.0f MB; build %s'
                      % (total, sum(nbytes) / 1e6, ARGS.seconds, len(failures), hwm, last['state']), file=sys.stderr)
                self.assertEqual(failures[:5], [])
                self.assertGreater(total, 32)
                self.assertLess(hwm, 300, 'the server stays small while it serves and builds')
                self.assertEqual(last['state'], 'done', last)
                out = os.path.join(tmp, 'cli')
                vp_test.run(ARGS.visprobe, ['graph_visualize', '-tp', os.path.join(tmp, 't', 'step0', 'rank0'),
                                            '-gp', os.path.join(tmp, 'g', 'step0', 'rank0'), '-o', out], check=True)
                self.assertEqual(read_rows(os.path.join(tmp, last['results'][0]), tmp),
                                 read_rows(glob.glob(os.path.join(out, '*.vis.db'))[0], tmp))
            finally:
                s.stop()
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


def main():
    global ARGS
    p = argparse.ArgumentParser()
    p.add_argument('--visprobe', required=True)
    p.add_argument('--shared', required=True)
    p.add_argument('--source', required=True)
    p.add_argument('--seconds', type=int, default=30)
    ARGS, rest = p.parse_known_args()
    ARGS.visprobe = os.path.abspath(ARGS.visprobe)
    test_serve.ARGS = ARGS
    unittest.main(argv=[sys.argv[0]] + rest, verbosity=2)


if __name__ == '__main__':
    main()
