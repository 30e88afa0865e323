// Issue 11 item 1: every route is guarded by the scope it was registered in. The walk collects every registered
// route (onRoute) and proves each one outside the public list answers 401 without its credential; the table sends
// path spellings a router may decode or normalise to every admin and integrator route: nothing but 401/404.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import type { FastifyInstance, HTTPMethods, RouteOptions } from 'fastify';
import { ADMIN_TOKEN, listen } from '../helpers/integrators.js';
import { appWithRoutes, methodsOf } from '../helpers/routes.js';

/** Routes without a guard, by name. Everything else must answer 401 without credentials. */
const PUBLIC = (url: string): boolean =>
  url === '/v1/health' ||
  url === '/v1/health/ready' ||
  url === '/openapi.json' ||
  url === '/docs' ||
  url.startsWith('/docs/') ||
  // The portal's page (its data comes from the guarded routes; /portal/session is guarded by its own credential).
  (url.startsWith('/portal/') && url !== '/portal/session');

const ID = '0f8fad5b-d9cb-469f-a165-70867728950e';
const concrete = (url: string): string => url.replace(/:[A-Za-z_]+/g, ID);

/** Spellings of `path` that some parser reads as the same route, or that a prefix test would miss. */
export function spellings(path: string): string[] {
  const segments = path.split('/').slice(1);
  const out = new Set<string>();
  const join = (segs: string[]) => `/${segs.join('/')}`;
  segments.forEach((seg, i) => {
    const at = [...seg].findIndex((c) => /[a-z]/i.test(c));
    if (at >= 0) {
      const hex = seg.charCodeAt(at).toString(16);
      const enc = (e: string) => join(segments.map((s, j) => (j === i ? s.slice(0, at) + e + s.slice(at + 1) : s)));
      out.add(enc(`%${hex}`));
      out.add(enc(`%${hex.toUpperCase()}`));
      out.add(enc(`%25${hex}`)); // double encoding
    }
    out.add(join(segments.map((s, j) => (j === i ? `${s};x=1` : s))));
    out.add(join(segments.map((s, j) => (j === i ? s.toUpperCase() : s))));
    out.add(join([...segments.slice(0, i), '.', ...segments.slice(i)]));
    out.add(join([...segments.slice(0, i), '', ...segments.slice(i)]));
    out.add(join([...segments.slice(0, i), 'x', '..', ...segments.slice(i)]));
    out.add(join([...segments.slice(0, i), 'x', '%2e%2e', ...segments.slice(i)]));
  });
  out.add(`/${path}`);
  out.add(`${path}/`);
  out.add(path.toUpperCase());
  out.add(path.replaceAll('/', '%2F'));
  out.add(`${path}?`);
  out.add(`${path}?x=/v1/health`);
  out.add(`${path}?/../../v1/health`);
  out.add(`${path}%3F/v1/health`);
  out.add(`${path}#/v1/health`);
  out.add(`/v1/health/../..${path}`);
  out.add(`/v1/health/%2e%2e/%2e%2e${path}`);
  out.add(path);
  return [...out];
}

describe('route guards by construction', { timeout: 120_000 }, () => {
  let withAdmin: { app: FastifyInstance; routes: RouteOptions[] };
  let noAdmin: { app: FastifyInstance; routes: RouteOptions[] };
  let guarded: RouteOptions[];

  before(async () => {
    withAdmin = await appWithRoutes({});
    noAdmin = await appWithRoutes({ HERALD_ADMIN_TOKEN: '' });
    guarded = withAdmin.routes.filter((r) => !PUBLIC(r.url));
  });
  after(async () => {
    await withAdmin.app.mongo.db.dropDatabase().catch(() => undefined);
    await Promise.all([withAdmin.app.close(), noAdmin.app.close()]);
  });

  const send = (app: FastifyInstance, method: string, url: string, headers: Record<string, string> = {}) =>
    app.inject({
      method: method as HTTPMethods,
      url,
      headers:
        method === 'GET' || method === 'HEAD' || method === 'DELETE'
          ? headers
          : { 'content-type': 'application/json', ...headers },
      payload: method === 'GET' || method === 'HEAD' || method === 'DELETE' ? undefined : '{}',
    });

  it('collects the routes: the admin and the integrator ones, each with its OpenAPI security', () => {
    const urls = new Set(guarded.map((r) => r.url));
    for (const url of [
      '/internal/v1/integrators',
      '/internal/v1/events',
      '/v1/query/events',
      '/v1/webhooks/subscriptions',
    ])
      assert.ok(urls.has(url), url);
    assert.ok(guarded.length >= 15, `only ${guarded.length} guarded routes collected`);
    for (const route of guarded) {
      const security = (route.schema as { security?: unknown[] } | undefined)?.security;
      assert.ok(
        Array.isArray(security) && security.length === 1,
        `${String(route.method)} ${route.url}: no OpenAPI security`,
      );
    }
  });

  it('every route outside the public list answers 401 without credentials, with junk ones and with a wrong token', async () => {
    const junk = {
      'x-pubkey': `0x02${'a'.repeat(64)}`,
      'x-timestamp': String(Math.floor(Date.now() / 1000)),
      'x-signature': `0x${'30'.repeat(40)}`,
      authorization: 'Bearer wrong-token-wrong-token',
    };
    for (const route of guarded)
      for (const method of methodsOf(route))
        for (const headers of [{}, junk]) {
          const res = await send(withAdmin.app, method, concrete(route.url), headers);
          assert.equal(res.statusCode, 401, `${method} ${route.url} ${JSON.stringify(headers)}: ${res.statusCode}`);
          if (method !== 'HEAD') assert.deepEqual(res.json(), { error: 'unauthorized', status: 401 });
        }
  });

  it('without HERALD_ADMIN_TOKEN the admin routes are not registered: 404 even with a bearer token', async () => {
    assert.equal(noAdmin.routes.filter((r) => r.url.startsWith('/internal')).length, 0);
    const admin = guarded.filter((r) => r.url.startsWith('/internal'));
    assert.ok(admin.length >= 4);
    for (const route of admin)
      for (const method of methodsOf(route))
        for (const url of spellings(concrete(route.url))) {
          const res = await send(noAdmin.app, method, url, { authorization: `Bearer ${ADMIN_TOKEN}` });
          assert.equal(res.statusCode, 404, `${method} ${url}: ${res.statusCode}`);
        }
  });

  it('no spelling of any admin or integrator path answers anything but 401/404 without credentials', async () => {
    let sent = 0;
    // The admin and integrator paths (/portal/session is its own handler's guard, not a prefix's: its spellings reach
    // the portal's page, which holds no data).
    const prefixed = guarded.filter((r) => !r.url.startsWith('/portal/'));
    for (const { app } of [withAdmin, noAdmin])
      for (const route of prefixed)
        for (const method of methodsOf(route))
          for (const url of spellings(concrete(route.url))) {
            const res = await send(app, method, url);
            sent++;
            assert.ok([401, 404].includes(res.statusCode), `${method} ${url}: ${res.statusCode} ${res.body}`);
          }
    assert.ok(sent > 500, `${sent}`);
  });

  it('POST /%69nternal/v1/integrators over real HTTP: 401 without the token, 404 without an admin API', async () => {
    for (const [app, status] of [
      [withAdmin.app, 401],
      [noAdmin.app, 404],
    ] as const) {
      const base = new URL(await listen(app));
      const code = await new Promise<number>((resolve, reject) => {
        const req = httpRequest(
          {
            host: base.hostname,
            port: base.port,
            method: 'POST',
            path: '/%69nternal/v1/integrators',
            headers: { 'content-type': 'application/json' },
          },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.on('error', reject);
        req.end('{"name":"mallory"}');
      });
      assert.equal(code, status);
    }
    const stored = await withAdmin.app.mongo.db.collection('integrators').countDocuments({});
    assert.equal(stored, 0);
  });
});
