// Issue 19 point 4: in Chinese the page shows the engine's messages in Chinese (web/src/engine_text.js).
// A rank folder whose dump.json is cut short (the malformed corpus's dump_truncated_record) is
// dropped on a page in Chinese: the error box, the status line and the log say it in Chinese with
// the file name and byte offset the engine gave, the log line keeps msProbe's prefix and holds the
// English line in its title, and the language toggle turns the error back into the engine's English.
//   node --test tests/browser/test_engine_text_page.mjs   (after node web/build.mjs build/web)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { root, browserSuite, assertNoErrors } from './harness.mjs';

const suite = browserSuite({ prefix: 'visprobe_engine_text_page_' });

test('Chinese page: a truncated dump.json is reported in Chinese with its file and offset; the toggle re-translates', async () => {
  const bad = join(suite.tmp, 'truncated_rank');
  cpSync(join(root, 'tests', 'malformed', 'cases', 'dump_truncated_record'), bad, { recursive: true });
  const { page, errors, close } = await suite.open({ viewport: { width: 1400, height: 1000 }, contextOptions: { locale: 'zh-CN' } });
  await page.evaluate(() => localStorage.clear());
  await page.reload();
  assert.equal(await page.getAttribute('html', 'lang'), 'zh-CN');

  await page.setInputFiles('#pick-target', bad);
  await page.waitForFunction(() => !document.getElementById('run').disabled);
  await page.click('#run');
  await page.waitForFunction(() => !document.getElementById('error').hidden, null, { timeout: 120000 });
  assert.equal(await page.textContent('#status'), '失败');
  const error = await page.textContent('#error');
  // The engine's English: load json file "dump.json" failed. truncated_rank/dump.json @ byte 2097: the file
  // ends inside a JSON value (truncated JSON)
  assert.match(error, /^加载 JSON 文件 "dump\.json" 失败。truncated_rank\/dump\.json 第 \d+ 字节处：文件在 JSON 值的中间结束（JSON 被截断）$/, error);
  assert.doesNotMatch(error, /load json file|@ byte|truncated JSON/);

  // The log: msProbe's prefix kept, the message in Chinese, the English line in the title.
  const logLines = await page.$$eval('#log span', (spans) => spans.map((s) => [s.textContent, s.title]));
  const errLine = logLines.find(([, title]) => title.includes('[ERROR]'));
  assert.ok(errLine, JSON.stringify(logLines));
  assert.match(errLine[0], /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d \(\d+\) \[ERROR\] 发生意外错误：加载 JSON 文件 "dump\.json" 失败。truncated_rank\/dump\.json 第 \d+ 字节处/);
  assert.match(errLine[1], /\[ERROR\] An unexpected error occurred: load json file "dump\.json" failed\. truncated_rank\/dump\.json @ byte \d+: /);
  const offset = /@ byte (\d+)/.exec(errLine[1])[1];
  assert.ok(error.includes(`第 ${offset} 字节处`), 'the same offset as the engine gave');
  const info = logLines.find(([, title]) => title.includes('[INFO] Start building model graphs...'));
  assert.ok(info && info[0].endsWith('[INFO] 开始构建模型图…\n'), JSON.stringify(info));

  // A language toggle after the message was shown: the engine's own English again, and back.
  await page.click('[data-testid=lang-toggle]');
  assert.equal(await page.getAttribute('html', 'lang'), 'en');
  assert.match(await page.textContent('#error'), /^load json file "dump\.json" failed\. truncated_rank\/dump\.json @ byte \d+: the file ends inside a JSON value \(truncated JSON\)$/);
  assert.ok((await page.textContent('#log')).includes('An unexpected error occurred: load json file'));
  await page.click('[data-testid=lang-toggle]');
  assert.equal(await page.textContent('#error'), error);
  assertNoErrors(errors);
  await close();
});
