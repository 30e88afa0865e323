// The README quick start, command for command, in a fresh clone of this repository: `npm run dev` (against the test
// bed's MongoDB-wire and Temporal servers), then `npx herald init && npx herald listen --test`, which must print a
// verified delivery. To stay bounded, the clone reuses this checkout's node_modules and .tools instead of
// `npm ci` and the tools' download; the README gives the time measured with them.
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { MongoClient } from 'mongodb';
import { freePort } from '../../scripts/lib/processes.js';
import { root } from '../../scripts/lib/servers.js';
import { waitForOutput } from '../helpers/cli.js';
import { eventually } from '../helpers/deliveries.js';
import { requireEnv } from '../helpers/env.js';

const run = promisify(execFile);

describe('the README quick start in a fresh clone', { timeout: 240_000 }, () => {
  const db = `qs_${randomBytes(4).toString('hex')}`;
  let stopDev = async () => {};
  after(async () => {
    await stopDev();
    const client = await MongoClient.connect(requireEnv('MONGODB_URL'));
    await client.db(db).dropDatabase();
    await client.close();
  });

  it('shows a verified delivery', async () => {
    const clone = join(requireEnv('HERALD_TEST_TMP'), `quick-start-${process.pid}`);
    await run('git', ['clone', '--quiet', root, clone]);
    for (const name of ['node_modules', '.tools']) symlinkSync(join(root, name), join(clone, name));
    const port = await freePort();
    const env = {
      ...process.env,
      HERALD_PORT: String(port),
      HERALD_URL: `http://127.0.0.1:${port}`,
      MONGODB_DB: db,
      TEMPORAL_TASK_QUEUE: `qs-${randomBytes(4).toString('hex')}`,
      NODE_ENV: 'development',
      // Free ports, chosen by `npm run dev` and printed: fixed ones could be held by another test on this machine.
      HERALD_METRICS_PORT: '0',
      HERALD_WORKER_METRICS_PORT: '0',
    };

    // Terminal 1: npm run dev
    const dev = spawn('npm', ['run', 'dev'], { cwd: clone, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let devOut = '';
    dev.stdout.on('data', (c: Buffer) => (devOut += c.toString()));
    dev.stderr.on('data', (c: Buffer) => (devOut += c.toString()));
    const exited = new Promise<void>((resolve) => dev.once('exit', () => resolve()));
    stopDev = async () => {
      if (dev.exitCode === null && dev.signalCode === null) process.kill(-dev.pid!, 'SIGINT');
      await exited;
    };
    await waitForOutput(
      () => devOut,
      (t) => t.includes('herald dev is up') && t.includes('Ctrl-C stops everything'),
      120_000,
    );
    // The banner says where each process's /metrics is; the worker's carries the Temporal SDK's metrics too.
    const [, apiMetrics, workerMetrics] = /\/metrics +API (\S+), worker (\S+)\n/.exec(devOut) ?? assert.fail(devOut);
    assert.match(await (await fetch(apiMetrics!)).text(), /^herald_events_ingested_total 0$/m);
    const workerText = await eventually(async () => {
      const text = await fetch(workerMetrics!).then(
        (r) => r.text(),
        () => '',
      );
      return /^temporal_num_pollers\{/m.test(text) ? text : undefined;
    }, 60_000);
    assert.match(workerText, /^herald_deliveries_overdue /m);

    // Terminal 2: npx herald init && npx herald listen --test (on a free port: the machine is shared)
    await run('npx', ['herald', 'init'], { cwd: clone, env });
    const listenPort = String(await freePort());
    const { stdout } = await run('npx', ['herald', 'listen', '--test', '--count', '1', '--port', listenPort], {
      cwd: clone,
      env,
      timeout: 60_000,
    });
    assert.match(stdout, /^\d\d:\d\d:\d\d {2}webhook\.test {2}[0-9a-f-]{36} {2}attempt 1 {2}verified {2}→ 204\n$/);

    await stopDev();
    assert.match(devOut, /herald dev: stopped/);
  });
});
