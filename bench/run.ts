// `npm run bench -- <name> [args…]`: runs bench/<name>.ts against a throw-away test bed (or the servers named by
// MONGODB_URL / TEMPORAL_ADDRESS). Each benchmark prints ratios against a baseline measured in the same run and ends
// with one JSON line of its figures.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { root } from '../scripts/lib/servers.js';
import { startTestBed } from '../scripts/lib/test-bed.js';

async function main(): Promise<number> {
  const [name, ...args] = process.argv.slice(2).filter((a) => a !== '--');
  const available = readdirSync(join(root, 'bench'))
    .filter((f) => f.endsWith('.ts') && f !== 'run.ts')
    .map((f) => f.replace(/\.ts$/, ''));
  const file = name ? join(root, 'bench', `${name}.ts`) : '';
  if (!name || !existsSync(file)) {
    console.error(`usage: npm run bench -- <name> [args]; available: ${available.join(', ') || '(none)'}`);
    return 2;
  }
  const bed = await startTestBed('herald-bench-');
  try {
    return await new Promise<number>((resolve) => {
      // BENCH_NODE_ARGS: extra node flags for the benchmark process, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof".
      const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
      // Production mode, with the bed's exemptions (its CA in NODE_EXTRA_CA_CERTS; loopback receivers) acknowledged.
      const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', file, ...args], {
        cwd: root,
        env: {
          ...bed.env,
          NODE_ENV: 'production',
          HERALD_UNSAFE_EGRESS: '1',
          LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
        },
        stdio: 'inherit',
      });
      child.on('exit', (c) => resolve(c ?? 1));
      // Stopped, it stops the benchmark first (which ends its workers), then the test bed's servers below.
      for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => child.kill(signal));
    });
  } finally {
    await bed.stop();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
