// Bundles the web app into a folder of static files (default build/web): app.js and worker.js
// (ES modules, esbuild), the engine module and wasm from build/wasm, sql.js's wasm, the page.
import { build } from 'esbuild';
import { cpSync, mkdirSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..');
const out = process.argv[2] || join(root, 'build', 'web');
mkdirSync(out, { recursive: true });
const common = { bundle: true, format: 'esm', target: 'es2020', sourcemap: true, logLevel: 'warning' };
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
console.error(`web: built into ${out}`);
