import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID, type KeyObject } from 'node:crypto';
import { p256 } from '@noble/curves/nist.js';
import { generateSigningKey } from '../../src/crypto/key-encryption.js';
import { buildWebhookHeaders, signWebhook, signedInput } from '../../src/crypto/webhook-signature.js';
import {
  InvalidKeyError,
  WEBHOOK_HEADERS as H,
  WebhookVerificationError,
  WebhookVerifier,
  type WebhookVerificationErrorCode,
} from '../../src/receiver/index.js';

const event = {
  id: randomUUID(),
  eventType: 'transaction.completed',
  occurredAt: '2025-01-02T03:04:05.000Z',
  livemode: false,
  payloadVersion: 1,
  integratorId: randomUUID(),
  transactionId: randomUUID(),
  accountId: null,
  provider: 'service',
  data: { amount: '10.00', note: 'café ✓' },
};
const body = JSON.stringify(event);
const nowSec = Math.floor(Date.now() / 1000);
const now = new Date(nowSec * 1000);

const active = generateSigningKey();

/** A delivery as Herald sends it: raw body and headers. */
function deliver(opts: { key?: KeyObject; keyId?: string; ts?: number; rawBody?: string | Buffer } = {}): {
  rawBody: Buffer;
  headers: Record<string, string>;
} {
  const rawBody = Buffer.from(opts.rawBody ?? body);
  const deliveryId = randomUUID();
  const timestamp = opts.ts ?? nowSec;
  const signature = signWebhook(opts.key ?? active.privateKey, deliveryId, timestamp, rawBody);
  const headers = buildWebhookHeaders({
    deliveryId,
    eventId: event.id,
    keyId: opts.keyId ?? 'k1',
    timestamp,
    signature,
  });
  return { rawBody, headers };
}

function rejects(fn: () => unknown, code: WebhookVerificationErrorCode): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof WebhookVerificationError, String(err));
    assert.equal(err.code, code, err.message);
    return true;
  });
}

describe('WebhookVerifier', () => {
  const verifier = new WebhookVerifier(active.publicKeyHex);

  it('accepts a good delivery and returns the parsed body', () => {
    const { rawBody, headers } = deliver();
    assert.deepEqual(verifier.verify(rawBody, headers, { now }), event);
    assert.deepEqual(verifier.verify(new Uint8Array(rawBody), headers, { now }), event);
    assert.deepEqual(verifier.verify(rawBody.toString('utf8'), headers, { now }), event);
    assert.deepEqual(new WebhookVerifier(`0x${active.publicKeyHex}`).verify(rawBody, headers, { now }), event);
  });

  it('matches header names case-insensitively, from plain objects and fetch Headers', () => {
    const { rawBody, headers } = deliver();
    const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
    const upper = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toUpperCase(), v]));
    const arrays = Object.fromEntries(Object.entries(lower).map(([k, v]) => [k, [v]]));
    for (const h of [lower, upper, arrays, new Headers(headers)])
      assert.equal(verifier.verify(rawBody, h, { now }).id, event.id);
  });

  it('rejects a change to one byte of the body, the timestamp, the delivery id or the signature', () => {
    const { rawBody, headers } = deliver();
    const flipped = Buffer.from(rawBody);
    flipped[10] = (flipped[10] ?? 0) ^ 0x01;
    rejects(() => verifier.verify(flipped, headers, { now }), 'invalid_signature');
    const ts = { ...headers, [H.timestamp]: String(nowSec - 1) };
    rejects(() => verifier.verify(rawBody, ts, { now }), 'invalid_signature');
    const id = { ...headers, [H.deliveryId]: randomUUID() };
    rejects(() => verifier.verify(rawBody, id, { now }), 'invalid_signature');
    const sig = headers[H.signature] ?? '';
    const other = { ...headers, [H.signature]: `${sig.slice(0, 40)}${sig[40] === '0' ? '1' : '0'}${sig.slice(41)}` };
    rejects(() => verifier.verify(rawBody, other, { now }), 'invalid_signature');
  });

  it('rejects the same JSON re-serialised with other whitespace', () => {
    const { headers } = deliver();
    rejects(() => verifier.verify(JSON.stringify(event, null, 2), headers, { now }), 'invalid_signature');
    rejects(() => verifier.verify(`${body}\n`, headers, { now }), 'invalid_signature');
  });

  it('requires each of the six headers', () => {
    const { rawBody, headers } = deliver();
    for (const name of Object.values(H)) {
      const { [name]: _dropped, ...rest } = headers;
      rejects(() => verifier.verify(rawBody, rest, { now }), 'missing_header');
      rejects(() => verifier.verify(rawBody, { ...rest, [name]: '' }, { now }), 'missing_header');
    }
  });

  it('rejects another algorithm', () => {
    const { rawBody, headers } = deliver();
    for (const alg of ['ECDSA_P384_SHA384', 'ecdsa_p256_sha256', 'HMAC_SHA256'])
      rejects(() => verifier.verify(rawBody, { ...headers, [H.algorithm]: alg }, { now }), 'unsupported_algorithm');
  });

  it('accepts timestamps within ±(tolerance − 1) s and rejects ±(tolerance + 1) s', () => {
    for (const tolerance of [300, 5]) {
      const v = new WebhookVerifier(active.publicKeyHex, { toleranceSec: tolerance });
      for (const sign of [1, -1]) {
        const inside = deliver({ ts: nowSec + sign * (tolerance - 1) });
        assert.equal(v.verify(inside.rawBody, inside.headers, { now }).id, event.id);
        const outside = deliver({ ts: nowSec + sign * (tolerance + 1) });
        rejects(() => v.verify(outside.rawBody, outside.headers, { now }), 'timestamp_out_of_tolerance');
      }
    }
    const old = deliver({ ts: nowSec - 1000 });
    assert.equal(verifier.verify(old.rawBody, old.headers, { now, toleranceSec: 1001 }).id, event.id);
    rejects(() => verifier.verify(old.rawBody, old.headers), 'timestamp_out_of_tolerance');
  });

  it('rejects malformed timestamps and signatures before verifying', () => {
    const { rawBody, headers } = deliver();
    for (const ts of ['1.5e9', '-5', `${nowSec}.0`, 'now', '9'.repeat(13)])
      rejects(() => verifier.verify(rawBody, { ...headers, [H.timestamp]: ts }, { now }), 'invalid_timestamp');
    const sig = headers[H.signature] ?? '';
    for (const bad of [sig.slice(2), `${sig}00`, `0x${sig.slice(2)}`, `${sig.slice(0, 127)}g`])
      rejects(() => verifier.verify(rawBody, { ...headers, [H.signature]: bad }, { now }), 'invalid_signature_format');
  });

  it('rejects repeated header values', () => {
    const { rawBody, headers } = deliver();
    const twice = { ...headers, [H.signature.toLowerCase()]: headers[H.signature] };
    rejects(() => verifier.verify(rawBody, twice, { now }), 'invalid_signature_format');
  });

  it('verifies the raw bytes before parsing, then rejects a body that is not an event', () => {
    for (const raw of ['not json', '[1,2]', '{"eventType":"x"}', 'null'])
      rejects(() => {
        const d = deliver({ rawBody: raw });
        verifier.verify(d.rawBody, d.headers, { now });
      }, 'invalid_payload');
    const junk = deliver({ rawBody: 'not json' });
    junk.headers[H.deliveryId] = randomUUID();
    rejects(() => verifier.verify(junk.rawBody, junk.headers, { now }), 'invalid_signature');
  });

  it('accepts signatures made by another implementation (noble, low-S), and their high-S twin', () => {
    const secret = Buffer.from(active.privateKey.export({ format: 'jwk' }).d ?? '', 'base64url');
    const deliveryId = randomUUID();
    const low = p256.sign(signedInput(deliveryId, nowSec, body), secret);
    // OpenSSL accepts either s; harmless here, since receivers de-duplicate by delivery id, not by signature.
    const sig = p256.Signature.fromBytes(low);
    const high = new p256.Signature(sig.r, p256.Point.Fn.ORDER - sig.s).toBytes();
    for (const bytes of [low, high]) {
      const headers = buildWebhookHeaders({
        deliveryId,
        eventId: event.id,
        keyId: 'k1',
        timestamp: nowSec,
        signature: Buffer.from(bytes).toString('hex'),
      });
      assert.equal(verifier.verify(body, headers, { now }).id, event.id);
    }
  });

  it('refuses a public key that is not a compressed P-256 point', () => {
    assert.throws(() => new WebhookVerifier(`02${'00'.repeat(31)}01`), InvalidKeyError); // x = 1: not on the curve
    assert.throws(() => new WebhookVerifier(`04${active.publicKeyHex.slice(2)}`), InvalidKeyError);
    assert.throws(() => new WebhookVerifier('zz'), InvalidKeyError);
    assert.throws(() => WebhookVerifier.fromKeys({}), RangeError);
    assert.throws(() => WebhookVerifier.fromKeys({ good: active.publicKeyHex, bad: '03ff' }), /key bad/);
  });
});

describe('WebhookVerifier.fromKeys', () => {
  it('picks the key named by Key-Id, across a rotation', () => {
    const next = generateSigningKey();
    const verifier = WebhookVerifier.fromKeys({ k1: active.publicKeyHex, k2: next.publicKeyHex });
    const before = deliver({ key: active.privateKey, keyId: 'k1' });
    const after = deliver({ key: next.privateKey, keyId: 'k2' });
    assert.equal(verifier.verify(before.rawBody, before.headers, { now }).id, event.id);
    assert.equal(verifier.verify(after.rawBody, after.headers, { now }).id, event.id);
    const mislabelled = deliver({ key: active.privateKey, keyId: 'k2' });
    rejects(() => verifier.verify(mislabelled.rawBody, mislabelled.headers, { now }), 'invalid_signature');
    const unknown = deliver({ key: next.privateKey, keyId: 'k3' });
    rejects(() => verifier.verify(unknown.rawBody, unknown.headers, { now }), 'unknown_key');
    // After the old key is retired, its deliveries no longer verify.
    const retired = WebhookVerifier.fromKeys({ k2: next.publicKeyHex });
    rejects(() => retired.verify(before.rawBody, before.headers, { now }), 'unknown_key');
  });
});
