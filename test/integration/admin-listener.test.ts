// HERALD_ADMIN_PORT (issue 33 item 7): the admin API on a listener of its own. There every admin route answers and
// nothing else does; on the public listener every admin route answers 404 `not_found`, with or without the token, and
// every other route works. Unset, one listener serves both. Closing the app closes both listeners.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import type { FastifyInstance, HTTPMethods, RouteOptions } from 'fastify';
import { HeraldAdminClient } from '../../src/client/admin-client.js';
import { HeraldClient } from '../../src/client/herald-client.js';
import { compressedHexOf } from '../../src/crypto/p256.js';
import { closeTestApp } from '../helpers/app.js';
import { ADMIN_TOKEN, adminHeaders, listen, newKeyPair } from '../helpers/integrators.js';
import { appWithRoutes, methodsOf } from '../helpers/routes.js';

const NOT_FOUND = { error: 'not_found', status: 404 };
const ID = '0f8fad5b-d9cb-469f-a165-70867728950e';

/** Whether something accepts TCP connections at `url`. */
const accepts = (url: string) =>
  new Promise<boolean>((resolve) => {
    const { hostname, port } = new URL(url);
    const socket = connect(Number(port), hostname, () => {
      socket.destroy();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });

describe('HERALD_ADMIN_PORT: the admin API on a listener of its own', () => {
  let app: FastifyInstance;
  let adminRoutes: RouteOptions[];
  let publicUrl: string;
  let adminUrl: string;

  before(async () => {
    let routes: RouteOptions[];
    ({ app, routes } = await appWithRoutes({ HERALD_ADMIN_PORT: '0' }));
    adminRoutes = routes.filter((r) => r.url.startsWith('/internal'));
    publicUrl = await listen(app);
    const url = await app.listenAdmin();
    assert.ok(url, 'an admin listener');
    adminUrl = url;
  });
  after(async () => {
    await closeTestApp(app);
    assert.equal(await accepts(adminUrl), false, 'the admin listener is closed with the app');
  });

  it('serves the admin API on the admin listener and the integrator API on the public one', async () => {
    const admin = new HeraldAdminClient(adminUrl, ADMIN_TOKEN);
    const integrator = await admin.createIntegrator('acme');
    const { privateKey } = newKeyPair();
    await admin.addKey(integrator.id, `0x${compressedHexOf(privateKey)}`);
    assert.equal((await admin.getIntegrator(integrator.id)).keys.length, 1);

    const signed = new HeraldClient({ baseUrl: publicUrl, privateKey });
    assert.equal((await signed.credential()).integratorId, integrator.id);
    assert.equal((await fetch(`${publicUrl}/v1/health`)).status, 200);

    // Nothing but the admin API on the admin listener, signed or not.
    await assert.rejects(new HeraldClient({ baseUrl: adminUrl, privateKey }).credential(), /404/);
    for (const path of ['/v1/health', '/openapi.json', '/v1/query/events']) {
      const res = await fetch(`${adminUrl}${path}`);
      assert.deepEqual([res.status, await res.json()], [404, NOT_FOUND], path);
    }
  });

  it('answers every admin route 404 on the public listener, with the token or without, before any guard', async () => {
    assert.ok(adminRoutes.length >= 4, `${adminRoutes.length} admin routes collected`);
    let sent = 0;
    for (const route of adminRoutes)
      for (const method of methodsOf(route))
        for (const headers of [adminHeaders, {}, { authorization: 'Bearer wrong-token-wrong-token' }]) {
          const body = method === 'GET' || method === 'HEAD' || method === 'DELETE' ? undefined : '{}';
          const url = route.url.replace(/:[A-Za-z_]+/g, ID);
          const res = await fetch(`${publicUrl}${url}`, {
            method: method as HTTPMethods,
            headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
            body,
          });
          assert.equal(res.status, 404, `${method} ${url}`);
          if (method !== 'HEAD') assert.deepEqual(await res.json(), NOT_FOUND, `${method} ${url}`);
          sent++;
        }
    assert.ok(sent >= 12);
    // A spelling the router decodes to an admin route is the same route: 404 too.
    const encoded = await fetch(`${publicUrl}/%69nternal/v1/integrators`, {
      method: 'POST',
      headers: { ...adminHeaders, 'content-type': 'application/json' },
      body: '{"name":"mallory"}',
    });
    assert.equal(encoded.status, 404);
    assert.equal(await app.mongo.db.collection('integrators').countDocuments({ name: 'mallory' }), 0);
  });
});

describe('HERALD_ADMIN_PORT unset: one listener for both', () => {
  let app: FastifyInstance;
  before(async () => {
    ({ app } = await appWithRoutes({}));
  });
  after(async () => closeTestApp(app));

  it('starts no second listener and serves the admin API with the rest', async () => {
    assert.equal(await app.listenAdmin(), null);
    const base = await listen(app);
    const created = await new HeraldAdminClient(base, ADMIN_TOKEN).createIntegrator('acme');
    assert.equal(created.name, 'acme');
    assert.equal((await fetch(`${base}/v1/health`)).status, 200);
  });
});
