// Issue 33 item 3: a refused credential stays cheap without weakening anything — every one still gets the spec's
// error shape (the same 401 bytes, or the limiter's 429 with Retry-After), while the log stays bounded: the first
// refusal of a window with its cause, the others counted in one line, no request line per refusal.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildTestApp, closeTestApp } from '../helpers/app.js';
import { listen, registerIntegrator, type TestIntegrator } from '../helpers/integrators.js';
import { signedHeaders } from '../helpers/signed.js';

type Line = Record<string, unknown> & { msg: string };

const randomKey = (): Record<string, string> => ({
  'x-pubkey': `0x02${randomBytes(32).toString('hex')}`,
  'x-timestamp': String(Math.floor(Date.now() / 1000)),
  'x-signature': `0x30${randomBytes(69).toString('hex')}`,
});

describe('refused credentials', () => {
  let app: FastifyInstance;
  let acme: TestIntegrator;
  const lines: Line[] = [];

  before(async () => {
    const logStream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const text of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(text) as Line);
        done();
      },
    });
    ({ app } = await buildTestApp({ LOG_LEVEL: 'info', HERALD_AUTH_FAILURE_LIMIT: '150' }, undefined, logStream));
    acme = await registerIntegrator(app, await listen(app), 'refusals');
  });
  after(async () => await closeTestApp(app).catch(() => undefined));

  const get = (headers: Record<string, string>, remoteAddress = '198.51.100.9') =>
    app.inject({ method: 'GET', url: '/v1/credentials/current', headers, remoteAddress });

  it('answers each the same error shape, logs the first with its cause and counts the rest in one line', async () => {
    const from = lines.length; // after the registration's own lines
    // At once, as a flood comes: random keys share the key directory's refreshes (one sent alone waits for its own).
    const answers = await Promise.all(Array.from({ length: 200 }, () => get(randomKey())));
    for (const res of answers.slice(0, 150)) {
      assert.equal(res.statusCode, 401);
      assert.equal(res.headers['content-type'], 'application/json; charset=utf-8');
      assert.equal(res.body, '{"error":"unauthorized","status":401}');
    }
    for (const res of answers.slice(150)) {
      assert.equal(res.statusCode, 429);
      assert.equal(res.headers['content-type'], 'application/json; charset=utf-8');
      const wait = Number(res.headers['retry-after']);
      assert.ok(Number.isInteger(wait) && wait >= 1 && wait <= 60, String(res.headers['retry-after']));
      assert.deepEqual(res.json(), {
        error: 'too_many_auth_failures',
        status: 429,
        message: `too many failed authentications; retry in ${wait} s`,
      });
    }
    const wrongToken = await app.inject({
      method: 'GET',
      url: `/internal/v1/integrators/${acme.integratorId}`,
      headers: { authorization: 'Bearer not-the-admin-token' },
      remoteAddress: '203.0.113.50',
    });
    assert.equal(wrongToken.statusCode, 401);
    assert.equal(wrongToken.body, '{"error":"unauthorized","status":401}');

    const good = await get(signedHeaders(acme, 'GET', '/v1/credentials/current'));
    assert.equal(good.statusCode, 200, good.body);

    const refusedLines = lines.filter((l) => l.msg === 'unauthorized');
    assert.equal(refusedLines.length, 1, JSON.stringify(refusedLines));
    assert.match(String(refusedLines[0]!.cause), /^unknown or revoked key/);
    const requestLines = lines.slice(from).filter((l) => l.msg === 'request');
    assert.deepEqual(
      requestLines.map((l) => l.statusCode),
      [200],
      'a request line for the served request only, none per refusal',
    );

    await app.close(); // writes the window's count
    const more = lines.filter((l) => l.msg === 'unauthorized (more)');
    assert.equal(more.length, 1, JSON.stringify(more));
    assert.deepEqual(more[0]!.reasons, { unknown_key: 199, admin_token: 1 });
    assert.equal(more[0]!.count, 200);
  });
});
