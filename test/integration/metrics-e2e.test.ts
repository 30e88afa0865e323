// Metrics end to end: deliveries through the real stack (API, worker, dev server, HTTPS receiver), then /metrics of
// the API and of the worker scraped and checked against what happened — counters, histograms, lag and gauges.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Registry } from 'prom-client';
import { registerBacklogGauges } from '../../src/telemetry/backlog.js';
import { eventually, lifecycleEvent } from '../helpers/deliveries.js';
import { startDeliveryStack, type DeliveryStack } from '../helpers/delivery-stack.js';
import { uniqueDbName } from '../helpers/env.js';
import type { Subscription } from '../../src/client/herald-client.js';
import { metricsIn, opsExpressions } from '../helpers/ops-files.js';
import { freePort, metricNames, parseSamples, scrape, sum, type Sample } from '../helpers/prom-text.js';

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;

describe('metrics end to end (API and worker /metrics)', () => {
  let s: DeliveryStack;
  let apiUrl: string;
  let workerUrl: string;
  let late: Subscription; // made first: the late event must not be older than the subscription it matches
  before(async () => {
    s = await startDeliveryStack({
      env: {
        HERALD_METRICS_PORT: '0',
        HERALD_WORKER_METRICS_PORT: '0',
        HERALD_TEMPORAL_METRICS_PORT: String(await freePort()),
      },
    });
    apiUrl = s.app.metricsUrl() ?? assert.fail('API metrics listener');
    workerUrl = s.worker?.metricsUrl ?? assert.fail('worker metrics listener');
    late = await s.subscribe('/m-late', ['customer.rejected']);
  });
  after(async () => s?.stop());

  const workerSamples = async (): Promise<Sample[]> => (await scrape(workerUrl)).samples;
  const deliveriesOf = async (eventIds: string[]) => (await Promise.all(eventIds.map((e) => s.deliveriesOf(e)))).flat();

  it('counts events, deliveries, attempts and lag as they happened; retries lag from their due time', async () => {
    s.answers.set('/m-flaky', 500);
    const ok = await s.subscribe('/m-ok');
    await s.subscribe('/m-flaky');
    const eventIds = [await s.publish(), await s.publish()];
    // 2 events × 2 subscriptions: the /m-ok ones succeed, the /m-flaky ones fail once and wait 30 s.
    await eventually(async () => {
      const all = await deliveriesOf(eventIds);
      const done = all.filter((d) => d.subscriptionId === ok.id && d.status === 'succeeded').length === 2;
      const waiting = all.filter((d) => d.subscriptionId !== ok.id && d.attemptCount === 1).length === 2;
      return all.length === 4 && done && waiting ? true : undefined;
    });

    const api = await scrape(apiUrl);
    assert.match(api.contentType, /^text\/plain; version=0\.0\.4/);
    assert.equal(sum(api.samples, 'herald_events_ingested_total'), 2);
    assert.equal(sum(api.samples, 'herald_deliveries_created_total'), 4);
    const ingestRoute = { method: 'POST', route: '/internal/v1/events', status_code: '201' };
    assert.equal(sum(api.samples, 'herald_http_request_duration_seconds_count', ingestRoute), 2);

    let w = await workerSamples();
    assert.equal(sum(w, 'herald_attempts_total', { outcome: 'succeeded', status_class: '2xx' }), 2);
    assert.equal(sum(w, 'herald_attempts_total', { outcome: 'http_error', status_class: '5xx' }), 2);
    assert.equal(sum(w, 'herald_attempt_duration_seconds_count'), 4);
    assert.equal(sum(w, 'herald_delivery_lag_seconds_count', { attempt: 'first' }), 4);
    const firstLag = sum(w, 'herald_delivery_lag_seconds_sum', { attempt: 'first' });
    assert.ok(firstLag > 0 && firstLag < 4 * 10, `first attempts start within seconds of ingest (sum ${firstLag})`);
    assert.equal(sum(w, 'herald_deliveries_finished_total', { status: 'succeeded' }), 2);
    assert.equal(sum(w, 'herald_deliveries_waiting_retry'), 2);
    assert.equal(sum(w, 'herald_deliveries_overdue'), 0);
    // The Temporal SDK's own metrics are on the same endpoint.
    assert.ok(sum(w, 'temporal_num_pollers', { poller_type: 'workflow_task' }) > 0, 'Temporal SDK metrics proxied');
    assert.ok(sum(w, 'temporal_activity_execution_latency_count', { activity_type: 'runAttempt' }) >= 4);
    // The poll split (src/temporal/herald-worker.ts): half the 20 workflow-task polls on the shared queue, where every
    // delivery's first task waits (the SDK's default: 4 of 20; docs/scale-and-size.md, "The poll split and the workflow
    // cache").
    const polls = await eventually(async () => {
      const now = await workerSamples();
      const shared = sum(now, 'temporal_num_pollers', { poller_type: 'workflow_task' });
      const sticky = sum(now, 'temporal_num_pollers', { poller_type: 'sticky_workflow_task' });
      return shared === 10 && sticky === 10 ? { shared, sticky } : undefined;
    }, 15_000);
    assert.deepEqual(polls, { shared: 10, sticky: 10 });

    // The retries, due ~30 s after the first attempts, succeed; their lag counts from the due time, not the ingest.
    s.answers.set('/m-flaky', 204);
    await eventually(async () => {
      const all = await deliveriesOf(eventIds);
      return all.every((d) => d.status === 'succeeded') ? true : undefined;
    }, 60_000);
    w = await eventually(async () => {
      const now = await workerSamples();
      return sum(now, 'herald_deliveries_waiting_retry') === 0 ? now : undefined; // counts are cached ≤ 15 s
    }, 30_000);
    assert.equal(sum(w, 'herald_delivery_lag_seconds_count', { attempt: 'retry' }), 2);
    const retryLag = sum(w, 'herald_delivery_lag_seconds_sum', { attempt: 'retry' });
    assert.ok(retryLag >= 0 && retryLag < 2 * 10, `retries start within seconds of their due time (sum ${retryLag})`);
    assert.equal(sum(w, 'herald_delivery_lag_seconds_bucket', { attempt: 'retry', le: '10' }), 2);
    assert.equal(sum(w, 'herald_deliveries_finished_total', { status: 'succeeded', terminal_reason: 'none' }), 4);
    assert.equal(sum(w, 'herald_attempts_total'), 6);
  });

  it('counts authentication failures by reason and labels requests by route pattern, never by id', async () => {
    const unsigned = await s.app.inject({ method: 'GET', url: '/v1/webhooks/subscriptions' });
    assert.equal(unsigned.statusCode, 401);
    const badAdmin = await s.app.inject({
      method: 'POST',
      url: '/internal/v1/integrators',
      payload: {},
      headers: { authorization: 'Bearer wrong-token-0123456789' },
    });
    assert.equal(badAdmin.statusCode, 401);
    const sub = await s.subscribe('/m-route');
    await s.alice.client.getSubscription(sub.id);

    const api = await scrape(apiUrl);
    assert.equal(sum(api.samples, 'herald_auth_failures_total', { reason: 'missing_header' }), 1);
    assert.equal(sum(api.samples, 'herald_auth_failures_total', { reason: 'admin_token' }), 1);
    const byPattern = { method: 'GET', route: '/v1/webhooks/subscriptions/:subscription_id', status_code: '200' };
    assert.equal(sum(api.samples, 'herald_http_request_duration_seconds_count', byPattern), 1);
    for (const text of [api.text, (await scrape(workerUrl)).text])
      for (const sample of parseSamples(text))
        assert.doesNotMatch(JSON.stringify(sample.labels), UUID, `no id as a label value: ${sample.name}`);
  });

  it('counts a first attempt that did not find its event stored (the API stores it after the hand-off)', async () => {
    const event = lifecycleEvent(s.alice.integratorId, 'customer.rejected');
    const doc = { ...event, createdAt: new Date(Math.max(Date.now(), Date.parse(late.createdAt) + 1000)) };
    // As the ingest route does, but the event is stored only once the first attempts have given up waiting for it
    // (an API slowed or stopped between starting the workflows and storing the event).
    const handedOff = await s.app.deliveryService.fanOut.handOff(doc);
    const started = handedOff.length; // /m-late and the earlier subscriptions to every type
    assert.ok(started >= 1);
    const waited = await eventually(async () => {
      const now = await workerSamples();
      return sum(now, 'herald_first_attempt_event_waits_total', { result: 'not_stored' }) >= 1 ? now : undefined;
    }, 30_000);
    assert.equal(s.requestsTo('/m-late').length, 0, 'nothing sent without the event');
    assert.equal((await s.deliveriesOf(event._id)).length, 0, 'no delivery document before the first attempt');
    const finishedBefore = sum(waited, 'herald_deliveries_finished_total', { status: 'succeeded' });
    await s.app.store.events.insertOnce(doc, undefined, handedOff);
    const delivered = await eventually(async () => {
      const found = await s.deliveriesOf(event._id);
      return found.length === started && found.every((d) => d.status === 'succeeded') ? found : undefined;
    }, 60_000);
    assert.ok(delivered.every((d) => d.attemptCount === 1));
    const w = await eventually(async () => {
      const now = await workerSamples();
      const finished = sum(now, 'herald_deliveries_finished_total', { status: 'succeeded' });
      return finished === finishedBefore + started ? now : undefined;
    });
    assert.ok(sum(w, 'herald_first_attempt_event_waits_total', { result: 'not_stored' }) >= 1);
    assert.equal(s.requestsTo('/m-late').length, 1);
  });

  it('has every metric the ops/ alert rules and dashboard name (after the deliveries above)', async () => {
    const names = new Set([
      ...metricNames((await scrape(apiUrl)).text),
      ...metricNames((await scrape(workerUrl)).text),
    ]);
    const missing = opsExpressions().flatMap(({ where, expr }) =>
      metricsIn(expr)
        .filter((m) => !names.has(m))
        .map((m) => `${where}: ${m}`),
    );
    assert.deepEqual(missing, []);
  });

  it('counts a delivery past its schedule as overdue', async () => {
    const db = s.app.mongo.client.db(uniqueDbName('overdue'));
    try {
      const late = new Date(Date.now() - 5 * 60_000);
      await db.collection('deliveries').insertMany([
        { _id: 'late' as never, status: 'pending', attemptCount: 1, nextAttemptAt: late },
        { _id: 'due-later' as never, status: 'pending', attemptCount: 1, nextAttemptAt: new Date(Date.now() + 60_000) },
        { _id: 'done' as never, status: 'succeeded', attemptCount: 1, nextAttemptAt: late },
      ]);
      const registry = new Registry();
      registerBacklogGauges(registry, db);
      const samples = parseSamples(await registry.metrics());
      assert.equal(sum(samples, 'herald_deliveries_overdue'), 1);
      assert.equal(sum(samples, 'herald_deliveries_waiting_retry'), 2);
    } finally {
      await db.dropDatabase();
    }
  });
});
