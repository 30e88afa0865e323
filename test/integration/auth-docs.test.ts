// docs/auth.md's "signing a request by hand" block, run with bash, openssl and curl against a real listening app,
// with a key file written by `herald keygen --pem`, so the recipe and the PEM format stay correct.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { promisify } from 'node:util';
import type { FastifyInstance } from 'fastify';
import { runCli } from '../../src/cli/main.js';
import { buildTestApp, closeTestApp } from '../helpers/app.js';
import { ADMIN_TOKEN, listen } from '../helpers/integrators.js';

const doc = readFileSync(new URL('../../docs/auth.md', import.meta.url), 'utf8');
const script = /```bash\n([\s\S]*?)```/.exec(doc)?.[1];

async function herald(env: Record<string, string>, argv: string[]): Promise<string> {
  const out = new PassThrough();
  const chunks: Buffer[] = [];
  out.on('data', (c: Buffer) => chunks.push(c));
  const code = await runCli(argv, { stdin: Readable.from([]), stdout: out, stderr: process.stderr, env });
  assert.equal(code, 0, argv.join(' '));
  return Buffer.concat(chunks).toString('utf8');
}

describe('docs/auth.md: signing a request by hand', { timeout: 30_000 }, () => {
  let app: FastifyInstance;
  let dir: string;
  let env: Record<string, string>;
  let integratorId: string;
  before(async () => {
    ({ app } = await buildTestApp({}, (a) =>
      a.post('/v1/echo', async (request) => ({ integratorId: request.integratorId, body: request.body })),
    ));
    env = { HERALD_URL: await listen(app), HERALD_ADMIN_TOKEN: ADMIN_TOKEN };
    dir = mkdtempSync(join(tmpdir(), 'herald-auth-docs-'));
    integratorId = (JSON.parse(await herald(env, ['integrators', 'create', 'by hand'])) as { id: string }).id;
    writeFileSync(join(dir, 'key.pem'), await herald({}, ['keygen', '--pem']), { mode: 0o600 });
    await herald(env, ['keys', 'add', integratorId, '--pem', join(dir, 'key.pem')]);
  });
  after(async () => {
    rmSync(dir, { recursive: true, force: true });
    await closeTestApp(app);
  });

  const run = (vars: Record<string, string>, code = script) =>
    promisify(execFile)('bash', ['-c', code ?? 'exit 2'], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '', HERALD_URL: env.HERALD_URL!, KEY_FILE: join(dir, 'key.pem'), ...vars },
    });

  it('has one bash block that signs with openssl dgst -sha256', () => {
    assert.ok(script?.includes('openssl dgst -sha256 -sign'));
  });

  it('signs a GET with a query: the server accepts it', async () => {
    const { stdout } = await run({ METHOD: 'GET', TARGET: '/v1/credentials/current?via=docs&x=a%20b', BODY: '' });
    assert.equal((JSON.parse(stdout) as { integratorId: string }).integratorId, integratorId);
  });

  it('signs a POST with a UTF-8 JSON body: the server accepts it and sees the body', async () => {
    const body = '{"hello": "wörld", "n": [1, 2]}';
    const { stdout } = await run({ METHOD: 'POST', TARGET: '/v1/echo?via=docs', BODY: body });
    assert.deepEqual(JSON.parse(stdout), { integratorId, body: JSON.parse(body) });
  });

  it('fails (curl exits non-zero) when the body is changed after signing', async () => {
    const tampered = script?.replace('--data-binary "$BODY"', '--data-binary "$BODY "');
    assert.notEqual(tampered, script);
    await assert.rejects(
      run({ METHOD: 'POST', TARGET: '/v1/echo?via=tampered', BODY: '{"a":1}' }, tampered),
      (err: { stdout: string }) => JSON.parse(err.stdout).status === 401,
    );
  });
});
