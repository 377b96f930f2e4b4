// Bundles the web app into a folder of static files (default build/web): app.js and worker.js
// (ES modules, esbuild), the engine module and wasm from build/wasm, sql.js's wasm, the page.
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..');
const out = process.argv[2] || join(root, 'build', 'web');
mkdirSync(out, { recursive: true });
// The version the page shows: VISPROBE_VERSION (scripts/package.sh), else `git describe`.
let version = process.env.VISPROBE_VERSION || '';
if (!version) {
  try { version = execFileSync('git', ['describe', '--tags', '--always', '--dirty'], { cwd: root }).toString().trim(); } catch { version = 'unknown'; }
}
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
// The one-file build: everything inlined into visprobe.html, which works opened from disk.
{
  const worker = await build({ ...common, sourcemap: false, format: 'iife', write: false, platform: 'browser',
                               entryPoints: [join(here, 'src', 'engine', 'worker_single.js')],
                               loader: { '.wasm': 'binary' }, logOverride: { 'empty-import-meta': 'silent' },
                               external: ['fs', 'path', 'crypto'] });
  const app = await build({ ...common, sourcemap: false, format: 'iife', write: false, platform: 'browser',
                            logOverride: { 'empty-import-meta': 'silent' },
                            entryPoints: [join(here, 'src', 'main.js')],
                            define: { ...common.define, VISPROBE_WORKER_SOURCE: JSON.stringify(worker.outputFiles[0].text) } });
  const css = readFileSync(join(here, 'style.css'), 'utf8');
  const html = readFileSync(join(here, 'index.html'), 'utf8')
    .replace(/<meta http-equiv="Content-Security-Policy"[^>]*>/, '')   // the one-file page is inline by nature
    .replace('<link rel="stylesheet" href="style.css">', () => `<style>${css}</style>`)
    .replace('<script type="module" src="app.js"></script>',
             () => `<script>${app.outputFiles[0].text.replace(/<\/script/gi, '<\\/script')}</script>`)
    .replace('<button id="load-sample" type="button">Load the sample</button>', '')
    .replace('<button id="load-trend-sample" type="button">Load the trend sample</button>', '');
  writeFileSync(join(out, 'visprobe.html'), html);
}
console.error(`web: built into ${out}`);
