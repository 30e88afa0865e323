// Issue 33 item 8: a method a path does not answer — a standard one, or one the router has never heard of such as
// QUERY — is a 405 in the spec's error shape with `Allow`, over real HTTP; never a 5xx, and never a 404 for a path
// that exists. An unknown path stays 404, and so does any admin path (the public API does not reveal it).
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildTestApp, closeTestApp } from '../helpers/app.js';
import { listen } from '../helpers/integrators.js';

const ID = '0f8fad5b-d9cb-469f-a165-70867728950e';

type Answer = { status: number; allow: string | undefined; body: unknown };

describe('methods a path does not answer', () => {
  let app: FastifyInstance;
  let baseUrl: string;

  before(async () => {
    ({ app } = await buildTestApp());
    baseUrl = await listen(app);
  });
  after(async () => await closeTestApp(app));

  const send = (method: string, path: string): Promise<Answer> =>
    new Promise((resolve, reject) => {
      const req = httpRequest(`${baseUrl}${path}`, { method }, (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, allow: res.headers.allow, body: text ? JSON.parse(text) : null }),
        );
      });
      req.on('error', reject).end();
    });

  it('answers 405 with Allow, in the error shape, for QUERY, PROPFIND and a standard method the path lacks', async () => {
    const cases: Array<[method: string, path: string, allow: string]> = [
      ['QUERY', '/v1/webhooks/subscriptions', 'GET, HEAD, POST'],
      ['PROPFIND', '/v1/webhooks/subscriptions', 'GET, HEAD, POST'],
      ['PUT', '/v1/webhooks/subscriptions', 'GET, HEAD, POST'],
      ['POST', `/v1/webhooks/subscriptions/${ID}`, 'DELETE, GET, HEAD, PATCH'],
      ['DELETE', '/v1/query/events?limit=1', 'GET, HEAD'],
      ['TRACE', '/v1/health', 'GET, HEAD'],
    ];
    for (const [method, path, allow] of cases) {
      const res = await send(method, path);
      assert.equal(res.status, 405, `${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
      assert.equal(res.allow, allow, `${method} ${path}`);
      const body = res.body as { error: string; status: number; message: string };
      assert.deepEqual({ error: body.error, status: body.status }, { error: 'method_not_allowed', status: 405 });
      assert.match(body.message, new RegExp(`^${method} is not allowed here`));
    }
  });

  it('keeps 404 for a path that does not exist and for the admin API', async () => {
    for (const [method, path] of [
      ['QUERY', '/v1/nothing-here'],
      ['GET', '/v1/webhooks/subscriptions/x/y/z'],
      ['PUT', '/internal/v1/integrators'],
      ['QUERY', '/internal/v1/events'],
    ] as const) {
      const res = await send(method, path);
      assert.equal(res.status, 404, `${method} ${path}: ${res.status}`);
      assert.deepEqual(res.body, { error: 'not_found', status: 404 });
      assert.equal(res.allow, undefined);
    }
  });
});
