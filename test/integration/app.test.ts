import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/process/app.js';
import { buildTestApp, closeTestApp } from '../helpers/app.js';
import { testConfig } from '../helpers/env.js';

describe('the app skeleton', () => {
  let app: FastifyInstance;
  before(async () => {
    ({ app } = await buildTestApp());
  });
  after(async () => closeTestApp(app));

  it('answers liveness without auth', async () => {
    const res = await app.inject({ method: 'GET', url: '/v1/health' });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), { status: 'ok' });
  });

  it('is ready when MongoDB and Temporal answer', async () => {
    const res = await app.inject({ method: 'GET', url: '/v1/health/ready' });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), { status: 'ready', checks: { mongodb: 'up', temporal: 'up' } });
  });

  it('serves an OpenAPI 3.1 document that lists the routes, and renders /docs', async () => {
    const res = await app.inject({ method: 'GET', url: '/openapi.json' });
    assert.equal(res.statusCode, 200);
    const doc = res.json<{ openapi: string; info: { version: string }; paths: Record<string, unknown> }>();
    assert.equal(doc.openapi, '3.1.0');
    assert.equal(doc.info.version, '0.2.0');
    assert.ok(doc.paths['/v1/health'] && doc.paths['/v1/health/ready']);
    const docs = await app.inject({ method: 'GET', url: '/docs/' });
    assert.equal(docs.statusCode, 200);
    assert.match(docs.body, /swagger-ui/i);
  });

  it('answers unknown routes with the error shape', async () => {
    const res = await app.inject({ method: 'GET', url: '/v1/nope' });
    assert.equal(res.statusCode, 404);
    assert.deepEqual(res.json(), { error: 'not_found', status: 404 });
  });
});

describe('readiness when a dependency is down', () => {
  async function readiness(overrides: Record<string, string>): Promise<{ status: number; body: unknown }> {
    // Nothing listens on port 1: connections fail at once.
    const app = await buildApp({ config: testConfig(overrides), logger: false, ensureIndexes: false });
    try {
      const res = await app.inject({ method: 'GET', url: '/v1/health/ready' });
      return { status: res.statusCode, body: res.json() };
    } finally {
      await app.close();
    }
  }

  it('answers 503 when Temporal is down', async () => {
    const res = await readiness({ TEMPORAL_ADDRESS: '127.0.0.1:1' });
    assert.equal(res.status, 503);
    assert.deepEqual(res.body, { status: 'not_ready', checks: { mongodb: 'up', temporal: 'down' } });
  });

  it('answers 503 when MongoDB is down', async () => {
    const res = await readiness({ MONGODB_URL: 'mongodb://127.0.0.1:1/?serverSelectionTimeoutMS=500' });
    assert.equal(res.status, 503);
    assert.deepEqual(res.body, { status: 'not_ready', checks: { mongodb: 'down', temporal: 'up' } });
  });

  it('refuses to start when MongoDB is down and the indexes cannot be created', async () => {
    const app = await buildApp({
      config: testConfig({ MONGODB_URL: 'mongodb://127.0.0.1:1/?serverSelectionTimeoutMS=300' }),
      logger: false,
    }).catch((e: unknown) => e);
    assert.ok(app instanceof Error, 'buildApp should reject');
  });
});
