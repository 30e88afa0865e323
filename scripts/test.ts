// `npm test`: installs missing tools (promtool too), starts one throw-away test bed (MongoDB-wire + Temporal dev
// server on free ports, workflows bundled once), runs unit and integration tests with node's test runner, stops the
// servers and ends with `N passed, N failed`.  `npm test -- test/unit/x.test.ts` runs some files only.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { spawn } from 'node:child_process';
import { root } from './lib/servers.js';
import { startTestBed } from './lib/test-bed.js';

function testFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return testFiles(path);
    return name.endsWith('.test.ts') ? [path] : [];
  });
}

async function main(): Promise<number> {
  const started = Date.now();
  const bed = await startTestBed('herald-test-', { promtool: true }); // test/unit/ops-files.test.ts runs it
  try {
    const env: NodeJS.ProcessEnv = { ...bed.env, NODE_ENV: 'test' };
    console.log(`test bed: MongoDB-wire ${env.MONGODB_URL}, Temporal ${env.TEMPORAL_ADDRESS}, logs in ${bed.tmp}`);
    const requested = process.argv.slice(2).filter((a) => a !== '--');
    const files = (requested.length > 0 ? requested : testFiles(join(root, 'test')))
      .map((f) => relative(root, f))
      .sort();
    const tap = join(bed.tmp, 'results.tap');
    const concurrency = process.env.HERALD_TEST_CONCURRENCY ?? '2';
    const code = await new Promise<number>((resolve) => {
      const child = spawn(
        process.execPath,
        [
          '--import',
          'tsx',
          '--test',
          `--test-concurrency=${concurrency}`,
          '--test-reporter=spec',
          '--test-reporter-destination=stdout',
          '--test-reporter=tap',
          `--test-reporter-destination=${tap}`,
          ...files,
        ],
        { cwd: root, env, stdio: 'inherit' },
      );
      child.on('exit', (c) => resolve(c ?? 1));
    });
    const summary = readFileSync(tap, 'utf8');
    const count = (key: string): number => Number(new RegExp(`^# ${key} (\\d+)$`, 'm').exec(summary)?.[1] ?? 0);
    const failed = count('fail') + count('cancelled');
    console.log(`\ntest run took ${Math.round((Date.now() - started) / 1000)} s`);
    console.log(`${count('pass')} passed, ${failed} failed${count('skipped') ? `, ${count('skipped')} skipped` : ''}`);
    return code !== 0 || failed > 0 ? 1 : 0;
  } finally {
    await bed.stop();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err);
    console.log('0 passed, 1 failed');
    process.exit(1);
  },
);
