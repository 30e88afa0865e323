// Issue 20 by example: event `data` carried as the producer's exact text, refusals that name the JSON path, the
// nesting bound on every route that takes a body (after authentication), and the body/query/header limits.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import fc from 'fast-check';
import { JSON_DEPTH_LIMIT } from '../../src/api/json-body.js';
import { HeraldClient } from '../../src/client/herald-client.js';
import { requestSigningInput, signRequest } from '../../src/crypto/request-signature.js';
import { buildTestApp, closeTestApp } from '../helpers/app.js';
import { sampleEvent } from '../helpers/events.js';
import { adminHeaders, listen, registerIntegrator, type TestIntegrator } from '../helpers/integrators.js';
import { eventBodyText, jsonValueText, nestedJsonText, nestedText } from '../helpers/json-text.js';

/** Every spelling a parse-and-re-encode would change: digits past 2^53, -0, exponent case, trailing zeros,
 * escapes, a lone surrogate, integer-like keys after others (JSON.parse puts them first), an empty key, spacing. */
const DATA = String.raw`{"amount":123456789012345678901234567890, "negZero":-0,"exp":1E+2,"frac":0.10,"esc":"\u00e9\/\ud800","b":"x","2":"b","1":"a","":[ ]}`;

const eventLayoutPlain = { dataFirst: false, before: '', after: '' };

/** (method, url) of every registered route, read from Fastify's route tree. */
function routesOf(app: FastifyInstance): Array<{ method: string; url: string }> {
  const routes: Array<{ method: string; url: string }> = [];
  const path: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const m = /^([│ ]*)[├└]── (\S+)(?: \(([A-Z, ]+)\))?$/.exec(line);
    if (!m) continue;
    path.length = m[1]!.length / 4;
    path.push(m[2]!);
    for (const method of m[3]?.split(', ') ?? []) routes.push({ method, url: path.join('') });
  }
  return routes;
}

describe('payload fidelity and limits (real app)', () => {
  let app: FastifyInstance;
  let baseUrl: string;
  let acme: TestIntegrator;
  let listedText = '';

  before(async () => {
    ({ app } = await buildTestApp());
    baseUrl = await listen(app);
    acme = await registerIntegrator(app, baseUrl);
  });
  after(async () => closeTestApp(app));

  const post = async (body: string | Buffer) => {
    const res = await fetch(`${baseUrl}/internal/v1/events`, {
      method: 'POST',
      headers: { ...adminHeaders, 'content-type': 'application/json' },
      body,
    });
    return { status: res.status, text: await res.text() };
  };
  const eventWith = (data: string) => {
    const { data: _d, ...fields } = sampleEvent(acme.integratorId);
    return { fields, text: eventBodyText(fields, data, { dataFirst: false, before: ' ', after: '\n' }) };
  };

  it('keeps data as the producer wrote it: answer, stored body, listing and re-submission', async () => {
    const { fields, text } = eventWith(DATA);
    const created = await post(text);
    assert.equal(created.status, 201, created.text);
    assert.ok(created.text.includes(`,"data":${DATA},"createdAt":"`), created.text);
    const stored = await app.store.events.findById(fields.id as string);
    assert.equal(stored?.body, `${JSON.stringify(fields).slice(0, -1)},"data":${DATA}}`);

    const capture: typeof fetch = async (input, init) => {
      const res = await fetch(input, init);
      listedText = await res.clone().text();
      return res;
    };
    const client = new HeraldClient({ baseUrl, privateKey: acme.privateKey, fetch: capture });
    await client.listEventsPage({ accountId: fields.accountId as string });
    assert.ok(listedText.includes(`,"data":${DATA},"createdAt":"`), listedText);

    // Same bytes: the same event. The same value re-encoded is other content (digits, order, escapes differ).
    assert.equal((await post(text)).status, 200);
    const reencoded = await post(eventBodyText(fields, JSON.stringify(JSON.parse(DATA)), eventLayoutPlain));
    assert.equal(reencoded.status, 409, reencoded.text);
  });

  it('refuses what it cannot carry with a 400 naming the JSON path, and stores nothing', async () => {
    const cases: Array<[string, string | Buffer, RegExp]> = [
      [
        'overflowing number',
        '{"amounts":[1, -1e400]}',
        /^body\.data\.amounts\[1\]: a number beyond the range of a 64-bit float/,
      ],
      [
        'invalid UTF-8',
        Buffer.from([...Buffer.from('{"note":"a'), 0xff, ...Buffer.from('b"}')]),
        /^body\.data\.note: not valid UTF-8$/,
      ],
      [
        'a raw lone surrogate',
        Buffer.from([...Buffer.from('{"k":["'), 0xed, 0xa0, 0x80, ...Buffer.from('"]}')]),
        /^body\.data\.k\[0\]: not valid UTF-8$/,
      ],
      [
        '3,000 levels (was a 500)',
        nestedText(3000, [true, false], '1'),
        new RegExp(
          `^body\\.data\\[0\\]\\.k(\\[0\\]\\.k){30}.*: arrays and objects nested deeper than ${JSON_DEPTH_LIMIT} levels \\(the limit is ${JSON_DEPTH_LIMIT}`,
        ),
      ],
    ];
    for (const [what, data, message] of cases) {
      const { fields } = eventWith('null');
      const head = Buffer.from(`${JSON.stringify(fields).slice(0, -1)},"data":`);
      const res = await post(Buffer.concat([head, Buffer.from(data), Buffer.from('}')]));
      assert.equal(res.status, 400, `${what}: ${res.text}`);
      const body = JSON.parse(res.text) as { error: string; status: number; message: string };
      assert.equal(body.error, 'invalid_request', what);
      assert.match(body.message, message, what);
      assert.equal(await app.store.events.collection.countDocuments({ _id: fields.id as string }), 0, what);
    }
    // A genuine U+FFFD, sent as valid UTF-8, is carried like any other character.
    const { text } = eventWith('"\uFFFD"');
    assert.equal((await post(text)).status, 201);
  });

  /** Every route that takes a body, with fresh ids in its path. */
  const bodyRoutes = () =>
    routesOf(app)
      // The portal's session routes read no body, and refuse a request without their credential before reading one.
      .filter((r) => ['POST', 'PUT', 'PATCH', 'DELETE'].includes(r.method) && r.url !== '/portal/session')
      .map(({ method, url }) => ({ method, url, target: url.replace(/:[a-z_]+/gi, () => randomUUID()) }));

  /** Sends a JSON body to a route: signed by acme (/v1) or with the admin token (/internal), or with no credentials. */
  const sendBody = (method: string, target: string, body: string, credentials = true) => {
    const timestamp = String(Math.floor(Date.now() / 1000));
    const signature = () =>
      signRequest(acme.privateKey, requestSigningInput(timestamp, method, target, Buffer.from(body)));
    const auth = !credentials
      ? {}
      : target.startsWith('/v1/')
        ? { 'x-pubkey': acme.pubkey, 'x-timestamp': timestamp, 'x-signature': signature() }
        : adminHeaders;
    return app.inject({
      method: method as 'POST',
      url: target,
      headers: { ...auth, 'content-type': 'application/json' },
      payload: body,
    });
  };

  it('holds the nesting bound on every route that takes a body, after authentication', async () => {
    const deep = `{"x":${nestedText(JSON_DEPTH_LIMIT, [true], '0')}}`;
    const routes = bodyRoutes();
    assert.ok(routes.length >= 10, `found ${routes.length} routes`);
    for (const { method, url, target } of routes) {
      const res = await sendBody(method, target, deep);
      assert.equal(res.statusCode, 400, `${method} ${url}: ${res.body}`);
      assert.match(
        res.json<{ message: string }>().message,
        new RegExp(`^body\\.x(\\[0\\]){${JSON_DEPTH_LIMIT - 1}}: .*the limit is ${JSON_DEPTH_LIMIT}`),
      );
      const anonymous = await sendBody(method, target, deep, false);
      assert.equal(anonymous.statusCode, 401, `${method} ${url} without credentials`);
    }
  });

  it('answers generated JSON bodies on every body route without a 5xx, in the error shape', async () => {
    const routes = bodyRoutes();
    const bodies = fc.oneof(
      jsonValueText,
      nestedJsonText(0, 200).map((n) => n.text),
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...routes), bodies, async ({ method, url, target }, body) => {
        const res = await sendBody(method, target, body);
        assert.ok(res.statusCode < 500, `${method} ${url} ${res.statusCode} ${res.body} for ${body}`);
        if (res.statusCode >= 400) assert.equal(res.json<{ status: number }>().status, res.statusCode);
      }),
      { numRuns: 150 },
    );
  });

  it('keeps the body, query-string and header limits', async () => {
    const big = await post(JSON.stringify({ pad: 'x'.repeat(300 * 1024) }));
    assert.equal(big.status, 413);
    assert.equal(JSON.parse(big.text).error, 'payload_too_large');
    const longQuery = await fetch(`${baseUrl}/v1/query/events?accountId=${'a'.repeat(20_000)}`);
    assert.equal(longQuery.status, 431);
    const bigHeader = await fetch(`${baseUrl}/v1/health/ready`, { headers: { 'x-pad': 'x'.repeat(20_000) } });
    assert.equal(bigHeader.status, 431);
    await longQuery.body?.cancel();
    await bigHeader.body?.cancel();
  });
});
