/// <reference types="node" />
// (type-checked with web/src: tsconfig.json)
// Bundles the web app into a folder of static files (default build/web): app.js and worker.js
// (ES modules, esbuild), the engine module and wasm from build/wasm, sql.js's wasm, the page; and
// the same app in one file, visprobe.html, with the sample inside (issue 46).
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { createHash } from 'node:crypto';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..');
const out = process.argv[2] || join(root, 'build', 'web');
mkdirSync(out, { recursive: true });
// The version the page shows: VISPROBE_VERSION (scripts/package.sh), else `git describe`.
let version = process.env.VISPROBE_VERSION || '';
if (!version) {
  try { version = execFileSync('git', ['describe', '--tags', '--always', '--dirty'], { cwd: root }).toString().trim(); } catch { version = 'unknown'; }
}
/** @type {import('esbuild').BuildOptions} */
const common = { bundle: true, format: 'esm', target: 'es2020', sourcemap: true, logLevel: 'warning',
                 define: { __VISPROBE_VERSION__: JSON.stringify(version) } };
await build({ ...common, entryPoints: [join(here, 'src', 'main.js')], outfile: join(out, 'app.js') });
await build({ ...common, entryPoints: [join(here, 'src', 'engine', 'worker.js')], outfile: join(out, 'worker.js'),
              external: ['fs', 'path', 'crypto', './visprobe_web.mjs'], platform: 'browser' });
for (const f of ['index.html', 'style.css']) cpSync(join(here, f), join(out, f));
cpSync(join(root, 'node_modules', 'sql.js', 'dist', 'sql-wasm.wasm'), join(out, 'sql-wasm.wasm'));
for (const f of ['visprobe_web.mjs', 'visprobe_web.wasm']) {
  const src = join(root, 'build', 'wasm', f);
  if (!existsSync(src)) throw new Error(`${src} is missing: run ./scripts/build.sh wasm first`);
  cpSync(src, join(out, f));
}
/**
 * Issue 46: the sample of scripts/make_sample.sh (a compare pair and a monitor run, 2.5 MB, about
 * 200 kB gzipped) packed for the one-file page, which cannot fetch files beside it: a 4-byte
 * little-endian header length, the JSON header {index, files: [part, path, offset, length][]}, the
 * files' bytes; gzipped, in base64 (web/src/host/sample.js unpacks it). null when it cannot be made.
 */
function packedSample() {
  // Kept in build/ under a hash of the scripts that write it (a rebuild of the page reuses it).
  const scripts = ['make_sample.sh', 'gen_dump.py', 'gen_trend_data.py'].map((f) => readFileSync(join(root, 'scripts', f)));
  const key = createHash('sha256').update(Buffer.concat(scripts)).digest('hex').slice(0, 16);
  const cache = join(root, 'build', `one_file_sample.${key}.b64`);
  if (existsSync(cache)) return readFileSync(cache, 'utf8');
  const tmp = mkdtempSync(join(tmpdir(), 'visprobe_sample_'));
  try {
    const dir = join(tmp, 'sample');
    execFileSync('bash', [join(root, 'scripts', 'make_sample.sh'), dir], { cwd: root, stdio: ['ignore', 'ignore', 'pipe'] });
    const index = JSON.parse(readFileSync(join(dir, 'index.json'), 'utf8'));
    const files = [];
    const chunks = [];
    let offset = 0;
    for (const part of Object.keys(index)) {
      for (const path of index[part]) {
        const bytes = readFileSync(join(dir, part, path));
        files.push([part, path, offset, bytes.length]);
        chunks.push(bytes);
        offset += bytes.length;
      }
    }
    const head = Buffer.from(JSON.stringify({ index, files }));
    const size = Buffer.alloc(4);
    size.writeUInt32LE(head.length);
    const packed = gzipSync(Buffer.concat([size, head, ...chunks]), { level: 9 }).toString('base64');
    try { writeFileSync(cache, packed); } catch { /* not kept */ }
    return packed;
  } catch (e) {
    console.error(`web: visprobe.html is built without the sample: ${String(e && /** @type {Error} */ (e).message).split('\n')[0]}`);
    return null;
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

// The one-file build: everything inlined into visprobe.html, which works opened from disk.
{
  const sample = packedSample();
  const worker = await build({ ...common, sourcemap: false, format: 'iife', write: false, platform: 'browser',
                               entryPoints: [join(here, 'src', 'engine', 'worker_single.js')],
                               // worker_single.js imports the engine as 'visprobe-wasm/...' (typed by
                               // web/src/engine/visprobe_web.d.ts, so tsc never reads the generated module).
                               alias: { 'visprobe-wasm': join(root, 'build', 'wasm') },
                               loader: { '.wasm': 'binary' }, logOverride: { 'empty-import-meta': 'silent' },
                               external: ['fs', 'path', 'crypto'] });
  const app = await build({ ...common, sourcemap: false, format: 'iife', write: false, platform: 'browser',
                            logOverride: { 'empty-import-meta': 'silent' },
                            entryPoints: [join(here, 'src', 'main.js')],
                            define: { ...common.define, VISPROBE_WORKER_SOURCE: JSON.stringify(/** @type {import('esbuild').OutputFile[]} */ (worker.outputFiles)[0].text),
                                      ...(sample ? { VISPROBE_SAMPLE: JSON.stringify(sample) } : {}) } });
  const css = readFileSync(join(here, 'style.css'), 'utf8');
  // Without a sample inside, no button offers one: removed by their ids (whatever their text).
  const markup = readFileSync(join(here, 'index.html'), 'utf8');
  const html = (sample ? markup : markup.replace(/<button\b[^>]*\bid="load-(?:trend-)?sample"[^>]*>[\s\S]*?<\/button>/g, ''))
    .replace(/<meta http-equiv="Content-Security-Policy"[^>]*>/, '')   // the one-file page is inline by nature
    .replace('<link rel="stylesheet" href="style.css">', () => `<style>${css}</style>`)
    .replace('<script type="module" src="app.js"></script>',
             () => `<script>${/** @type {import('esbuild').OutputFile[]} */ (app.outputFiles)[0].text.replace(/<\/script/gi, '<\\/script')}</script>`);
  writeFileSync(join(out, 'visprobe.html'), html);
}
console.error(`web: built into ${out}`);
