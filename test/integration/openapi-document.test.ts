// The served /openapi.json is something a generator can trust: a linter passes, every reference resolves, the
// signature headers are security schemes, every error is declared, and a client generated from it type-checks and
// performs signed requests against the running API. The property check per operation is openapi-properties.test.ts.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import SwaggerParser from '@apidevtools/swagger-parser';
import type { FastifyInstance } from 'fastify';
import openapiTS, { astToString } from 'openapi-typescript';
import { renderApiReference, type ApiDocument } from '../../scripts/lib/api-reference.js';
import { root } from '../../scripts/lib/servers.js';
import { buildTestApp, closeTestApp } from '../helpers/app.js';
import { requireEnv } from '../helpers/env.js';
import { listen, registerIntegrator, type TestIntegrator } from '../helpers/integrators.js';

const run = promisify(execFile);
type Document = {
  paths: Record<string, Record<string, Operation>>;
  components: { securitySchemes: object; schemas: Record<string, unknown> };
};
type Operation = {
  security?: Array<Record<string, string[]>>;
  parameters?: Array<{ in: string; name: string }>;
  requestBody?: unknown;
  responses: Record<string, unknown>;
};

describe('the OpenAPI document', () => {
  let app: FastifyInstance;
  let baseUrl: string;
  let alice: TestIntegrator;
  let doc: Document;

  before(async () => {
    ({ app } = await buildTestApp({
      HERALD_DNS_STATIC: 'hooks.example.com=127.0.0.1',
      HERALD_ALLOW_CIDRS: '127.0.0.1/32',
    }));
    baseUrl = await listen(app);
    alice = await registerIntegrator(app, baseUrl, 'generated');
    doc = (await (await fetch(`${baseUrl}/openapi.json`)).json()) as Document;
  });
  after(async () => await closeTestApp(app));

  it('passes the swagger-parser validator, every $ref resolving', async () => {
    await SwaggerParser.validate(structuredClone(doc) as never);
    const refs = [...JSON.stringify(doc).matchAll(/"\$ref":"([^"]+)"/g)].map((m) => m[1] as string);
    assert.ok(refs.length > 50);
    const schemas = doc.components.schemas;
    for (const ref of new Set(refs)) {
      assert.match(ref, /^#\/components\/schemas\/[A-Za-z]+$/, ref);
      assert.ok(schemas[ref.slice('#/components/schemas/'.length)], `${ref} resolves`);
    }
  });

  it('is what docs/api.md renders (HERALD_WRITE_API_DOC=1 writes the page anew)', () => {
    const page = renderApiReference(doc as unknown as ApiDocument);
    const file = join(root, 'docs/api.md');
    if (process.env.HERALD_WRITE_API_DOC === '1') writeFileSync(file, page);
    const stale = 'docs/api.md is stale: HERALD_WRITE_API_DOC=1 npm test -- test/integration/openapi-document.test.ts';
    assert.equal(readFileSync(file, 'utf8'), page, stale);
    for (const path of Object.keys(doc.paths)) assert.ok(page.includes(`\`${path}\``), `${path} on the page`);
  });

  it('declares the signature headers as security schemes and every error response', () => {
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        const where = `${method.toUpperCase()} ${path}`;
        const headers = (op.parameters ?? []).filter((p) => p.in === 'header').map((p) => p.name.toLowerCase());
        // The signature's headers are security schemes, never parameters; an integrator POST takes Idempotency-Key.
        const integratorPost = method === 'post' && path.startsWith('/v1/');
        assert.deepEqual(headers, integratorPost ? ['idempotency-key'] : [], `${where}: its header parameters`);
        const statuses = Object.keys(op.responses);
        assert.ok(statuses.includes('500'), `${where} declares 500`);
        if (op.parameters?.length || op.requestBody) assert.ok(statuses.includes('400'), `${where} declares 400`);
        if (op.requestBody) for (const s of ['413', '415']) assert.ok(statuses.includes(s), `${where} declares ${s}`);
        if (path.startsWith('/v1/') && !path.startsWith('/v1/health')) {
          assert.deepEqual(op.security, [{ pubkey: [], timestamp: [], signature: [] }], where);
          assert.ok(statuses.includes('401'), `${where} declares 401`);
        }
      }
    }
    assert.deepEqual(Object.keys(doc.components.securitySchemes).sort(), [
      'adminToken',
      'portalLink',
      'portalSession',
      'pubkey',
      'signature',
      'timestamp',
    ]);
    // The portal's session: opened with a link's token, then its cookie (docs/portal.md).
    assert.deepEqual(doc.paths['/portal/session']?.post?.security, [{ portalLink: [] }]);
    assert.deepEqual(doc.paths['/portal/session']?.get?.security, [{ portalSession: [] }]);
  });

  it('generates a TypeScript client that type-checks and makes signed requests', async () => {
    const dir = join(requireEnv('HERALD_TEST_TMP'), `openapi-client-${process.pid}`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'openapi.ts'), astToString(await openapiTS(doc as never)));
    copyFileSync(join(root, 'test/fixtures/openapi-client/main.ts'), join(dir, 'main.ts'));
    symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'));
    writeFileSync(join(dir, 'package.json'), '{ "type": "module" }');
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { target: 'ES2022', module: 'NodeNext', strict: true, noEmit: true, types: ['node'] },
        files: ['main.ts', 'openapi.ts'],
      }),
    );
    const pem = alice.privateKey.export({ format: 'pem', type: 'pkcs8' }) as string;
    writeFileSync(join(dir, 'key.pem'), pem, { mode: 0o600 });

    await run(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', dir], { cwd: dir }).catch(
      (err: { stdout?: string }) => assert.fail(`tsc: ${err.stdout ?? String(err)}`),
    );
    const { stdout } = await run(process.execPath, ['--import', 'tsx', 'main.ts', baseUrl, 'key.pem'], { cwd: dir });
    const out = JSON.parse(stdout) as Record<string, unknown>;
    assert.equal(out.integratorId, alice.integratorId);
    assert.deepEqual((out.subscription as { eventTypes: string[] }).eventTypes, [
      'customer.created',
      'transaction.completed',
    ]);
    assert.deepEqual(out.patched, { status: 'disabled', description: 'from a generated client' });
    assert.deepEqual(out.listed, [(out.subscription as { id: string }).id]);
    assert.equal(out.events, 0);
    assert.equal(out.deliveries, 0);
    assert.deepEqual(out.missing, { status: 404, error: { error: 'not_found', status: 404 } });
    assert.deepEqual(out.refused, { status: 400, error: 'invalid_request' });
  });
});
