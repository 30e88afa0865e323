// Logs of a whole run (API, worker and Temporal SDK at their most verbose): the lines about a delivery carry its
// five ids, and no line anywhere holds key material, a signature, the master key, the cursor secret or the admin
// token.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KeyObject } from 'node:crypto';
import { DefaultLogger } from '@temporalio/worker';
import type { SigningKeyDoc } from '../../src/store/documents.js';
import { eventually } from '../helpers/deliveries.js';
import { startDeliveryStack, type DeliveryStack } from '../helpers/delivery-stack.js';
import { ADMIN_TOKEN } from '../helpers/integrators.js';

const FIVE_IDS = ['deliveryId', 'eventId', 'subscriptionId', 'integratorId', 'attemptNumber'] as const;

/** Every spelling of a private key a log line could carry: PEM body, raw scalar in hex, base64url and base64. */
function spellings(key: KeyObject): string[] {
  const d = key.export({ format: 'jwk' }).d!;
  const raw = Buffer.from(d, 'base64url');
  const pemBody = key.export({ format: 'pem', type: 'pkcs8' }).toString().split('\n')[1]!;
  return [d, raw.toString('hex'), raw.toString('base64'), pemBody];
}

describe('logs of a whole run', () => {
  const heraldLines: string[] = [];
  const temporalLines: string[] = [];
  const temporalEntries: { message: string; meta: Record<string, unknown> }[] = [];
  let s: DeliveryStack;
  let stopped = false;
  before(async () => {
    s = await startDeliveryStack({
      env: { LOG_LEVEL: 'trace' },
      logStream: { write: (line: string) => void heraldLines.push(line) },
      temporalLogger: new DefaultLogger('TRACE', (entry) => {
        temporalEntries.push({ message: entry.message, meta: entry.meta ?? {} });
        temporalLines.push(
          `${entry.message} ${JSON.stringify(entry.meta ?? {}, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v))}`,
        );
      }),
    });
  });
  after(async () => {
    if (!stopped) await s?.stop();
  });

  it('explains each delivery with its five ids and holds no secret', async () => {
    s.answers.set('/log-fail', 500);
    const ok = await s.subscribe('/log-ok');
    const failing = await s.subscribe('/log-fail');
    const first = await s.publish();
    const [okDelivery, failDelivery] = await eventually(async () => {
      const a = (await s.deliveriesOf(first, ok.id))[0];
      const b = (await s.deliveriesOf(first, failing.id))[0];
      return a?.status === 'succeeded' && b?.attemptCount === 1 ? [a, b] : undefined;
    });
    await s.alice.client.retryDelivery(failDelivery!.id);
    await eventually(async () =>
      (await s.alice.client.getDelivery(failDelivery!.id)).attemptCount === 2 ? 1 : undefined,
    );
    await s.alice.client.sendTestDelivery(ok.id);
    await s.alice.client.rotateSubscriptionKey(ok.id);
    const second = await s.publish();
    await eventually(async () => ((await s.deliveriesOf(second, ok.id))[0]?.status === 'succeeded' ? 1 : undefined));

    // Rejected credentials: a forged, well-formed request signature and a wrong admin token.
    const { port } = s.app.server.address() as { port: number };
    const forged = `0x3045022100${'ab'.repeat(32)}0220${'cd'.repeat(32)}`;
    const rejected = await fetch(`http://127.0.0.1:${port}/v1/webhooks/subscriptions`, {
      headers: {
        'x-pubkey': s.alice.pubkey,
        'x-timestamp': String(Math.floor(Date.now() / 1000)),
        'x-signature': forged,
      },
    });
    assert.equal(rejected.status, 401);
    const wrongToken = `${ADMIN_TOKEN}-but-wrong`;
    const admin = await fetch(`http://127.0.0.1:${port}/internal/v1/integrators`, {
      method: 'POST',
      headers: { authorization: `Bearer ${wrongToken}`, 'content-type': 'application/json' },
      body: '{}',
    });
    assert.equal(admin.status, 401);

    // Every key and signature of the run, to look for.
    const keyDocs = await s.app.mongo.db.collection<SigningKeyDoc>('signing_keys').find({}).toArray();
    assert.ok(keyDocs.length >= 3, 'two subscriptions, one rotated');
    const config = s.app.config;
    const secrets = [
      ...keyDocs.flatMap((k) => spellings(s.app.vault.open(k.sealed, k.subscriptionId))),
      ...spellings(s.alice.privateKey),
      ...s.receiver.requests.map((r) => String(r.headers['x-service-webhook-signature'])),
      forged,
      forged.slice(2),
      ADMIN_TOKEN,
      wrongToken,
      config.HERALD_MASTER_KEY!,
      Buffer.from(config.HERALD_MASTER_KEY!, 'base64').toString('hex'),
      config.HERALD_CURSOR_SECRET!,
    ];
    assert.ok(s.receiver.requests.length >= 4);
    const deliveries = (await s.alice.client.listDeliveriesPage({ limit: 100 })).deliveries;
    stopped = true;
    await s.stop(); // flush everything the processes would log on the way out
    const all = [...heraldLines, ...temporalLines];
    assert.ok(heraldLines.length > 20 && temporalLines.length > 0, 'the run logged');
    for (const secret of secrets) {
      assert.ok(secret.length >= 16, 'a meaningful needle');
      const hit = all.find((line) => line.includes(secret));
      assert.equal(hit, undefined, `a secret in the logs: ${hit?.slice(0, 200)}`);
    }
    for (const line of all) assert.doesNotMatch(line, /PRIVATE KEY|"d":"/);

    // Herald's lines about a delivery carry the five ids: one per attempt made, and the endings.
    const deliveryIds = [okDelivery!.id, failDelivery!.id];
    const parsed = heraldLines.map((l) => JSON.parse(l) as Record<string, unknown>);
    // The API's request lines about one delivery (GET, retry) too (src/api/request-context.ts: logDelivery).
    const about = parsed.filter((l) => deliveryIds.some((id) => JSON.stringify(l).includes(id)));
    assert.ok(
      about.some((l) => l.msg === 'request' && l.deliveryId === failDelivery!.id && l.attemptNumber === 2),
      'the retry request names its delivery and the attempt that serves it',
    );
    for (const line of about)
      for (const field of FIVE_IDS) assert.ok(line[field] !== undefined, `${field} in ${JSON.stringify(line)}`);
    const made = about.filter((l) => l.msg === 'attempt made');
    assert.deepEqual(
      made.map((l) => [l.deliveryId === okDelivery!.id ? 'ok' : 'fail', l.attemptNumber, l.outcome]).sort(),
      [
        ['fail', 1, 'http_error'],
        ['fail', 2, 'http_error'],
        ['ok', 1, 'succeeded'],
      ],
    );
    const okLine = made.find((l) => l.deliveryId === okDelivery!.id)!;
    assert.deepEqual(
      FIVE_IDS.map((f) => okLine[f]),
      [okDelivery!.id, first, ok.id, s.alice.integratorId, 1],
    );
    assert.ok(
      about.some((l) => l.msg === 'delivery finished' && l.deliveryId === okDelivery!.id && l.status === 'succeeded'),
    );

    // The Temporal SDK's lines about an attempt activity name its delivery (from the workflow id) from the start,
    // and, once the activity has read the delivery, the other four ids (src/telemetry/activity-log-fields.ts).
    // (The worker's own lines around an activity, "Starting activity", "Activity resolved", name its workflow id.)
    // Every SDK line about a delivery — the worker's (activations, activity tasks), the workflows' (through the
    // logger sink) and the activities' — names it by its workflow id or a run id, and carries its five ids
    // (src/telemetry/temporal-logger.ts).
    assert.ok(deliveries.length >= 4, 'two deliveries of the first event, one of the second, a test delivery');
    const byDelivery = new Map(deliveries.map((d) => [d.id, d]));
    const runOf = new Map<string, string>();
    for (const { meta } of temporalEntries) {
      const workflowId =
        meta.workflowId ??
        (meta.start as { workflowExecution?: { workflowId?: string } })?.workflowExecution?.workflowId;
      const runId = meta.runId ?? meta.workflowRunId;
      if (typeof workflowId === 'string' && typeof runId === 'string' && workflowId.startsWith('delivery:'))
        runOf.set(runId, workflowId.slice('delivery:'.length));
    }
    assert.ok(runOf.size >= deliveries.length, 'a run per delivery, two for the retried one');
    const sdkAbout = temporalEntries.flatMap((e, i) => {
      const text = temporalLines[i]!;
      const id = [...byDelivery.keys(), ...runOf.keys()].find((key) => text.includes(key));
      return id === undefined ? [] : [{ ...e, delivery: byDelivery.get(runOf.get(id) ?? id)! }];
    });
    const messages = new Set(sdkAbout.map((e) => e.message));
    for (const m of ['Got workflow activation', 'Completed activation', 'Workflow started', 'Workflow completed'])
      assert.ok(messages.has(m), `SDK lines "${m}" about a delivery`);
    for (const m of ['Got activity task', 'Starting activity', 'Activity completed', 'Activity resolved'])
      assert.ok(messages.has(m), `SDK lines "${m}" about a delivery`);
    for (const e of sdkAbout) {
      const d = e.delivery;
      const where = `SDK line "${e.message}" (${String(e.meta.sdkComponent)})`;
      assert.deepEqual(
        [e.meta.deliveryId, e.meta.eventId, e.meta.subscriptionId, e.meta.integratorId],
        [d.id, d.eventId, d.subscriptionId, s.alice.integratorId],
        where,
      );
      const n = e.meta.attemptNumber;
      assert.ok(typeof n === 'number' && n >= 1 && n <= d.attemptCount + 1, `attemptNumber in ${where}`);
    }
    // The worker's own lines follow the attempt the run is at: the failing delivery's second, after the retry.
    const failRunLines = sdkAbout.filter(
      (e) => e.delivery.id === failDelivery!.id && e.message === 'Completed activation',
    );
    assert.deepEqual([...new Set(failRunLines.map((e) => e.meta.attemptNumber))].sort(), [1, 2]);

    const sdkAttemptLines = temporalEntries.filter(
      (e) =>
        e.meta.activityType === 'runAttempt' &&
        ['Activity started', 'Activity completed', 'Activity failed'].includes(e.message),
    );
    assert.ok(sdkAttemptLines.length >= 3, 'the SDK logged the attempt activities');
    for (const e of sdkAttemptLines)
      assert.ok(typeof e.meta.deliveryId === 'string', `deliveryId in SDK line ${e.message}`);
    const completed = sdkAttemptLines.filter(
      (e) => e.message === 'Activity completed' && e.meta.deliveryId === okDelivery!.id,
    );
    assert.ok(completed.length >= 1, 'an SDK line for the ok delivery');
    assert.deepEqual(
      FIVE_IDS.map((f) => completed[0]!.meta[f]),
      [okDelivery!.id, first, ok.id, s.alice.integratorId, 1],
    );
  });
});
