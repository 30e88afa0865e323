// The operator CLI against a real listening app: each command's `run` with in-memory streams, then `bin/herald.mjs`
// spawned as a real process.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createPrivateKey, createPublicKey } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { FastifyInstance } from 'fastify';
import { HeraldClient } from '../../src/client/herald-client.js';
import { compressedHexOf } from '../../src/crypto/p256.js';
import { runCli } from '../../src/cli/main.js';
import { buildTestApp, closeTestApp } from '../helpers/app.js';
import { ADMIN_TOKEN, listen, newKeyPair } from '../helpers/integrators.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function sink(): { stream: PassThrough; text: () => string } {
  const stream = new PassThrough();
  const chunks: Buffer[] = [];
  stream.on('data', (c: Buffer) => chunks.push(c));
  return { stream, text: () => Buffer.concat(chunks).toString('utf8') };
}

/** Runs `herald …argv` in process with in-memory stdin/stdout/stderr. */
async function herald(env: Record<string, string>, argv: string[], stdin = ''): Promise<Run> {
  const out = sink();
  const err = sink();
  const code = await runCli(argv, { stdin: Readable.from([stdin]), stdout: out.stream, stderr: err.stream, env });
  return { code, stdout: out.text(), stderr: err.text() };
}

const json = <T>(r: Run): T => JSON.parse(r.stdout) as T;

interface KeyOut {
  id: string;
  publicKey: string;
  revokedAt: string | null;
}

describe('herald CLI', { timeout: 60_000 }, () => {
  let app: FastifyInstance;
  let env: Record<string, string>;
  let dir: string;
  before(async () => {
    ({ app } = await buildTestApp());
    env = { HERALD_URL: await listen(app), HERALD_ADMIN_TOKEN: ADMIN_TOKEN };
    dir = mkdtempSync(join(tmpdir(), 'herald-cli-'));
  });
  after(async () => {
    rmSync(dir, { recursive: true, force: true });
    await closeTestApp(app);
  });

  it('keygen prints a fresh PKCS#8 private key and its compressed public key, JSON or PEM', async () => {
    const a = await herald({}, ['keygen']);
    assert.equal(a.code, 0, a.stderr);
    const pair = json<{ publicKey: string; privateKey: string }>(a);
    assert.match(pair.privateKey, /^-----BEGIN PRIVATE KEY-----\n[\s\S]+\n-----END PRIVATE KEY-----\n$/);
    const key = createPrivateKey(pair.privateKey);
    assert.equal(key.asymmetricKeyDetails?.namedCurve, 'prime256v1');
    assert.match(pair.publicKey, /^0x0[23][0-9a-f]{64}$/);
    assert.equal(pair.publicKey, `0x${compressedHexOf(key)}`);
    const b = json<{ publicKey: string }>(await herald({}, ['keygen']));
    assert.notEqual(b.publicKey, pair.publicKey, 'a fresh pair each time');

    const pem = await herald({}, ['keygen', '--pem']);
    assert.equal(pem.code, 0);
    const [first] = pem.stdout.split('\n');
    const pub = /^X-Pubkey: (0x0[23][0-9a-f]{64})$/.exec(first ?? '')?.[1];
    assert.ok(pub, first);
    assert.equal(`0x${compressedHexOf(createPrivateKey(pem.stdout))}`, pub, 'the PEM file reads as is');
  });

  it('creates an integrator, adds keys (hex, --pem file, --pem - on stdin), shows and revokes them', async () => {
    const created = await herald(env, ['integrators', 'create', 'Acme Payments']);
    assert.equal(created.code, 0, created.stderr);
    const integrator = json<{ id: string; name: string; createdAt: string }>(created);
    assert.equal(integrator.name, 'Acme Payments');

    const viaHex = newKeyPair();
    const hex = `0x${compressedHexOf(viaHex.privateKey)}`;
    const added = await herald(env, ['keys', 'add', integrator.id, hex]);
    assert.equal(added.code, 0, added.stderr);
    const key = json<KeyOut>(added);
    assert.equal(key.publicKey, hex);

    const viaFile = newKeyPair();
    const file = join(dir, 'private.pem');
    writeFileSync(file, viaFile.privateKey.export({ format: 'pem', type: 'pkcs8' }), { mode: 0o600 });
    const fromFile = await herald(env, ['keys', 'add', integrator.id, '--pem', file]);
    assert.equal(fromFile.code, 0, fromFile.stderr);
    assert.equal(json<KeyOut>(fromFile).publicKey, `0x${compressedHexOf(viaFile.privateKey)}`);

    const viaStdin = newKeyPair();
    const spki = createPublicKey(viaStdin.privateKey).export({ format: 'pem', type: 'spki' }) as string;
    const fromStdin = await herald(env, ['keys', 'add', integrator.id, '--pem', '-'], spki);
    assert.equal(fromStdin.code, 0, fromStdin.stderr);
    assert.equal(json<KeyOut>(fromStdin).publicKey, `0x${compressedHexOf(viaStdin.privateKey)}`);

    const got = json<{ id: string; keys: KeyOut[] }>(await herald(env, ['integrators', 'get', integrator.id]));
    assert.equal(got.id, integrator.id);
    assert.equal(got.keys.length, 3);

    // The registered key signs real requests; revoked, it no longer does.
    const client = new HeraldClient({ baseUrl: env.HERALD_URL!, privateKey: viaHex.privateKey });
    assert.equal((await client.credential()).keyId, key.id);
    const revoked = await herald(env, ['keys', 'revoke', integrator.id, key.id]);
    assert.equal(revoked.code, 0, revoked.stderr);
    const revokedKey = json<KeyOut>(revoked);
    assert.equal(revokedKey.id, key.id);
    assert.ok(revokedKey.revokedAt && !Number.isNaN(Date.parse(revokedKey.revokedAt)));
    await assert.rejects(client.credential(), { name: 'HeraldApiError', status: 401 });
  });

  it("portal link: an operator's for an integrator, or the integrator's own signed one; portal revoke ends them", async () => {
    const { id } = json<{ id: string }>(await herald(env, ['integrators', 'create', 'Portal Co']));
    const pair = newKeyPair();
    assert.equal((await herald(env, ['keys', 'add', id, `0x${compressedHexOf(pair.privateKey)}`])).code, 0);
    const operator = await herald(env, ['portal', 'link', id, '--read-only', '--ttl', '15m']);
    assert.equal(operator.code, 0, operator.stderr);
    const made = json<{ url: string; expiresAt: string }>(operator);
    assert.match(made.url, /\/portal\/#token=[A-Za-z0-9_-]{43}$/);
    const file = join(dir, 'portal.pem');
    writeFileSync(file, pair.privateKey.export({ format: 'pem', type: 'pkcs8' }), { mode: 0o600 });
    const own = await herald({ HERALD_URL: env.HERALD_URL! }, ['portal', 'link', '--key', file]);
    assert.equal(own.code, 0, own.stderr);
    const stored = await app.store.portalSessions.sessions.find({ integratorId: id }).toArray();
    assert.deepEqual(stored.map((d) => [d.scope, d.sessionMs]).sort(), [
      ['manage', 3_600_000],
      ['read', 900_000],
    ]);
    const bad = await herald(env, ['portal', 'link', id, '--ttl', 'soon']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--ttl: expected a duration/);
    const revoked = await herald(env, ['portal', 'revoke', id]);
    assert.equal(revoked.code, 0, revoked.stderr);
    assert.deepEqual(json(revoked), { revoked: 2 });
  });

  it('reports API errors on stderr with exit status 1 and nothing on stdout', async () => {
    const { id } = json<{ id: string }>(await herald(env, ['integrators', 'create', 'Dup']));
    const pk = `0x${compressedHexOf(newKeyPair().privateKey)}`;
    assert.equal((await herald(env, ['keys', 'add', id, pk])).code, 0);
    const cases: Array<[string[], Record<string, string>, RegExp]> = [
      [['keys', 'add', id, pk], env, /^herald keys add: 409 conflict/],
      [['keys', 'add', id, '0x1234'], env, /^herald keys add: 400 invalid_public_key: body\.publicKey/],
      [['integrators', 'get', '00000000-0000-4000-8000-000000000000'], env, /^herald integrators get: 404 not_found/],
      [['integrators', 'get', 'not-a-uuid'], env, /^herald integrators get: 400 invalid_request/],
      [['keys', 'revoke', id, '00000000-0000-4000-8000-000000000000'], env, /: 404 not_found/],
      [['integrators', 'get', id], { ...env, HERALD_ADMIN_TOKEN: 'wrong-token-0123456789' }, /: 401 unauthorized/],
      [['integrators', 'get', id], { HERALD_URL: env.HERALD_URL! }, /HERALD_ADMIN_TOKEN is not set/],
      [['keys', 'add', id, '--pem', join(dir, 'missing.pem')], env, /cannot read .*missing\.pem: ENOENT/],
      [['keys', 'add', id, '--pem', '-'], env, /stdin does not hold a PEM P-256 key/],
      [
        ['integrators', 'get', id],
        { ...env, HERALD_URL: 'http://127.0.0.1:9' },
        /cannot reach http:\/\/127\.0\.0\.1:9: /,
      ],
    ];
    for (const [argv, e, stderr] of cases) {
      const r = await herald(e, argv);
      assert.equal(r.code, 1, argv.join(' '));
      assert.match(r.stderr, stderr, argv.join(' '));
      assert.equal(r.stdout, '', argv.join(' '));
    }
  });

  it('answers usage mistakes with exit status 2 and help with 0', async () => {
    for (const argv of [
      [],
      ['frobnicate'],
      ['integrators'],
      ['integrators', 'create'],
      ['integrators', 'create', 'a', 'b'],
      ['keys', 'add', 'id-only'],
      ['keys', 'add', 'id', '0x02', '--pem', 'f'],
      ['keys', 'revoke', 'a'],
      ['keygen', '--bogus'],
      ['help', 'nope'],
    ]) {
      const r = await herald(env, argv);
      assert.equal(r.code, 2, argv.join(' '));
      assert.match(r.stderr + r.stdout, /usage: herald/, argv.join(' '));
    }
    const help = await herald({}, ['help']);
    assert.equal(help.code, 0);
    for (const name of ['keygen', 'integrators create', 'integrators get', 'keys add', 'keys revoke'])
      assert.ok(help.stdout.includes(`  ${name} `), name);
    assert.match(help.stdout, /HERALD_URL[\s\S]*HERALD_ADMIN_TOKEN/);
    for (const argv of [['help', 'keys', 'add'], ['keys', 'add', '--help'], ['--help']]) {
      const r = await herald({}, argv);
      assert.equal(r.code, 0, argv.join(' '));
      assert.match(r.stdout, /^usage: herald/);
    }
  });

  it('runs as a real process: bin/herald.mjs keygen and integrators create', async () => {
    const run = promisify(execFile);
    const bin = join(root, 'bin', 'herald.mjs');
    const opts = { cwd: root, env: { ...process.env, ...env }, timeout: 30_000 };
    const keygen = await run(process.execPath, [bin, 'keygen'], opts);
    const pair = JSON.parse(keygen.stdout) as { publicKey: string; privateKey: string };
    assert.equal(`0x${compressedHexOf(createPrivateKey(pair.privateKey))}`, pair.publicKey);

    const created = await run(process.execPath, [bin, 'integrators', 'create', 'Spawned'], opts);
    const { id } = JSON.parse(created.stdout) as { id: string };
    const res = await app.inject({
      method: 'GET',
      url: `/internal/v1/integrators/${id}`,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    assert.equal(res.json<{ name: string }>().name, 'Spawned');

    await assert.rejects(run(process.execPath, [bin, 'integrators', 'get', 'not-a-uuid'], opts), (err: unknown) => {
      const e = err as { code: number; stdout: string; stderr: string };
      return e.code === 1 && e.stdout === '' && /400 invalid_request/.test(e.stderr);
    });
  });
});
