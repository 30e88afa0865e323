// What the portal's tests need before they run: the built page (dist/portal, `npm run build:portal`) and Debian's
// Chromium at /usr/bin/chromium, installed from Debian's packages when missing (as root, as in CI); nothing
// downloads a browser build.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { root } from './servers.js';

export const CHROMIUM = '/usr/bin/chromium';

/** Builds the portal's assets (Vite, about a second): every run serves the page of the code under test. */
export function buildPortal(): void {
  execFileSync(
    process.execPath,
    [join(root, 'node_modules/vite/bin/vite.js'), 'build', '--config', 'portal/vite.config.ts', '--logLevel', 'warn'],
    {
      cwd: root,
      stdio: 'inherit',
    },
  );
}

/** Installs Debian's chromium when it is missing; throws with what to do when it cannot. */
export function ensureChromium(): void {
  if (existsSync(CHROMIUM)) return;
  if (process.getuid?.() !== 0)
    throw new Error(`${CHROMIUM} is missing: install Debian's chromium package (sudo apt-get install -y chromium)`);
  console.log('installing Debian chromium for the portal tests (apt-get)');
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  for (const args of [
    ['update', '-qq'],
    ['install', '-y', '-qq', '--no-install-recommends', 'chromium'],
  ]) {
    const r = spawnSync('apt-get', args, { stdio: 'inherit', env });
    if (r.status !== 0) throw new Error(`apt-get ${args.join(' ')} failed (${r.status ?? r.signal})`);
  }
}
