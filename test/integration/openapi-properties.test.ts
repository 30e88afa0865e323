// Property check over every operation of the served document: requests valid per the document are never answered
// 400 (nor 5xx), and requests that break one rule the document declares are never answered 2xx. The generator reads
// nothing but the document (test/helpers/openapi-arbitraries.ts); bounded to a few hundred requests.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import { HeraldApiError } from '../../src/client/http.js';
import { buildTestApp, closeTestApp } from '../helpers/app.js';
import { ADMIN_TOKEN, listen, registerIntegrator, type TestIntegrator } from '../helpers/integrators.js';
import {
  invalidValues,
  resolver,
  validArb,
  validBody,
  type Arb,
  type Fixtures,
  type JsonSchema,
} from '../helpers/openapi-arbitraries.js';

type Parameter = { in: 'path' | 'query' | 'header'; name: string; required?: boolean; schema: JsonSchema };
type Operation = {
  parameters?: Parameter[];
  requestBody?: { content: { 'application/json': { schema: JsonSchema } } };
  security?: Array<Record<string, string[]>>;
};
type Request = { path: Record<string, string>; query: Record<string, string>; body?: unknown };

const VALID_RUNS = 12;
const SAMPLES_FOR_INVALID = 2;

describe('every operation of the OpenAPI document', () => {
  let app: FastifyInstance;
  let baseUrl: string;
  let alice: TestIntegrator;
  let operations: Array<{ method: string; path: string; op: Operation }>;
  let resolve: (s: JsonSchema) => JsonSchema;
  let fixtures: Fixtures;

  before(async () => {
    ({ app } = await buildTestApp({ HERALD_DNS_STATIC: 'hooks.example.com=93.184.215.14' }));
    baseUrl = await listen(app);
    alice = await registerIntegrator(app, baseUrl, 'properties');
    const doc = (await app.inject({ url: '/openapi.json' })).json<{
      paths: Record<string, Record<string, Operation>>;
    }>();
    resolve = resolver(doc as never);
    operations = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item).map(([method, op]) => ({ method: method.toUpperCase(), path, op })),
    );
    // An opaque cursor is valid only as issued by the API (the document says so): valid requests leave it out.
    fixtures = { 'body.integratorId': fc.constant(alice.integratorId), 'query.cursor': null };
  });
  after(async () => await closeTestApp(app));

  const requestArb = (op: Operation): fc.Arbitrary<Request> => {
    const params = op.parameters ?? [];
    const group = (where: 'path' | 'query') => {
      const record: Record<string, Arb> = {};
      for (const p of params.filter((q) => q.in === where)) {
        const fixture = fixtures[`${where}.${p.name}`];
        if (fixture !== null) record[p.name] = (fixture ?? validArb(p.schema, resolve)).map(String);
      }
      const required = params.filter((q) => q.in === where && (q.required || where === 'path')).map((q) => q.name);
      return fc.record(record, { requiredKeys: required }) as fc.Arbitrary<Record<string, string>>;
    };
    const schema = op.requestBody?.content['application/json'].schema;
    const body = schema ? validBody(schema, resolve, fixtures) : fc.constant(undefined);
    return fc.record({ path: group('path'), query: group('query'), body });
  };

  /** Every request that differs from `valid` by breaking one declared rule. */
  const mutations = (op: Operation, valid: Request): Request[] => {
    const out: Request[] = [];
    for (const p of op.parameters ?? []) {
      if (p.in !== 'path' && p.in !== 'query') continue;
      const bad = invalidValues(p.schema, resolve, valid[p.in][p.name]).filter(
        (v) => typeof v === 'string' || p.schema.type === 'integer',
      );
      for (const v of bad) out.push({ ...valid, [p.in]: { ...valid[p.in], [p.name]: String(v) } });
    }
    const schema = op.requestBody?.content['application/json'].schema;
    if (schema) for (const body of invalidValues(schema, resolve, valid.body)) out.push({ ...valid, body });
    return out;
  };

  const send = async (method: string, template: string, op: Operation, req: Request): Promise<number> => {
    const path = template.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(req.path[name] ?? ''));
    const signed = op.security?.some((s) => 'pubkey' in s);
    if (signed) {
      try {
        await alice.client.request(method, path, { query: req.query, body: req.body });
        return 200;
      } catch (err) {
        if (err instanceof HeraldApiError) return err.status;
        throw err;
      }
    }
    const qs = new URLSearchParams(req.query).toString();
    const res = await fetch(`${baseUrl}${path}${qs ? `?${qs}` : ''}`, {
      method,
      headers: {
        authorization: `Bearer ${ADMIN_TOKEN}`,
        ...(req.body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: req.body === undefined ? undefined : JSON.stringify(req.body),
    });
    await res.arrayBuffer();
    return res.status;
  };

  it('answers valid requests with neither 400 nor 5xx', async () => {
    for (const { method, path, op } of operations) {
      await fc.assert(
        fc.asyncProperty(requestArb(op), async (req) => {
          const status = await send(method, path, op, req);
          assert.ok(status !== 400 && status < 500, `${method} ${path} ${JSON.stringify(req)} → ${status}`);
        }),
        { numRuns: VALID_RUNS, seed: 17 },
      );
    }
  });

  it('never answers 2xx to a request that breaks one declared rule', async () => {
    let checked = 0;
    for (const { method, path, op } of operations) {
      for (const valid of fc.sample(requestArb(op), { numRuns: SAMPLES_FOR_INVALID, seed: 23 })) {
        for (const req of mutations(op, valid)) {
          const status = await send(method, path, op, req);
          assert.ok(status >= 400 && status < 500, `${method} ${path} ${JSON.stringify(req)} → ${status}`);
          checked += 1;
        }
      }
    }
    assert.ok(checked > 100, `${checked} invalid requests`);
  });
});
