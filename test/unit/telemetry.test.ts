// Pure pieces of telemetry: the metrics ports' config, bounded label values, auth failure reasons, the listener.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig } from '../../src/config.js';
import { authFailureReason } from '../../src/telemetry/auth-reason.js';
import { createHeraldMetrics, statusClass } from '../../src/telemetry/metrics.js';
import { startMetricsServer } from '../../src/telemetry/metrics-server.js';
import { parseSamples, sum } from '../helpers/prom-text.js';

describe('telemetry', () => {
  it('listens for scrapes on 9464 (API), 9465 (worker), 9466 (Temporal SDK) on loopback unless told otherwise', () => {
    const c = loadConfig({});
    assert.deepEqual(
      [c.HERALD_METRICS_HOST, c.HERALD_METRICS_PORT, c.HERALD_WORKER_METRICS_PORT, c.HERALD_TEMPORAL_METRICS_PORT],
      ['127.0.0.1', 9464, 9465, 9466],
    );
    assert.equal(c.OTEL_EXPORTER_OTLP_ENDPOINT, undefined);
    const off = loadConfig({
      HERALD_METRICS_PORT: 'off',
      HERALD_WORKER_METRICS_PORT: '',
      HERALD_TEMPORAL_METRICS_PORT: '0',
    });
    assert.deepEqual(
      [off.HERALD_METRICS_PORT, off.HERALD_WORKER_METRICS_PORT, off.HERALD_TEMPORAL_METRICS_PORT],
      [null, null, 0],
    );
    assert.throws(() => loadConfig({ HERALD_WORKER_METRICS_PORT: '70000' }), /HERALD_WORKER_METRICS_PORT/);
  });

  it('maps every authenticator cause to a fixed reason', () => {
    const causes: [string, string][] = [
      ['missing header', 'missing_header'],
      ['X-Pubkey is not 0x + a 33-byte compressed key', 'malformed_pubkey'],
      ['X-Timestamp is not decimal Unix seconds', 'malformed_timestamp'],
      ['X-Timestamp is 75 s from server time', 'stale_timestamp'],
      ['X-Signature is not 0x + DER hex', 'malformed_signature'],
      ['unknown or revoked key', 'unknown_key'],
      ['bad signature', 'bad_signature'],
      ['replayed request', 'replayed'],
      ['something new', 'other'],
    ];
    for (const [cause, reason] of causes) assert.equal(authFailureReason(cause), reason, cause);
  });

  it('keeps label values bounded: status classes, and `other` for anything outside the vocabulary', async () => {
    assert.deepEqual([200, 302, 404, 503, null, 42].map(statusClass), ['2xx', '3xx', '4xx', '5xx', 'none', 'none']);
    const m = createHeraldMetrics({ defaultMetrics: false });
    m.deliveryFinished('cancelled', 'subscription_deleted');
    m.deliveryFinished('cancelled', '3f1c2a9e-0000-4000-8000-000000000000');
    m.authFailed('Bad Signature!');
    const samples = parseSamples(await m.registry!.metrics());
    assert.equal(sum(samples, 'herald_deliveries_finished_total', { terminal_reason: 'subscription_deleted' }), 1);
    assert.equal(sum(samples, 'herald_deliveries_finished_total', { terminal_reason: 'other' }), 1);
    assert.equal(sum(samples, 'herald_auth_failures_total', { reason: 'other' }), 1);
  });

  it('serves GET /metrics only, and 500 without detail when collecting fails', async () => {
    let fail = false;
    const server = await startMetricsServer({
      host: '127.0.0.1',
      port: 0,
      contentType: 'text/plain; version=0.0.4',
      collect: async () => {
        if (fail) throw new Error('secret detail');
        return 'x_total 1\n';
      },
    });
    try {
      const ok = await fetch(server.url);
      assert.equal(ok.status, 200);
      assert.equal(await ok.text(), 'x_total 1\n');
      assert.equal((await fetch(server.url.replace('/metrics', '/'))).status, 404);
      assert.equal((await fetch(server.url, { method: 'POST' })).status, 404);
      fail = true;
      const broken = await fetch(server.url);
      assert.equal(broken.status, 500);
      assert.doesNotMatch(await broken.text(), /secret/);
    } finally {
      await server.close();
    }
  });
});
