// `herald temporal check|inspect` on the real servers (setup and a namespace lacking attributes: temporal-setup.test.ts): the CLI reaches Temporal with the TEMPORAL_* settings the API
// and the worker use, and refuses bad ones with a message naming the variable. Through TLS: temporal-tls.test.ts.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { cli } from '../helpers/cli.js';
import { eventually } from '../helpers/deliveries.js';
import { startDeliveryStack, type DeliveryStack } from '../helpers/delivery-stack.js';
import { freePort } from '../../scripts/lib/processes.js';
import { TEMPORAL_SERVER_VERSION } from '../../scripts/lib/servers.js';

describe('herald temporal', { timeout: 120_000 }, () => {
  let s: DeliveryStack;
  let env: Record<string, string>;
  before(async () => {
    s = await startDeliveryStack();
    env = { TEMPORAL_ADDRESS: s.workerConfig.TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE: s.workerConfig.TEMPORAL_NAMESPACE };
  });
  after(async () => s?.stop());

  it('check: reaches the namespace, reads its retention and finds the search attributes', async () => {
    const run = await cli(env, ['temporal', 'check']);
    assert.equal(run.code, 0, run.stderr);
    const report = JSON.parse(run.stdout) as Record<string, unknown>;
    assert.equal(report.namespace, env.TEMPORAL_NAMESPACE);
    assert.equal(report.address, env.TEMPORAL_ADDRESS);
    assert.deepEqual([report.tls, report.mtls, report.apiKey], [false, false, false]);
    assert.equal(report.ready, true);
    assert.deepEqual((report.searchAttributes as { missing: string[] }).missing, []);
    // The dev server keeps closed runs the week `herald temporal setup` sets (scripts/lib/servers.ts).
    assert.equal(report.retentionSeconds, 7 * 86_400);
    // The dev server and the cluster (`npm run test:cluster`) run the one pinned version.
    assert.equal(report.serverVersion, TEMPORAL_SERVER_VERSION);
  });

  for (const [name, extra, expected] of [
    [
      'half a client pair',
      { TEMPORAL_TLS_CERT_FILE: '/nonexistent/client.pem' },
      /TEMPORAL_TLS_CERT_FILE, TEMPORAL_TLS_KEY_FILE: mTLS needs both/,
    ],
    [
      'a CA file that is not there',
      { TEMPORAL_TLS_CA_FILE: '/nonexistent/ca.pem' },
      /TEMPORAL_TLS_CA_FILE: cannot read \/nonexistent\/ca\.pem/,
    ],
    ['an API key with TLS off', { TEMPORAL_API_KEY: 'k', TEMPORAL_TLS: '0' }, /TEMPORAL_TLS: 0 contradicts/],
  ] as const) {
    it(`check refuses ${name} before connecting, naming the variable (exit 1)`, async () => {
      const run = await cli({ ...env, ...extra }, ['temporal', 'check']);
      assert.equal(run.code, 1);
      assert.match(run.stderr, expected);
      assert.equal(run.stdout, '');
    });
  }

  it('check: a server that does not answer is an error naming the address, within --timeout', async () => {
    const address = `127.0.0.1:${await freePort()}`;
    const started = Date.now();
    const run = await cli({ ...env, TEMPORAL_ADDRESS: address }, ['temporal', 'check', '--timeout', '2']);
    assert.equal(run.code, 1);
    assert.match(run.stderr, new RegExp(`cannot connect to Temporal at ${address}`));
    assert.ok(Date.now() - started < 15_000, `gave up after ${Date.now() - started} ms`);
    assert.equal((await cli(env, ['temporal', 'check', '--timeout', '0'])).code, 2);
  });

  it("inspect: a waiting delivery's workflow, its history size and its live state from the query", async (t) => {
    s.answers.set('/cli-temporal', 503);
    const subscription = await s.subscribe('/cli-temporal');
    const eventId = await s.publish();
    const delivery = await eventually(async () => {
      const [d] = await s.deliveriesOf(eventId, subscription.id);
      return d && d.attemptCount === 1 && d.nextAttemptAt ? d : undefined;
    });
    const run = await cli(env, ['temporal', 'inspect', delivery.id]);
    assert.equal(run.code, 0, run.stderr);
    const report = JSON.parse(run.stdout) as {
      workflowId: string;
      status: string;
      historyLength: number;
      historySizeBytes: number;
      searchAttributes: Record<string, unknown>;
      state: { status: string; attemptCount: number; nextAttemptAt: string | null } | null;
    };
    assert.equal(report.workflowId, `delivery:${delivery.id}`);
    assert.equal(report.status, 'RUNNING');
    assert.ok(report.historyLength > 5 && report.historySizeBytes > 500, run.stdout);
    assert.equal(report.searchAttributes.HeraldSubscriptionId, subscription.id);
    assert.equal(report.state?.status, 'pending');
    assert.equal(report.state?.attemptCount, 1);
    assert.ok(report.state?.nextAttemptAt);

    t.diagnostic(
      `a delivery waiting after one failed attempt: ${report.historyLength} events, ${report.historySizeBytes} bytes`,
    );

    // A delivery answered 2xx at once: its closed workflow, no live state (docs/scale-and-size.md, "Sizing the cluster").
    const okSubscription = await s.subscribe('/cli-temporal-ok');
    const okEvent = await s.publish();
    const done = await eventually(async () => {
      const [d] = await s.deliveriesOf(okEvent, okSubscription.id);
      return d?.status === 'succeeded' ? d : undefined;
    });
    const closed = await eventually(async () => {
      const r = await cli(env, ['temporal', 'inspect', done.id]);
      const parsed = JSON.parse(r.stdout || '{}') as typeof report;
      return parsed.status === 'COMPLETED' ? parsed : undefined;
    });
    assert.equal(closed.state, null);
    assert.equal(closed.searchAttributes.HeraldDeliveryStatus, 'succeeded');
    t.diagnostic(`a delivery succeeded at once: ${closed.historyLength} events, ${closed.historySizeBytes} bytes`);

    const missing = await cli(env, ['temporal', 'inspect', randomUUID()]);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /no workflow delivery:/);
  });
});
