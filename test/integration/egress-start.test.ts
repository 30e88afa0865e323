// Issue 33 item 4: with NODE_ENV=production the API (src/process/server.ts) and the worker (src/process/worker.ts)
// refuse to start with any development egress exemption unless HERALD_UNSAFE_EGRESS=1, and then log one warning line
// naming each.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { freePort } from '../../scripts/lib/processes.js';
import type { Config } from '../../src/config.js';
import { buildTestApp, closeTestApp } from '../helpers/app.js';
import { envOf, reap, spawnHerald, type HeraldChild } from '../helpers/child-process.js';
import { eventually } from '../helpers/deliveries.js';
import { requireEnv } from '../helpers/env.js';

/** Time for a child to start (tsx, connections; the worker's bundle) on a loaded machine. */
const START_MS = 60_000;
const PINO_WARN = 40;
type Entry = 'server' | 'worker';
type Exempt = 'HERALD_DNS_STATIC' | 'HERALD_ALLOW_CIDRS' | 'NODE_EXTRA_CA_CERTS';

describe('development egress exemptions with NODE_ENV=production', { timeout: 300_000 }, () => {
  let app: FastifyInstance;
  let config: Config;
  const children: HeraldChild[] = [];
  const exemptions = (): Record<Exempt, string> => ({
    HERALD_DNS_STATIC: 'hooks.example.com=127.0.0.1',
    HERALD_ALLOW_CIDRS: '127.0.0.1/32',
    NODE_EXTRA_CA_CERTS: requireEnv('NODE_EXTRA_CA_CERTS'), // the test bed's CA bundle
  });
  /** A production process on the test bed with exactly the `set` variables among the exemptions. */
  const spawn = (entry: Entry, set: Record<string, string>): HeraldChild => {
    const env = envOf(config, {
      NODE_ENV: 'production',
      LOG_LEVEL: 'warn',
      HERALD_HOST: '127.0.0.1',
      HERALD_METRICS_PORT: 'off',
      HERALD_WORKER_METRICS_PORT: 'off',
      HERALD_TEMPORAL_METRICS_PORT: 'off',
    });
    for (const name of ['HERALD_DNS_STATIC', 'HERALD_ALLOW_CIDRS', 'NODE_EXTRA_CA_CERTS', 'HERALD_UNSAFE_EGRESS'])
      delete env[name];
    const child = spawnHerald(entry, { ...env, ...set });
    children.push(child);
    return child;
  };
  const warnings = (output: string) =>
    output
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { level: number; msg: string })
      .filter((line) => line.level === PINO_WARN && line.msg.includes('egress exemptions'));

  before(async () => {
    ({ app, config } = await buildTestApp());
  });
  after(async () => {
    await reap(...children);
    await closeTestApp(app);
  });

  it('the API and the worker refuse each exemption alone, naming it and the fix', async () => {
    const runs = [];
    for (const entry of ['server', 'worker'] as const)
      for (const [variable, value] of Object.entries(exemptions())) {
        // A port each: were one to start, it would run rather than fail for want of a port.
        const port = String(await freePort());
        runs.push({ entry, variable, child: spawn(entry, { [variable]: value, HERALD_PORT: port }) });
      }
    for (const { entry, variable, child } of runs) {
      const exit = await Promise.race([
        child.exited,
        new Promise<null>((resolve) => setTimeout(() => resolve(null), START_MS).unref()),
      ]);
      const what = `${entry} with ${variable}: ${child.output().slice(0, 2000)}`;
      assert.ok(exit, `still running after ${START_MS} ms — ${what}`);
      assert.equal(exit.code, 1, what);
      const lines = child
        .output()
        .split('\n')
        .filter((l) => l.startsWith('  '));
      assert.equal(lines.length, 1, what); // that variable only
      assert.match(lines[0] ?? '', new RegExp(`^  ${variable}: .*refused with NODE_ENV=production`), what);
      assert.match(lines[0] ?? '', /set HERALD_UNSAFE_EGRESS=1 to start with it/, what);
      if (variable === 'NODE_EXTRA_CA_CERTS') assert.match(lines[0] ?? '', /unset it .*TEMPORAL_TLS_CA_FILE/, what);
    }
  });

  it('with HERALD_UNSAFE_EGRESS=1 both start and log one warning line naming every exemption', async () => {
    const all = exemptions();
    const port = await freePort();
    const api = spawn('server', { ...all, HERALD_UNSAFE_EGRESS: '1', HERALD_PORT: String(port) });
    const worker = spawn('worker', { ...all, HERALD_UNSAFE_EGRESS: '1' });
    await eventually(
      () =>
        fetch(`http://127.0.0.1:${port}/v1/health/ready`).then(
          (r) => (r.ok ? true : undefined),
          () => undefined,
        ),
      START_MS,
    );
    await eventually(async () => {
      const res = await app.temporal.connection.workflowService.describeTaskQueue({
        namespace: config.TEMPORAL_NAMESPACE,
        taskQueue: { name: config.TEMPORAL_TASK_QUEUE },
        taskQueueType: 2, // activity
      });
      return (res.pollers?.length ?? 0) > 0 ? true : undefined;
    }, START_MS);
    for (const child of [api, worker]) {
      const found = warnings(child.output());
      assert.equal(found.length, 1, child.output().slice(0, 2000));
      const msg = found[0]?.msg ?? '';
      assert.match(msg, /HERALD_UNSAFE_EGRESS=1/);
      for (const [variable, value] of Object.entries(all)) {
        assert.ok(msg.includes(variable), `${variable} in: ${msg}`);
        assert.ok(msg.includes(value), `${value} in: ${msg}`);
      }
      child.child.kill('SIGTERM');
      assert.equal((await child.exited).code, 0, child.output().slice(0, 2000));
    }
  });
});
