// Shared by the Chromium tests: the static server for the built app and Debian's Chromium driven
// by playwright-core (no browser is ever downloaded).
import { spawn } from 'node:child_process';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

export const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Serves `dir` with scripts/static_server.py on a free port. @param {string} dir */
export async function startServer(dir) {
  const server = spawn('python3', [join(root, 'scripts', 'static_server.py'), dir, '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const origin = await new Promise((res, rej) => {
    server.stdout.on('data', (d) => { const m = /serving (http:\/\/[^/]+)\//.exec(String(d)); if (m) res(m[1]); });
    server.on('exit', () => rej(new Error('static server exited')));
  });
  return { server, origin };
}

/** Headless /usr/bin/chromium without network side traffic. */
export function launchChromium() {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
           '--disable-component-update', '--disable-sync'],
  });
}
