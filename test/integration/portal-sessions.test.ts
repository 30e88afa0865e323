// Issue 46 item 1: access to the portal. A signed request (or an operator) makes a single-use link; its token becomes
// an HttpOnly, SameSite=Strict session cookie, which authorizes the integrator routes themselves: reads always,
// writes only with the manage scope, from the portal's origin, with the CSRF token. Sign-out, expiry and a revoked
// key end it. The page is served with a strict CSP. (The browser itself: test/browser/portal.test.ts.)
import assert from 'node:assert/strict';
import { mkdtemp, mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { buildTestApp, closeTestApp } from '../helpers/app.js';
import { adminHeaders, registerIntegrator, type TestIntegrator } from '../helpers/integrators.js';
import { signedHeaders } from '../helpers/signed.js';
import { HOOK_URL, SUBSCRIPTION_DNS } from '../helpers/subscriptions.js';

const ORIGIN = 'http://localhost'; // the origin app.inject's requests reach (Host: localhost:80)

describe('portal sessions', () => {
  let app: FastifyInstance;
  let acme: TestIntegrator;
  let other: TestIntegrator;
  let assets: string;
  before(async () => {
    assets = await mkdtemp(join(tmpdir(), 'herald-portal-'));
    await mkdir(join(assets, 'assets'));
    await writeFile(join(assets, 'index.html'), '<!doctype html><title>portal</title>');
    await writeFile(join(assets, 'assets', 'app-1234.js'), 'export {};');
    ({ app } = await buildTestApp({
      HERALD_DNS_STATIC: SUBSCRIPTION_DNS,
      HERALD_PORTAL_ASSETS: assets,
      HERALD_PORTAL_FRAME_ANCESTORS: 'https://dashboard.example.com',
    }));
    acme = await registerIntegrator(app, 'http://127.0.0.1:1', 'acme');
    other = await registerIntegrator(app, 'http://127.0.0.1:1', 'other');
  });
  after(async () => closeTestApp(app));

  const signed = async (who: TestIntegrator, method: 'GET' | 'POST', url: string, body?: unknown) => {
    const payload = body === undefined ? '' : JSON.stringify(body);
    return await app.inject({ method, url, payload, headers: signedHeaders(who, method, url, payload) });
  };
  let links = 0;
  const link = async (who: TestIntegrator, body: object = {}) => {
    // Two equal signed requests in one second are one request replayed: each link asks for a new length.
    const made = await signed(who, 'POST', '/v1/portal/sessions', { sessionSeconds: 3600 - ++links, ...body });
    assert.equal(made.statusCode, 201, made.body);
    return made.json<{ url: string; expiresAt: string }>();
  };
  const tokenOf = (url: string) => new URL(url).hash.replace('#token=', '');
  const exchange = (token: string, origin: string | undefined = ORIGIN) =>
    app.inject({
      method: 'POST',
      url: '/portal/session',
      headers: { 'x-portal-link': token, ...(origin ? { origin } : {}) },
    });
  /** Opens a session from a new link; answers the cookie and the CSRF token. */
  const open = async (who: TestIntegrator, body: object = {}) => {
    const opened = await exchange(tokenOf((await link(who, body)).url));
    assert.equal(opened.statusCode, 200, opened.body);
    const cookie = opened.cookies.find((c) => c.name === 'herald_portal');
    assert.ok(cookie);
    return { cookie: `herald_portal=${cookie.value}`, csrf: opened.json<{ csrfToken: string }>().csrfToken };
  };
  const asPortal = (s: { cookie: string; csrf?: string }, options: InjectOptions & { origin?: string }) =>
    app.inject({
      ...options,
      headers: {
        cookie: s.cookie,
        ...(options.origin ? { origin: options.origin } : {}),
        ...(s.csrf ? { 'x-csrf-token': s.csrf } : {}),
        ...(options.headers ?? {}),
      },
    });
  const createSubscription = (s: { cookie: string; csrf?: string }, origin?: string) =>
    asPortal(s, {
      method: 'POST',
      url: '/v1/webhooks/subscriptions',
      payload: { url: HOOK_URL },
      ...(origin ? { origin } : {}),
    });

  it('a link works once, in its fragment, and becomes an HttpOnly SameSite=Strict cookie of the asked length', async () => {
    const made = await link(acme, { sessionSeconds: 900 });
    assert.match(made.url, /^http:\/\/localhost\/portal\/#token=[A-Za-z0-9_-]{43}$/);
    const linkLife = Date.parse(made.expiresAt) - Date.now();
    assert.ok(linkLife > 4 * 60_000 && linkLife <= 5 * 60_000, `${linkLife} ms`);
    const token = tokenOf(made.url);
    assert.equal((await exchange(token, 'https://evil.example')).statusCode, 403, 'another site cannot sign one in');
    const first = await exchange(token);
    assert.equal(first.statusCode, 200);
    const cookie = first.cookies.find((c) => c.name === 'herald_portal')!;
    assert.equal(cookie.httpOnly, true);
    assert.equal(cookie.sameSite, 'Strict');
    assert.equal(cookie.path, '/');
    const session = first.json<{ integratorId: string; scope: string; expiresAt: string }>();
    assert.equal(session.integratorId, acme.integratorId);
    assert.equal(session.scope, 'manage');
    const life = Date.parse(session.expiresAt) - Date.now();
    assert.ok(life > 890_000 && life <= 900_000, `${life} ms`);
    const again = await exchange(token);
    assert.equal(again.statusCode, 401, 'never twice');
    assert.deepEqual(again.json(), { error: 'unauthorized', status: 401 });
    // The database holds digests only: neither the link's token nor the cookie's secret.
    const stored = JSON.stringify(await app.store.portalSessions.sessions.find({}).toArray());
    assert.ok(!stored.includes(token) && !stored.includes(cookie.value));
  });

  it("authorizes the integrator's routes as its signature would: its own data, never another's", async () => {
    const s = await open(acme);
    const mine = await createSubscription(s, ORIGIN);
    assert.equal(mine.statusCode, 201, mine.body);
    const theirs = await signed(other, 'POST', '/v1/webhooks/subscriptions', { url: HOOK_URL });
    assert.equal(theirs.statusCode, 201);
    const list = await asPortal(s, { method: 'GET', url: '/v1/webhooks/subscriptions' });
    assert.equal(list.statusCode, 200);
    const ids = list.json<{ subscriptions: Array<{ id: string }> }>().subscriptions.map((x) => x.id);
    assert.deepEqual(ids, [mine.json<{ id: string }>().id]);
    const foreign = await asPortal(s, {
      method: 'GET',
      url: `/v1/webhooks/subscriptions/${theirs.json<{ id: string }>().id}`,
    });
    assert.equal(foreign.statusCode, 404);
    const who = await asPortal(s, { method: 'GET', url: '/portal/session' });
    assert.equal(who.json<{ csrfToken: string }>().csrfToken, s.csrf, 'the page can learn its CSRF token again');
  });

  it('refuses a write without the portal origin or the CSRF token, and every write of a read-only session', async () => {
    const s = await open(acme);
    const noOrigin = await createSubscription(s);
    assert.equal(noOrigin.statusCode, 403);
    assert.equal(noOrigin.json<{ error: string }>().error, 'forbidden');
    assert.equal((await createSubscription(s, 'https://evil.example')).statusCode, 403);
    assert.equal((await createSubscription({ cookie: s.cookie }, ORIGIN)).statusCode, 403, 'no CSRF token');
    assert.equal((await createSubscription({ ...s, csrf: `${s.csrf}x` }, ORIGIN)).statusCode, 403);

    const reader = await open(acme, { scope: 'read' });
    const refused = await createSubscription(reader, ORIGIN);
    assert.equal(refused.statusCode, 403);
    assert.match(refused.json<{ message: string }>().message, /read-only/);
    assert.equal((await asPortal(reader, { method: 'GET', url: '/v1/webhooks/subscriptions' })).statusCode, 200);
    const before = await app.store.db.collection('subscriptions').countDocuments({ integratorId: acme.integratorId });
    assert.equal(before, 1, 'nothing written by the refused requests (the one of the test before)');
  });

  it('a session cannot make a link; sign-out, expiry and a revoked key end sessions', async () => {
    const s = await open(acme);
    const minted = await asPortal(s, {
      method: 'POST',
      url: '/v1/portal/sessions',
      payload: {},
      origin: ORIGIN,
    });
    assert.equal(minted.statusCode, 403);

    const out = await asPortal(s, { method: 'DELETE', url: '/portal/session', origin: ORIGIN });
    assert.equal(out.statusCode, 204);
    assert.equal((await asPortal(s, { method: 'GET', url: '/v1/webhooks/subscriptions' })).statusCode, 401);
    assert.equal((await asPortal(s, { method: 'GET', url: '/portal/session' })).statusCode, 401);

    const expiring = await open(acme);
    await app.store.portalSessions.sessions.updateMany(
      { integratorId: acme.integratorId, kind: 'session' },
      { $set: { expiresAt: new Date(Date.now() - 1000) } },
    );
    assert.equal((await asPortal(expiring, { method: 'GET', url: '/portal/session' })).statusCode, 401);
    const stale = await link(acme);
    await app.store.portalSessions.sessions.updateMany(
      { integratorId: acme.integratorId, kind: 'link' },
      { $set: { expiresAt: new Date(Date.now() - 1000) } },
    );
    assert.equal((await exchange(tokenOf(stale.url))).statusCode, 401, 'an expired link');

    const live = await open(acme);
    const unused = await link(acme);
    const revoked = await app.inject({
      method: 'DELETE',
      url: `/internal/v1/integrators/${acme.integratorId}/keys/${acme.keyId}`,
      headers: adminHeaders,
    });
    assert.equal(revoked.statusCode, 204);
    assert.equal((await asPortal(live, { method: 'GET', url: '/v1/webhooks/subscriptions' })).statusCode, 401);
    assert.equal((await exchange(tokenOf(unused.url))).statusCode, 401);
  });

  it('an operator makes links for an integrator, and ends its sessions', async () => {
    const made = await app.inject({
      method: 'POST',
      url: `/internal/v1/integrators/${other.integratorId}/portal-links`,
      headers: adminHeaders,
      payload: { scope: 'read', sessionSeconds: 600 },
    });
    assert.equal(made.statusCode, 201, made.body);
    const opened = await exchange(tokenOf(made.json<{ url: string }>().url));
    assert.equal(opened.json<{ scope: string; integratorId: string }>().scope, 'read');
    assert.equal(opened.json<{ integratorId: string }>().integratorId, other.integratorId);
    const unknown = await app.inject({
      method: 'POST',
      url: '/internal/v1/integrators/00000000-0000-4000-8000-000000000000/portal-links',
      headers: adminHeaders,
      payload: {},
    });
    assert.equal(unknown.statusCode, 404);
    const ended = await app.inject({
      method: 'DELETE',
      url: `/internal/v1/integrators/${other.integratorId}/portal-sessions`,
      headers: adminHeaders,
    });
    assert.deepEqual(ended.json(), { revoked: 1 });
    const cookie = opened.cookies.find((c) => c.name === 'herald_portal')!;
    const after = await app.inject({
      method: 'GET',
      url: '/portal/session',
      headers: { cookie: `herald_portal=${cookie.value}` },
    });
    assert.equal(after.statusCode, 401);
  });

  it('serves the page under /portal/ with a strict CSP, and every path under it as the same page', async () => {
    for (const url of ['/portal/', '/portal/deliveries/abc']) {
      const page = await app.inject({ method: 'GET', url });
      assert.equal(page.statusCode, 200, url);
      assert.match(page.body, /<title>portal<\/title>/);
      const csp = String(page.headers['content-security-policy']);
      assert.match(csp, /default-src 'self'/);
      assert.match(csp, /script-src 'self'(;|$)/);
      assert.match(csp, /frame-ancestors https:\/\/dashboard\.example\.com/);
      assert.equal(page.headers['cache-control'], 'no-cache');
    }
    const asset = await app.inject({ method: 'GET', url: '/portal/assets/app-1234.js' });
    assert.equal(asset.statusCode, 200);
    assert.match(String(asset.headers['cache-control']), /immutable/);
  });
});
