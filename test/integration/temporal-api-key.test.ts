// Issue 35 item 2: Herald reaches Temporal the way Temporal Cloud's API-key endpoints require: TLS with a server
// certificate from a given CA, `authorization: Bearer <key>` on every gRPC call, the namespace in `temporal-namespace`.
// Cloud itself is not reachable here; a gateway on loopback enforces the key in front of the test bed's dev server
// (test/helpers/api-key-gateway.ts), so this proves Herald's side of the wire: the CLI, the API and the worker.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time.js';
import { createTestCa } from '../../scripts/lib/test-ca.js';
import { createWorkerRuntime } from '../../src/process/worker-runtime.js';
import { startApiKeyGateway, type ApiKeyGateway, type GatewayCall } from '../helpers/api-key-gateway.js';
import { cli } from '../helpers/cli.js';
import { eventually } from '../helpers/deliveries.js';
import { startDeliveryStack } from '../helpers/delivery-stack.js';
import { assertTemporalRefused } from '../helpers/temporal-refusal.js';
import { requireEnv, testConfig } from '../helpers/env.js';

const WORKFLOW_SERVICE = '/temporal.api.workflowservice.v1.WorkflowService/';
const PERMISSION_DENIED = 7;
const quiet = { info: () => {}, warn: () => {}, error: () => {} };

describe('Temporal behind an API-key gateway shaped like Temporal Cloud', { timeout: 60_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'herald-temporal-api-key-'));
  const apiKey = `herald-test-${randomBytes(16).toString('hex')}`;
  const namespace = process.env.TEMPORAL_NAMESPACE ?? 'default';
  let gateway: ApiKeyGateway;
  let env: Record<string, string>;
  /** The calls the gateway saw from `from` on. */
  const since = (from: number): GatewayCall[] => gateway.calls.slice(from);
  /** Every call but GetSystemInfo (the server's, not a namespace's) names the namespace in `temporal-namespace`. */
  const assertNamespaced = (calls: GatewayCall[]): void => {
    const wrong = calls.filter((c) => c.namespace !== namespace && c.method !== `${WORKFLOW_SERVICE}GetSystemInfo`);
    assert.deepEqual(wrong, []);
  };

  before(async () => {
    // The certificate names the address itself, as Cloud's names its endpoint: no TEMPORAL_TLS_SERVER_NAME.
    const ca = createTestCa(join(dir, 'ca'), undefined, 2, ['IP:127.0.0.1']);
    gateway = await startApiKeyGateway(requireEnv('TEMPORAL_ADDRESS'), apiKey, { cert: ca.leafCert, key: ca.leafKey });
    env = {
      TEMPORAL_ADDRESS: `127.0.0.1:${gateway.port}`,
      TEMPORAL_NAMESPACE: namespace,
      TEMPORAL_TLS_CA_FILE: ca.caCert, // the only place this CA is trusted
      TEMPORAL_API_KEY: apiKey,
    };
  });
  after(async () => {
    await gateway?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('herald temporal check passes with the key, and a wrong key is refused with a message naming the setting', async () => {
    const start = gateway.calls.length;
    const run = await cli(env, ['temporal', 'check']);
    assert.equal(run.code, 0, run.stderr);
    const report = JSON.parse(run.stdout) as Record<string, unknown>;
    assert.deepEqual([report.tls, report.mtls, report.apiKey, report.ready], [true, false, true, true]);
    const checked = since(start);
    assert.ok(checked.length >= 3, `GetSystemInfo, DescribeNamespace, ListSearchAttributes: ${checked.length}`);
    assert.deepEqual(
      checked.filter((c) => !c.accepted),
      [],
    );
    assertNamespaced(checked);
    assert.ok(checked.some((c) => c.method.endsWith('/ListSearchAttributes'))); // an operator call: Herald adds it

    const wrongFrom = gateway.calls.length;
    const wrong = await cli({ ...env, TEMPORAL_API_KEY: 'not-the-key' }, ['temporal', 'check', '--timeout', '5']);
    assert.equal(wrong.code, 1);
    assert.equal(wrong.stdout, '');
    assert.match(
      wrong.stderr,
      /Temporal at 127\.0\.0\.1:\d+ refused the credentials \(UNAUTHENTICATED: invalid API key\): check TEMPORAL_API_KEY/,
    );
    assert.ok(!wrong.stderr.includes('not-the-key'), 'the key is not printed');
    const refused = since(wrongFrom);
    assert.ok(refused.length > 0 && refused.every((c) => !c.accepted), JSON.stringify(refused));
  });

  it('a worker and the API run a delivery through it: every call authorized, long polls included', async (t) => {
    const start = gateway.calls.length;
    const s = await startDeliveryStack({ env });
    try {
      const ready = await s.app.inject({ method: 'GET', url: '/v1/health/ready' });
      assert.deepEqual(ready.json(), { status: 'ready', checks: { mongodb: 'up', temporal: 'up' } });
      const subscription = await s.subscribe('/through-gateway');
      const eventId = await s.publish();
      const delivery = await eventually(async () => {
        const [d] = await s.deliveriesOf(eventId, subscription.id);
        return d?.status === 'succeeded' ? d : undefined;
      });
      assert.equal(delivery.attemptCount, 1);
      assert.equal(s.requestsTo('/through-gateway').length, 1);
    } finally {
      await s.stop();
    }
    const calls = since(start);
    assert.ok(calls.length > 0);
    assert.deepEqual(
      calls.filter((c) => !c.accepted),
      [],
    );
    const methods = new Set(calls.map((c) => c.method.slice(c.method.lastIndexOf('/') + 1)));
    for (const m of ['PollWorkflowTaskQueue', 'PollActivityTaskQueue', 'RespondActivityTaskCompleted'])
      assert.ok(methods.has(m), `${m} went through the gateway: ${[...methods].join(', ')}`);
    assertNamespaced(calls);
    t.diagnostic(`${calls.length} calls through the gateway, every one with the key`);
  });

  it('with a wrong key the API is not ready and the worker does not start', async () => {
    await assertTemporalRefused({ ...env, TEMPORAL_API_KEY: 'not-the-key' }, /UNAUTHENTICATED|invalid API key/i);
  });

  it('TEMPORAL_API_KEY_FILE behaves the same: the CLI, and a worker that polls through the gateway', async () => {
    const { TEMPORAL_API_KEY: _inline, ...base } = env;
    const keyFile = join(dir, 'api-key');
    writeFileSync(keyFile, `${apiKey}\n`, { mode: 0o600 }); // a trailing newline, as secrets are often written
    const fileEnv = { ...base, TEMPORAL_API_KEY_FILE: keyFile };
    const run = await cli(fileEnv, ['temporal', 'check']);
    assert.equal(run.code, 0, run.stderr);
    assert.equal((JSON.parse(run.stdout) as { apiKey: boolean }).apiKey, true);

    const wrongFile = join(dir, 'wrong-key');
    writeFileSync(wrongFile, 'not-the-key\n');
    const wrong = await cli({ ...base, TEMPORAL_API_KEY_FILE: wrongFile }, ['temporal', 'check', '--timeout', '5']);
    assert.equal(wrong.code, 1);
    assert.match(wrong.stderr, /refused the credentials \(UNAUTHENTICATED.*check the key in TEMPORAL_API_KEY_FILE/);
    assert.ok(wrong.stderr.includes(wrongFile));

    const start = gateway.calls.length;
    const config = testConfig(fileEnv);
    const runtime = await createWorkerRuntime(config, { logger: quiet });
    const running = runtime.run();
    try {
      await eventually(async () =>
        since(start).some((c) => c.method.endsWith('/PollWorkflowTaskQueue')) ? true : undefined,
      );
    } finally {
      await runtime.mongo.db.dropDatabase().catch(() => undefined);
      runtime.shutdown();
      await running;
    }
    const calls = since(start);
    assert.deepEqual(
      calls.filter((c) => !c.accepted),
      [],
    );
  });

  it('setup: where the operator call is refused, as Temporal Cloud keeps it to its control plane, it names tcld', async () => {
    const fresh = `herald-api-key-${randomBytes(4).toString('hex')}`;
    const direct = await Connection.connect({ address: requireEnv('TEMPORAL_ADDRESS') });
    try {
      await direct.workflowService.registerNamespace({
        namespace: fresh,
        workflowExecutionRetentionPeriod: msToTs(7 * 86_400_000),
      });
    } finally {
      await direct.close();
    }
    const freshEnv = { ...env, TEMPORAL_NAMESPACE: fresh };
    gateway.refusals.set('AddSearchAttributes', PERMISSION_DENIED);
    try {
      const refused = await cli(freshEnv, ['temporal', 'setup']);
      assert.equal(refused.code, 1);
      assert.equal(refused.stdout, '');
      assert.match(
        refused.stderr,
        /Temporal refused to add search attributes to herald-api-key-\w+ \(7 PERMISSION_DENIED/,
      );
      const tcld =
        `tcld namespace search-attributes add -n ${fresh} --sa "HeraldDeliveryStatus=Keyword" ` +
        '--sa "HeraldSubscriptionId=Keyword" --sa "HeraldEventType=Keyword" --sa "HeraldIntegratorId=Keyword" ' +
        '--sa "HeraldAttemptCount=Int"';
      assert.ok(refused.stderr.includes(tcld), refused.stderr);
    } finally {
      gateway.refusals.clear();
    }
    // Where the server takes it (self-hosted), the same key sets the namespace up.
    const setup = await cli(freshEnv, ['temporal', 'setup']);
    assert.equal(setup.code, 0, setup.stderr);
    assert.equal(
      (JSON.parse(setup.stdout) as { searchAttributes: { created: string[] } }).searchAttributes.created.length,
      5,
    );
  });
});
