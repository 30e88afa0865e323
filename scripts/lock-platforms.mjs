// The npm registry reachable here lacks some platform builds of @swc/core (a dependency of the Temporal worker's
// bundler), so `npm install` leaves them out of package-lock.json and `npm ci` then refuses the lock as out of sync.
// This adds lock entries for them, marked optional with their os/cpu, so npm ci skips them on other platforms
// exactly as it would with a complete lock. Run after `npm install`: node scripts/lock-platforms.mjs
import { readFileSync, writeFileSync } from 'node:fs';

const path = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(path, 'utf8'));
const platforms = {
  'darwin-arm64': ['darwin', 'arm64'],
  'darwin-x64': ['darwin', 'x64'],
  'linux-arm-gnueabihf': ['linux', 'arm'],
  'linux-arm64-gnu': ['linux', 'arm64'],
  'linux-arm64-musl': ['linux', 'arm64'],
  'linux-ppc64-gnu': ['linux', 'ppc64'],
  'linux-s390x-gnu': ['linux', 's390x'],
  'linux-x64-gnu': ['linux', 'x64'],
  'linux-x64-musl': ['linux', 'x64'],
  'win32-arm64-msvc': ['win32', 'arm64'],
  'win32-ia32-msvc': ['win32', 'ia32'],
  'win32-x64-msvc': ['win32', 'x64'],
};
const core = lock.packages['node_modules/@swc/core'];
let added = 0;
for (const [name, version] of Object.entries(core?.optionalDependencies ?? {})) {
  const key = `node_modules/${name}`;
  const platform = platforms[name.replace('@swc/core-', '')];
  if (lock.packages[key] || !platform) continue;
  lock.packages[key] = {
    version,
    cpu: [platform[1]],
    license: 'Apache-2.0 AND MIT',
    optional: true,
    os: [platform[0]],
    engines: { node: '>=10' },
  };
  added++;
}
lock.packages = Object.fromEntries(
  Object.entries(lock.packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))),
);
writeFileSync(path, JSON.stringify(lock, null, 2) + '\n');
console.log(`lock-platforms: added ${added} optional @swc/core platform entries`);
