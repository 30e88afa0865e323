// Endpoint health under an outage's load, against the real MongoDB-wire server: the failures that arrive while a
// write of the subscription's health document is in flight are counted together by the next write, and the rule
// (docs/subscriptions.md, "Endpoint health") pauses the endpoint exactly as it did with one write per failure.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { CommandStartedEvent } from 'mongodb';
import { createEndpointHealth } from '../../activities/endpoint-health.js';
import { createKeyVault } from '../../src/crypto/key-encryption.js';
import { loadMasterKey } from '../../src/crypto/master-key.js';
import { createAutoPause } from '../../src/delivery/auto-pause.js';
import type { SubscriptionDoc } from '../../src/store/documents.js';
import { createStore } from '../../src/store/index.js';
import { ensureIndexes } from '../../src/store/indexes.js';
import { createMongo } from '../../src/store/mongo.js';
import { seedSubscription } from '../helpers/deliveries.js';
import { testConfig } from '../helpers/env.js';

describe('endpoint health: coalesced writes (real MongoDB-wire server)', () => {
  const config = testConfig();
  const mongo = createMongo(config, { monitorCommands: true });
  const store = createStore(mongo.db);
  const vault = createKeyVault(loadMasterKey(config).key);
  const autoPause = createAutoPause({ store, fanOut: null });
  const policy = { pauseAfterMs: 60_000, minFailures: 20 };
  const health = createEndpointHealth({ health: store.health, autoPause, policy });
  const integratorId = randomUUID();
  /** Commands the driver sent on endpoint_health, by name. */
  const healthCommands: string[] = [];
  mongo.client.on('commandStarted', (e: CommandStartedEvent) => {
    const target = e.command[e.commandName] as unknown;
    if (target === 'endpoint_health') healthCommands.push(e.commandName);
  });

  before(async () => ensureIndexes(mongo.db));
  after(async () => {
    await mongo.db.dropDatabase();
    await mongo.client.close();
  });

  const newSubscription = async (): Promise<SubscriptionDoc> =>
    (await seedSubscription(store, vault, { integratorId, url: 'https://hooks.example.com/h' })).subscription;
  const at = (t0: number, ms: number) => new Date(t0 + ms);
  /** `n` failed attempts observed at once (as `n` concurrent activities do), the i-th at t0 + offset(i). */
  const failAtOnce = (sub: SubscriptionDoc, n: number, t0: number, offset: (i: number) => number) =>
    Promise.all(Array.from({ length: n }, (_, i) => health.observe(sub, 'http_error', at(t0, offset(i)))));

  it('counts every failure of a burst in fewer writes than failures, from the first failure on', async () => {
    const sub = await newSubscription();
    const t0 = Date.now();
    healthCommands.length = 0;
    const paused = await failAtOnce(sub, 60, t0, (i) => i);
    const doc = await store.health.find(sub._id);
    assert.equal(doc?.failures, 60, 'every failure counted');
    assert.equal(doc?.failingSince?.getTime(), t0, 'the failing period starts at the first failure');
    const writes = healthCommands.filter((c) => c === 'findAndModify').length;
    assert.ok(writes >= 1 && writes < 60, `${writes} counting writes for 60 failures`);
    assert.deepEqual(new Set(paused), new Set([false]), 'failing for less than pauseAfterMs: not paused');
    assert.equal((await store.subscriptions.findById(sub._id))?.status, 'enabled');
  });

  it('pauses once both thresholds are met, as one write per failure did', async () => {
    const sub = await newSubscription();
    const t0 = Date.now() - 120_000;
    // 19 failures over two minutes: long enough, but one short of minFailures.
    assert.deepEqual(new Set(await failAtOnce(sub, 19, t0, (i) => i * 6_000)), new Set([false]));
    assert.equal((await store.subscriptions.findById(sub._id))?.status, 'enabled', '19 < minFailures');
    // The 20th and 21st together: the write that counts them makes 21, failing for ≥ pauseAfterMs.
    const paused = await failAtOnce(sub, 2, t0, () => 120_000);
    assert.ok(paused.includes(true), 'paused by the burst that crossed minFailures');
    const now = await store.subscriptions.findById(sub._id);
    assert.equal(now?.status, 'paused');
    assert.equal(now?.pausedReason, 'endpoint_unhealthy');
    assert.equal((await store.health.find(sub._id))?.failures, 21);
  });

  it('a 2xx between failures ends the failing period in the order they were observed', async () => {
    const sub = await newSubscription();
    const t0 = Date.now();
    // Failures, then a 2xx, then more failures, all asked for at once: written in that order.
    const before2xx = failAtOnce(sub, 5, t0, (i) => i);
    const ok = health.observe(sub, 'succeeded', at(t0, 10));
    const after2xx = failAtOnce(sub, 3, t0, (i) => 20 + i);
    await Promise.all([before2xx, ok, after2xx]);
    const doc = await store.health.find(sub._id);
    assert.equal(doc?.failures, 3, 'only the failures after the 2xx count');
    assert.equal(doc?.failingSince?.getTime(), t0 + 20, 'the failing period opened after the 2xx');
    assert.equal(doc?.lastSuccessAt?.getTime(), t0 + 10);
  });
});
