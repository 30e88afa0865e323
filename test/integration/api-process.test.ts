// The API process (src/process/server.ts) on SIGTERM: it stops accepting, finishes the request in flight and exits 0.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { connect, createServer, type AddressInfo } from 'node:net';
import { envOf, reap, spawnHerald } from '../helpers/child-process.js';
import { eventually } from '../helpers/deliveries.js';
import { testConfig } from '../helpers/env.js';
import { ADMIN_TOKEN } from '../helpers/integrators.js';

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('API process', { timeout: 120_000 }, () => {
  for (const slots of ['0', '4'])
    it(`on SIGTERM finishes the request in flight, refuses new ones and exits 0 (HERALD_API_WORKER_SLOTS=${slots})`, async (t) => {
      const port = await freePort();
      const base = `http://127.0.0.1:${port}`;
      // With slots, the API also runs its delivery worker (src/temporal/api-worker.ts): the signal stops it with the
      // API.
      const env = {
        HERALD_PORT: String(port),
        HERALD_HOST: '127.0.0.1',
        HERALD_API_WORKER_SLOTS: slots,
        LOG_LEVEL: 'info',
      };
      const api = spawnHerald('server', envOf(testConfig(), env));
      try {
        if (slots !== '0')
          await eventually(() => (api.output().includes('API delivery worker running') ? true : undefined), 60_000);
        await eventually(
          () =>
            fetch(`${base}/v1/health`).then(
              (r) => (r.ok ? true : undefined),
              () => undefined,
            ),
          60_000,
        );
        // A request whose body is still on its way when the signal comes.
        const body = JSON.stringify({ name: 'in-flight' });
        const socket = connect(port, '127.0.0.1');
        let response = '';
        socket.on('data', (chunk: Buffer) => (response += chunk.toString()));
        const ended = new Promise<void>((resolve) => socket.on('close', () => resolve()));
        socket.write(
          `POST /internal/v1/integrators HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer ${ADMIN_TOKEN}\r\n` +
            `content-type: application/json\r\ncontent-length: ${body.length}\r\nconnection: close\r\n\r\n` +
            body.slice(0, 5),
        );
        await new Promise((r) => setTimeout(r, 300));
        api.child.kill('SIGTERM');
        const termAt = Date.now();
        await new Promise((r) => setTimeout(r, 500));
        await assert.rejects(fetch(`${base}/v1/health`), 'a closing API accepts no new connection');
        socket.write(body.slice(5)); // not end(): a half-closed client gets no answer from Node's HTTP server
        await ended;
        assert.match(response, /^HTTP\/1\.1 201 /, response);

        const exit = await api.exited;
        t.diagnostic(`exited ${exit.at - termAt} ms after SIGTERM`);
        assert.deepEqual({ code: exit.code, signal: exit.signal }, { code: 0, signal: null }, api.output());
        assert.ok(exit.at - termAt < 10_000, `exited ${exit.at - termAt} ms after SIGTERM`);
        if (slots !== '0') assert.match(api.output(), /API delivery worker stopped/);
      } finally {
        await reap(api);
      }
    });
});
