import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { generateKeyPairSync, randomUUID, sign, verify, type KeyObject } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { p256 } from '@noble/curves/nist.js';
import { generateSigningKey } from '../../src/crypto/key-encryption.js';
import {
  HERALD_VERSION,
  WEBHOOK_ALGORITHM,
  WEBHOOK_HEADERS,
  buildWebhookHeaders,
  signWebhook,
  signedInput,
} from '../../src/crypto/webhook-signature.js';

const root = new URL('../../', import.meta.url);
const body = JSON.stringify({ id: randomUUID(), eventType: 'customer.created', data: { name: 'Zoë 🚀' } });
const now = (): number => Math.floor(Date.now() / 1000);

/** The private scalar as noble wants it. */
function secretOf(key: KeyObject): Uint8Array {
  return Buffer.from(key.export({ format: 'jwk' }).d ?? '', 'base64url');
}

const halfN = p256.Point.Fn.ORDER / 2n;
const sOf = (sigHex: string): bigint => BigInt(`0x${sigHex.slice(64)}`);

describe('signedInput', () => {
  it('is "<deliveryId>.<timestamp>." followed by the body bytes, unchanged', () => {
    const raw = Buffer.from([0x7b, 0xff, 0x00, 0x7d]); // not valid UTF-8: must not be re-encoded
    const input = signedInput('d1', 1700000000, raw);
    assert.deepEqual(input, Buffer.concat([Buffer.from('d1.1700000000.'), raw]));
    assert.deepEqual(signedInput('d1', '1700000000', body), signedInput('d1', 1700000000, Buffer.from(body)));
  });
});

describe('signWebhook', () => {
  const { privateKey, publicKeyHex } = generateSigningKey();
  const deliveryId = randomUUID();

  it('emits 64 bytes r‖s as lowercase hex that noble verifies (with lowS: false)', () => {
    const ts = now();
    const sig = signWebhook(privateKey, deliveryId, ts, body);
    assert.match(sig, /^[0-9a-f]{128}$/);
    // OpenSSL does not normalise s, so half its signatures are "high-S"; noble v2 rejects those by default (a
    // Bitcoin-style malleability rule the spec does not ask for). The cross-check must therefore allow both.
    const input = signedInput(deliveryId, ts, body);
    assert.ok(p256.verify(Buffer.from(sig, 'hex'), input, Buffer.from(publicKeyHex, 'hex'), { lowS: false }));
    assert.equal(
      p256.verify(Buffer.from(sig, 'hex'), signedInput(deliveryId, ts + 1, body), Buffer.from(publicKeyHex, 'hex'), {
        lowS: false,
      }),
      false,
    );
  });

  it('produces high-S signatures at times, which noble rejects only under its default lowS policy', () => {
    const ts = now();
    let sig = signWebhook(privateKey, deliveryId, ts, body);
    for (let i = 0; i < 200 && sOf(sig) <= halfN; i++) sig = signWebhook(privateKey, deliveryId, ts, body);
    assert.ok(sOf(sig) > halfN, 'no high-S signature in 200 tries');
    const args = [
      Buffer.from(sig, 'hex'),
      signedInput(deliveryId, ts, body),
      Buffer.from(publicKeyHex, 'hex'),
    ] as const;
    assert.equal(p256.verify(...args), false);
    assert.equal(p256.verify(...args, { lowS: false }), true);
  });

  it('verifies with node what noble signed', () => {
    const ts = now();
    const input = signedInput(deliveryId, ts, body);
    const sig = p256.sign(input, secretOf(privateKey)); // compact r‖s, sha256 prehash
    const pub = generateSigningKey().privateKey; // a different key must not verify
    assert.ok(verify('sha256', input, { key: privateKey, dsaEncoding: 'ieee-p1363' }, sig));
    assert.equal(verify('sha256', input, { key: pub, dsaEncoding: 'ieee-p1363' }, sig), false);
  });

  it('refuses inputs that would make the signed input ambiguous, and non-P-256 keys', () => {
    assert.throws(() => signWebhook(privateKey, 'a.b', now(), body), /deliveryId/);
    assert.throws(() => signWebhook(privateKey, '', now(), body), /deliveryId/);
    assert.throws(() => signWebhook(privateKey, deliveryId, 1.5, body), /timestamp/);
    assert.throws(() => signWebhook(privateKey, deliveryId, -1, body), /timestamp/);
    const p384 = generateKeyPairSync('ec', { namedCurve: 'P-384' }).privateKey;
    assert.throws(() => signWebhook(p384, deliveryId, now(), body), /P-256/);
  });
});

describe('buildWebhookHeaders', () => {
  it('sets the six §6.4 headers, the content type and the user agent', () => {
    const headers = buildWebhookHeaders({ deliveryId: 'd', eventId: 'e', keyId: 'k', timestamp: 17, signature: 's' });
    assert.deepEqual(headers, {
      'Content-Type': 'application/json',
      'User-Agent': `Herald-Webhooks/${HERALD_VERSION}`,
      'X-Service-Webhook-Delivery-Id': 'd',
      'X-Service-Webhook-Event-Id': 'e',
      'X-Service-Webhook-Timestamp': '17',
      'X-Service-Webhook-Key-Id': 'k',
      'X-Service-Webhook-Algorithm': 'ECDSA_P256_SHA256',
      'X-Service-Webhook-Signature': 's',
    });
    assert.equal(WEBHOOK_ALGORITHM, 'ECDSA_P256_SHA256');
    assert.equal(Object.keys(WEBHOOK_HEADERS).length, 6);
  });

  it('carries the version of package.json', () => {
    const pkg = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as { version: string };
    assert.equal(HERALD_VERSION, pkg.version);
  });
});

describe('docs/verify-with-openssl.md', () => {
  const doc = readFileSync(new URL('docs/verify-with-openssl.md', root), 'utf8');
  const script = /```bash\n([\s\S]*?)```/.exec(doc)?.[1];

  /** Runs the documented recipe in a temp dir; returns openssl's output, or its output when it fails. */
  function runRecipe(vars: Record<string, string>, rawBody: string | Buffer): { ok: boolean; out: string } {
    const dir = mkdtempSync(join(tmpdir(), 'herald-openssl-'));
    try {
      writeFileSync(join(dir, 'body.json'), rawBody);
      const env = { ...process.env, ...vars, BODY_FILE: join(dir, 'body.json') };
      const out = execFileSync('bash', ['-c', script ?? 'exit 2'], { cwd: dir, env, encoding: 'utf8', stdio: 'pipe' });
      return { ok: true, out };
    } catch (err) {
      const e = err as { stdout?: string; stderr?: string };
      return { ok: false, out: `${e.stdout ?? ''}${e.stderr ?? ''}` };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  it('has one bash block', () => assert.ok(script?.includes('openssl dgst -sha256 -verify')));

  it('prints "Verified OK" for a delivery, and "Verification failure" after one byte changes', () => {
    const { privateKey, publicKeyHex } = generateSigningKey();
    const deliveryId = randomUUID();
    const ts = now();
    // r and s whose DER needs a 0x00 pad (high bit) and one that is shorter (leading zero byte) are the edge cases
    // of the hex → DER step; find signatures that hit them.
    const input = signedInput(deliveryId, ts, body);
    const sigs = new Set<string>();
    for (let i = 0; i < 5000 && sigs.size < 2; i++) {
      const sig = sign('sha256', input, { key: privateKey, dsaEncoding: 'ieee-p1363' }).toString('hex');
      if (sigs.size === 0 && /^[89a-f]/.test(sig)) sigs.add(sig);
      if (sigs.size === 1 && (sig.startsWith('00') || sig.slice(64).startsWith('00'))) sigs.add(sig);
    }
    assert.ok(sigs.size === 2, 'no signature with a high-bit r or a leading zero byte in 5000 tries');
    sigs.add(signWebhook(privateKey, deliveryId, ts, body));
    for (const sig of sigs) {
      const vars = { DELIVERY_ID: deliveryId, TIMESTAMP: String(ts), SIGNATURE_HEX: sig, PUBKEY_HEX: publicKeyHex };
      const good = runRecipe(vars, body);
      assert.ok(good.ok && good.out.includes('Verified OK'), good.out);
      const tampered = Buffer.from(body);
      tampered[5] = (tampered[5] ?? 0) ^ 1;
      const bad = runRecipe(vars, tampered);
      assert.ok(!bad.ok && bad.out.includes('Verification failure'), bad.out);
      const wrongTs = runRecipe({ ...vars, TIMESTAMP: String(ts + 1) }, body);
      assert.ok(!wrongTs.ok && wrongTs.out.includes('Verification failure'), wrongTs.out);
      const prefixed = runRecipe({ ...vars, PUBKEY_HEX: `0x${publicKeyHex}` }, body);
      assert.ok(prefixed.ok && prefixed.out.includes('Verified OK'), prefixed.out);
    }
  });
});
