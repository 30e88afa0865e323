// Pure pieces of telemetry: the metrics ports' config, bounded label values, auth failure reasons, the listener.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { ConfigError, loadConfig } from '../../src/config.js';
import { authFailureReason } from '../../src/telemetry/auth-reason.js';
import { createHeraldMetrics, statusClass } from '../../src/telemetry/metrics.js';
import { portTakenError, startMetricsServer } from '../../src/telemetry/metrics-server.js';
import { parseSamples, sum } from '../helpers/prom-text.js';

describe('telemetry', () => {
  it('listens for scrapes on 9464 (API), 9465 (worker), a free port (Temporal SDK) on loopback unless told otherwise', () => {
    const c = loadConfig({});
    assert.deepEqual(
      [c.HERALD_METRICS_HOST, c.HERALD_METRICS_PORT, c.HERALD_WORKER_METRICS_PORT, c.HERALD_TEMPORAL_METRICS_PORT],
      ['127.0.0.1', 9464, 9465, 0],
    );
    assert.equal(c.OTEL_EXPORTER_OTLP_ENDPOINT, undefined);
    const off = loadConfig({
      HERALD_METRICS_PORT: 'off',
      HERALD_WORKER_METRICS_PORT: '',
      HERALD_TEMPORAL_METRICS_PORT: '9466',
    });
    assert.deepEqual(
      [off.HERALD_METRICS_PORT, off.HERALD_WORKER_METRICS_PORT, off.HERALD_TEMPORAL_METRICS_PORT],
      [null, null, 9466],
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
      setting: 'HERALD_WORKER_METRICS_PORT',
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

  it('names the variable in one line when its port is taken, by Node or by the SDK', async () => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const { port } = holder.address() as { port: number };
    try {
      const err: unknown = await startMetricsServer({
        setting: 'HERALD_WORKER_METRICS_PORT',
        host: '127.0.0.1',
        port,
        contentType: 'text/plain',
        collect: async () => '',
      }).then(
        (s) => s.close().then(() => assert.fail('listened on a taken port')),
        (e: unknown) => e,
      );
      assert.ok(err instanceof ConfigError);
      assert.equal(
        err.message,
        `HERALD_WORKER_METRICS_PORT: 127.0.0.1:${port} is already in use; set another port, 0 for a free one, or off`,
      );
    } finally {
      await new Promise((resolve) => holder.close(resolve));
    }
    // The SDK's Rust core reports a taken port in the OS's words; anything else passes through untouched.
    const sdk = new Error('Failed to start prometheus metrics exporter: Address already in use (os error 98)');
    assert.match(
      String(portTakenError('HERALD_TEMPORAL_METRICS_PORT', '127.0.0.1:9466', sdk)),
      /^ConfigError: HERALD_TEMPORAL_METRICS_PORT: 127\.0\.0\.1:9466 is already in use;[^\n]*$/,
    );
    const other = new Error('permission denied');
    assert.equal(portTakenError('HERALD_TEMPORAL_METRICS_PORT', '127.0.0.1:9466', other), other);
  });
});
