// Issue 14 item 1: the API and the worker reach a Temporal that demands TLS and a client certificate. The test bed's
// dev server has no TLS of its own here, so a TLS-terminating proxy on loopback stands in front of it, with a
// throw-away CA made by this test: an honest test of the client side (CA, client certificate, server name).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type Server, type TLSSocket } from 'node:tls';
import { createClientCert, createTestCa } from '../../scripts/lib/test-ca.js';
import { cli } from '../helpers/cli.js';
import { startDeliveryStack } from '../helpers/delivery-stack.js';
import { requireEnv } from '../helpers/env.js';
import { assertTemporalRefused } from '../helpers/temporal-refusal.js';

interface TlsProxy {
  readonly port: number;
  /** Handshakes that presented a client certificate the CA signed. */
  readonly authorized: number;
  close(): Promise<void>;
}

/** Terminates TLS (mTLS required, ALPN h2 for gRPC) on 127.0.0.1 and pipes each connection to `upstream`. */
async function startTlsProxy(upstream: string, files: { cert: string; key: string; ca: string }): Promise<TlsProxy> {
  const [host, port] = upstream.split(':');
  let authorized = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer({
    cert: readFileSync(files.cert),
    key: readFileSync(files.key),
    ca: readFileSync(files.ca),
    requestCert: true,
    rejectUnauthorized: true,
    ALPNProtocols: ['h2'],
  });
  server.on('tlsClientError', () => {});
  server.on('secureConnection', (socket: TLSSocket) => {
    if (socket.authorized) authorized += 1;
    const up = connect(Number(port), host);
    for (const s of [socket, up]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => s.destroy());
    }
    socket.pipe(up).pipe(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    get authorized() {
      return authorized;
    },
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const s of sockets) s.destroy();
      await closed;
    },
  };
}

describe('Temporal behind TLS with client certificates (a TLS proxy on loopback)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'herald-temporal-tls-'));
  let proxy: TlsProxy;
  let tlsEnv: Record<string, string>;
  let rogue: { cert: string; key: string };

  before(async () => {
    const ca = createTestCa(join(dir, 'ca'));
    const client = createClientCert(join(dir, 'ca'), 'herald-client');
    createTestCa(join(dir, 'other'));
    rogue = createClientCert(join(dir, 'other'), 'rogue-client'); // signed by a CA the proxy does not trust
    proxy = await startTlsProxy(requireEnv('TEMPORAL_ADDRESS'), { cert: ca.leafCert, key: ca.leafKey, ca: ca.caCert });
    tlsEnv = {
      TEMPORAL_ADDRESS: `127.0.0.1:${proxy.port}`,
      TEMPORAL_TLS_CA_FILE: ca.caCert, // the only place this CA is trusted
      TEMPORAL_TLS_CERT_FILE: client.cert,
      TEMPORAL_TLS_KEY_FILE: client.key,
      TEMPORAL_TLS_SERVER_NAME: 'temporal.example.com', // the proxy's certificate names *.example.com, not 127.0.0.1
    };
  });
  after(async () => {
    await proxy?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('the API and the worker connect with mTLS, and a test send is attempted through them', async () => {
    const s = await startDeliveryStack({ env: tlsEnv });
    try {
      const ready = await s.app.inject({ method: 'GET', url: '/v1/health/ready' });
      assert.deepEqual(ready.json(), { status: 'ready', checks: { mongodb: 'up', temporal: 'up' } });
      const subscription = await s.subscribe('/over-tls');
      const sent = await s.alice.client.sendTestDelivery(subscription.id);
      assert.equal(sent.attempt?.outcome, 'succeeded');
      assert.equal(s.requestsTo('/over-tls').length, 1);
      assert.ok(proxy.authorized >= 2, `the API and the worker both came through the proxy (${proxy.authorized})`);
    } finally {
      await s.stop();
    }
  });

  it('the CLI reaches it with the same settings (herald temporal check), and not with a rogue certificate', async () => {
    const run = await cli(tlsEnv, ['temporal', 'check']);
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(JSON.parse(run.stdout).mtls, true);
    const rogueRun = await cli({ ...tlsEnv, TEMPORAL_TLS_CERT_FILE: rogue.cert, TEMPORAL_TLS_KEY_FILE: rogue.key }, [
      'temporal',
      'check',
      '--timeout',
      '5',
    ]);
    assert.equal(rogueRun.code, 1);
    assert.match(rogueRun.stderr, /Temporal/);
  });

  for (const [name, change] of [
    ['no client certificate', { TEMPORAL_TLS_CERT_FILE: '', TEMPORAL_TLS_KEY_FILE: '' }],
    [
      'a client certificate from another CA',
      () => ({ TEMPORAL_TLS_CERT_FILE: rogue.cert, TEMPORAL_TLS_KEY_FILE: rogue.key }),
    ],
    ['the wrong server name', { TEMPORAL_TLS_SERVER_NAME: 'temporal.example.org' }],
  ] as const) {
    it(`refuses ${name}: the API is not ready, the worker does not start`, async () => {
      await assertTemporalRefused({ ...tlsEnv, ...(typeof change === 'function' ? change() : change) });
    });
  }
});
