import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { sign } from 'node:crypto';
import { p256 } from '@noble/curves/nist.js';
import { compressedHexOf, generateP256Key } from '../../src/crypto/p256.js';

describe('generateP256Key', () => {
  it('makes a P-256 private key whose public key noble derives from its scalar alike', () => {
    const key = generateP256Key();
    assert.equal(key.type, 'private');
    assert.equal(key.asymmetricKeyType, 'ec');
    assert.equal(key.asymmetricKeyDetails?.namedCurve, 'prime256v1');
    const d = Buffer.from(key.export({ format: 'jwk' }).d ?? '', 'base64url');
    assert.equal(d.length, 32);
    assert.equal(compressedHexOf(key), Buffer.from(p256.getPublicKey(d, true)).toString('hex'));
  });

  it('signs what noble verifies, and every key is new', () => {
    const key = generateP256Key();
    const msg = Buffer.from('herald');
    const sig = sign('sha256', msg, { key, dsaEncoding: 'ieee-p1363' });
    const pub = Buffer.from(compressedHexOf(key), 'hex');
    assert.ok(p256.verify(sig, msg, pub, { lowS: false }));
    const others = new Set(Array.from({ length: 20 }, () => compressedHexOf(generateP256Key())));
    assert.equal(others.size, 20);
  });
});
