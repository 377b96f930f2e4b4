// The worker's report of a failed request (web/src/engine/worker_diag.js describeFailure): when the
// engine module aborts, the error carries the engine's last output lines (issue 47: they were
// thrown away); other failures come back as they were.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describeFailure, engineOutput } from '../../web/src/engine/worker_diag.js';

test('an abort carries the engine\'s last output lines, at most 20 of them', () => {
  for (let i = 0; i < 25; i++) engineOutput.print(`line ${i}`);
  engineOutput.printErr('Assertion failed: rows <= planned, at core/db/vis_db.cc:120');
  const got = describeFailure(new WebAssembly.RuntimeError('Aborted(Assertion failed)'));
  assert.equal(got.name, 'RuntimeError');
  const [head, title, ...tail] = got.message.split('\n');
  assert.equal(head, 'Aborted(Assertion failed)');
  assert.equal(title, 'The engine\'s last output:');
  assert.equal(tail.length, 20);
  assert.equal(tail[0], 'line 6');
  assert.equal(tail[19], 'Assertion failed: rows <= planned, at core/db/vis_db.cc:120');
});

test('an ordinary failure is reported as it was thrown, without the engine\'s output', () => {
  engineOutput.printErr('something the engine printed');
  const e = Object.assign(new Error('x.vis.db is not an SQLite database (file is not a database).'), { name: 'DbOpenError' });
  assert.deepEqual(describeFailure(e), { name: 'DbOpenError', message: e.message });
  assert.deepEqual(describeFailure('plain text'), { name: 'EngineError', message: 'plain text' });
});

test('a failure with a message keeps it (id and arguments) for the page; an abort is a message too', async () => {
  const { MessageError, pageMessage } = await import('../../web/src/engine_text.js');
  const m = pageMessage('NotOpen', { name: 'a.vis.db' });
  const got = describeFailure(new MessageError(m, 'DbNotOpen'));
  assert.deepEqual(got, { name: 'DbNotOpen', message: 'a.vis.db is not open.', engineMessage: m });
  engineOutput.printErr('last words');
  const aborted = describeFailure(new WebAssembly.RuntimeError('Aborted(x)'));
  assert.equal(aborted.engineMessage.id, 'EngineAborted');
  assert.equal(aborted.engineMessage.text, aborted.message);
});
