// Issue 33 item 8: a schema fuzzer trusts the document. Every status a route can answer is declared on its operation
// (429 with Retry-After wherever a credential is checked; 400, 413 and 415 wherever Fastify reads a body, whether or
// not the route takes one), the admin routes (hidden from the document) declare theirs in their schemas, and every
// `cursor` parameter states the form of the cursors the API issues, so `0` is not schema-valid.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance, RouteOptions } from 'fastify';
import { buildTestApp, closeTestApp } from '../helpers/app.js';
import { listen, registerIntegrator, type TestIntegrator } from '../helpers/integrators.js';
import { appWithRoutes, methodsOf } from '../helpers/routes.js';
import { HOOK_URL, SUBSCRIPTION_DNS } from '../helpers/subscriptions.js';

type Parameter = {
  in: string;
  name: string;
  description?: string;
  schema?: { pattern?: string; description?: string };
};
type Operation = {
  security?: unknown[];
  parameters?: Parameter[];
  responses: Record<string, { headers?: Record<string, unknown> }>;
};
type Document = { paths: Record<string, Record<string, Operation>> };

const BODY_METHODS = ['post', 'put', 'patch', 'delete'];

describe('the statuses and parameter forms the OpenAPI document declares', { timeout: 60_000 }, () => {
  let app: FastifyInstance;
  let alice: TestIntegrator;
  let doc: Document;
  let admin: { app: FastifyInstance; routes: RouteOptions[] };

  before(async () => {
    ({ app } = await buildTestApp({ HERALD_DNS_STATIC: SUBSCRIPTION_DNS }));
    alice = await registerIntegrator(app, await listen(app), 'statuses');
    doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json<Document>();
    admin = await appWithRoutes({});
  });
  after(async () => {
    await closeTestApp(app);
    await closeTestApp(admin.app);
  });

  const operations = () =>
    Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item).map(([method, op]) => ({ where: `${method.toUpperCase()} ${path}`, method, op })),
    );

  it('declares on every operation each status its route can answer', () => {
    const ops = operations();
    assert.ok(ops.length >= 20, `${ops.length} operations`);
    for (const { where, method, op } of ops) {
      const statuses = Object.keys(op.responses);
      assert.ok(statuses.includes('500'), `${where} declares 500`);
      if (BODY_METHODS.includes(method))
        for (const s of ['400', '413', '415']) assert.ok(statuses.includes(s), `${where} declares ${s}`);
      if (op.security?.length) {
        for (const s of ['401', '429']) assert.ok(statuses.includes(s), `${where} declares ${s}`);
        assert.ok(op.responses['429']?.headers?.['Retry-After'], `${where}: its 429 carries Retry-After`);
      }
    }
  });

  it('declares 401 and 429 on every admin route (hidden from the document)', () => {
    const routes = admin.routes.filter((r) => r.url.startsWith('/internal/'));
    assert.ok(routes.length >= 4, `${routes.length} admin routes`);
    for (const route of routes) {
      const response = (route.schema as { response?: Record<string, unknown> } | undefined)?.response ?? {};
      for (const s of ['401', '429'])
        assert.ok(response[s], `${methodsOf(route).join('/')} ${route.url} declares ${s}`);
    }
  });

  it('states the form of every cursor: `0` does not match it, a cursor the API issued does', async () => {
    for (const n of [1, 2]) await alice.client.createSubscription({ url: `${HOOK_URL}/${n}`, eventTypes: [] });
    const { nextCursor } = await alice.client.listSubscriptionsPage({ limit: 1 });
    assert.ok(nextCursor, 'a second page');

    const cursors = operations().flatMap(({ where, op }) =>
      (op.parameters ?? []).filter((p) => p.in === 'query' && p.name === 'cursor').map((p) => ({ where, p })),
    );
    assert.ok(cursors.length >= 4, `${cursors.length} cursor parameters`);
    for (const { where, p } of cursors) {
      const pattern = p.schema?.pattern;
      assert.ok(pattern, `${where}: cursor has a pattern`);
      const form = new RegExp(pattern, 'u');
      assert.ok(!form.test('0'), `${where}: 0 is not a cursor`);
      assert.ok(form.test(nextCursor), `${where}: an issued cursor matches`);
      assert.match(p.description ?? p.schema?.description ?? '', /nextCursor/, where);
    }
  });
});
