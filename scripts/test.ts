// `npm test`: installs missing tools, starts one throw-away set of servers (MongoDB-wire + Temporal dev server) on
// free ports in a temp folder, pre-bundles the workflows once, runs unit and integration tests with node's test
// runner, stops the servers and ends with `N passed, N failed`.  `npm test -- test/unit/x.test.ts` runs some files.
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { spawn } from 'node:child_process';
import { bundleWorkflowCode } from '@temporalio/worker';
import { writeFile } from 'node:fs/promises';
import { freePort, type Managed } from './lib/processes.js';
import { ensureTools, root, startMongoWire, startTemporalDev, tools } from './lib/servers.js';
import { workflowsPath } from '../src/worker.js';

function testFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return testFiles(path);
    return name.endsWith('.test.ts') ? [path] : [];
  });
}

async function main(): Promise<number> {
  const started = Date.now();
  ensureTools();
  const tmp = mkdtempSync(join(tmpdir(), 'herald-test-'));
  const servers: Managed[] = [];
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: 'test',
    HERALD_TEST_TMP: tmp,
    HERALD_TEMPORAL_TEST_SERVER: tools.temporalTestServer,
  };
  try {
    if (!process.env.MONGODB_URL) {
      const port = await freePort();
      servers.push(await startMongoWire({ port, dataDir: join(tmp, 'mongo'), log: join(tmp, 'mongo-wire.log') }));
      env.MONGODB_URL = `mongodb://127.0.0.1:${port}/`;
    }
    if (!process.env.TEMPORAL_ADDRESS) {
      const port = await freePort();
      servers.push(await startTemporalDev({ port, log: join(tmp, 'temporal.log') }));
      env.TEMPORAL_ADDRESS = `127.0.0.1:${port}`;
    }
    const bundle = await bundleWorkflowCode({ workflowsPath: workflowsPath(), logger: quietLogger });
    env.HERALD_WORKFLOW_BUNDLE = join(tmp, 'workflow-bundle.js');
    await writeFile(env.HERALD_WORKFLOW_BUNDLE, bundle.code);
    console.log(`test bed: MongoDB-wire ${env.MONGODB_URL}, Temporal ${env.TEMPORAL_ADDRESS}, logs in ${tmp}`);

    const requested = process.argv.slice(2).filter((a) => a !== '--');
    const files = (requested.length > 0 ? requested : testFiles(join(root, 'test')))
      .map((f) => relative(root, f))
      .sort();
    const tap = join(tmp, 'results.tap');
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
    await Promise.all(servers.map((s) => s.stop()));
    if (!process.env.HERALD_KEEP_TMP) rmSync(tmp, { recursive: true, force: true });
  }
}

const quietLogger = { trace() {}, debug() {}, info() {}, warn: console.warn, error: console.error, log() {} };

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err);
    console.log('0 passed, 1 failed');
    process.exit(1);
  },
);
