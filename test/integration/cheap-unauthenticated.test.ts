// Issue 33 item 3: unauthenticated requests stay cheap. An unknown key is refused before the body is read; random keys
// cost no query of their own (they share the key directory's refreshes), and a key registered elsewhere meanwhile is
// still served on its first request; readiness pings MongoDB and Temporal at most once a second
// whoever asks; a client that sends its request slowly, or not at all, is cut off.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { CommandStartedEvent } from 'mongodb';
import { buildApp } from '../../src/process/app.js';
import { closeTestApp } from '../helpers/app.js';
import { testConfig } from '../helpers/env.js';
import { compressedHexOf } from '../../src/crypto/p256.js';
import { listen, newKeyPair, registerIntegrator, type TestIntegrator } from '../helpers/integrators.js';
import { signedHeaders } from '../helpers/signed.js';

const randomKey = (): Record<string, string> => ({
  'x-pubkey': `0x02${randomBytes(32).toString('hex')}`,
  'x-timestamp': String(Math.floor(Date.now() / 1000)),
  'x-signature': `0x30${randomBytes(69).toString('hex')}`,
});

/**
 * Opens a connection, lets `talk` write to it, and resolves with what the server answered once it closed the
 * connection or `ms` passed (`closed` says which).
 */
function exchange(port: number, talk: (write: (s: string) => void) => void, ms: number) {
  return new Promise<{ data: string; closed: boolean }>((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let data = '';
    const done = (closed: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ data, closed });
    };
    const timer = setTimeout(() => done(false), ms);
    socket.on('data', (chunk) => (data += chunk.toString()));
    socket.on('close', () => done(true));
    socket.on('error', () => undefined);
    talk((s) => socket.write(s));
  });
}

const head = (method: string, path: string, headers: Record<string, string>): string =>
  `${method} ${path} HTTP/1.1\r\nHost: herald\r\n${Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('')}\r\n`;

describe('unauthenticated requests stay cheap', () => {
  let app: FastifyInstance;
  let port: number;
  let acme: TestIntegrator;
  const commands: string[] = [];

  before(async () => {
    app = await buildApp({
      config: testConfig(),
      logger: false,
      mongoOptions: { monitorCommands: true },
    });
    app.mongo.client.on('commandStarted', (e: CommandStartedEvent) =>
      commands.push(e.commandName === 'find' ? `find ${String(e.command.find)}` : e.commandName),
    );
    const baseUrl = await listen(app);
    port = Number(new URL(baseUrl).port);
    acme = await registerIntegrator(app, baseUrl);
  });
  after(() => closeTestApp(app));

  const count = (name: string): number => commands.filter((c) => c === name).length;

  it('refuses an unknown key before reading the body; a known key waits for its body', async () => {
    const path = '/v1/webhooks/subscriptions';
    // Headers announcing a 100,000-byte body, and only its first bytes.
    const partial = (headers: Record<string, string>) => (write: (s: string) => void) =>
      write(
        head('POST', path, { ...headers, 'content-type': 'application/json', 'content-length': '100000' }) + '{"url":',
      );
    const unknown = await exchange(port, partial(randomKey()), 3_000);
    assert.match(unknown.data, /^HTTP\/1\.1 401 /, unknown.data || '(no answer within 3 s)');
    const known = await exchange(port, partial(signedHeaders(acme, 'POST', path)), 500);
    assert.equal(known.data, '', 'the signature covers the body: a known key is only answered once it is in');
  });

  it('shares one refresh among random keys, and serves a key registered meanwhile by another instance', async () => {
    assert.equal((await acme.client.credential()).integratorId, acme.integratorId);
    const before = count('find integrator_keys');
    const started = Date.now();
    // Registered straight in the database, as another instance would, with no word to this one.
    const stranger = newKeyPair().privateKey;
    const { _id: integratorId } = await app.store.integrators.create('stranger');
    await app.store.integrators.addKey(integratorId, compressedHexOf(stranger));
    const signer = { privateKey: stranger, pubkey: `0x${compressedHexOf(stranger)}` };
    for (let i = 0; i < 300; i += 50) {
      const answers = await Promise.all(
        Array.from({ length: 50 }, () =>
          app.inject({ method: 'GET', url: '/v1/credentials/current', headers: randomKey() }),
        ),
      );
      for (const res of answers)
        assert.deepEqual([res.statusCode, res.json()], [401, { error: 'unauthorized', status: 401 }]);
      if (i === 100) {
        const theirs = await app.inject({
          method: 'GET',
          url: '/v1/credentials/current',
          headers: signedHeaders(signer, 'GET', '/v1/credentials/current'),
        });
        assert.equal(theirs.statusCode, 200, theirs.body);
        assert.equal(theirs.json().integratorId, integratorId);
      }
    }
    const queries = count('find integrator_keys') - before;
    // One refresh per 250 ms at most, and the one in flight.
    const allowed = 2 + Math.ceil((Date.now() - started) / 250);
    assert.ok(queries <= allowed, `${queries} key queries for 300 random keys (at most ${allowed})`);
    assert.equal((await acme.client.credential()).integratorId, acme.integratorId);
  });

  it('answers readiness from a probe made at most once a second', async () => {
    let temporalPings = 0;
    const ping = app.temporal.ping.bind(app.temporal);
    app.temporal.ping = (timeoutMs?: number) => {
      temporalPings++;
      return ping(timeoutMs);
    };
    const mongoPings = count('ping');
    const ready = () => app.inject({ method: 'GET', url: '/v1/health/ready' });
    const answers = await Promise.all(Array.from({ length: 30 }, ready));
    for (let i = 0; i < 30; i++) answers.push(await ready());
    for (const res of answers)
      assert.deepEqual(res.json(), { status: 'ready', checks: { mongodb: 'up', temporal: 'up' } });
    assert.equal(temporalPings, 1, 'one Temporal probe for 60 calls');
    assert.equal(count('ping') - mongoPings, 1, 'one MongoDB probe for 60 calls');
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    assert.equal((await ready()).statusCode, 200);
    assert.equal(temporalPings, 2, 'probed again after a second');
  });
});

describe('connection and request timeouts', () => {
  let app: FastifyInstance;
  let port: number;

  before(async () => {
    const config = testConfig({ HERALD_CONNECTION_TIMEOUT_MS: '300', HERALD_REQUEST_TIMEOUT_MS: '1000' });
    app = await buildApp({ config, logger: false });
    port = Number(new URL(await listen(app)).port);
  });
  after(() => closeTestApp(app));

  it('closes a connection that goes silent in the middle of its headers, and serves one that does not', async () => {
    const prompt = await exchange(port, (write) => write(head('GET', '/v1/health', { connection: 'close' })), 3_000);
    assert.match(prompt.data, /^HTTP\/1\.1 200 /);
    const res = await exchange(port, (write) => write('GET /v1/health HTTP/1.1\r\nHost: herald\r\n'), 3_000);
    assert.equal(res.closed, true, 'still open after 3 s');
  });

  it('cuts off a client that drips its headers a byte at a time', async () => {
    let timer: NodeJS.Timeout | undefined;
    const res = await exchange(
      port,
      (write) => {
        write('GET /v1/health HTTP/1.1\r\nHost: herald\r\nX-Slow: ');
        timer = setInterval(() => write('a'), 100);
      },
      4_000,
    );
    clearInterval(timer);
    assert.equal(res.closed, true, 'still open after 4 s');
  });
});
