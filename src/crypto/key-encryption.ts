import {
  createCipheriv,
  createDecipheriv,
  createHash,
  createPrivateKey,
  randomBytes,
  type KeyObject,
} from 'node:crypto';
import { compressedHexOf, generateP256Key } from './p256.js';

/**
 * A subscription's private signing key sealed with the master key, as stored in MongoDB. `v` and `kid` exist so the
 * master key can be rotated later: `kid` names the master key that sealed this one, so a vault holding several
 * master keys knows which to open it with, and a wrong master key fails with a clear message instead of a bare
 * authentication error.
 */
export interface SealedKey {
  readonly v: 1;
  readonly alg: 'A256GCM';
  /** Fingerprint of the master key (16 hex chars of a domain-separated SHA-256): not secret, not reversible. */
  readonly kid: string;
  readonly iv: string;
  readonly ciphertext: string;
  readonly tag: string;
}

export interface KeyVault {
  /** The kid this vault seals with. */
  readonly kid: string;
  /** `aad` binds the sealed key to its owner (callers pass the subscription id): a copied document will not open. */
  seal(privateKey: KeyObject, aad: string): SealedKey;
  open(sealed: SealedKey, aad: string): KeyObject;
}

export interface SigningKey {
  readonly privateKey: KeyObject;
  /** Compressed SEC1 hex, lowercase, no prefix: the subscription's `publicKey` (§2.4). */
  readonly publicKeyHex: string;
}

export class KeyVaultError extends Error {
  override readonly name = 'KeyVaultError';
}

const IV_BYTES = 12;
const TAG_BYTES = 16;

/** The kid of a master key. The domain prefix keeps this hash from equalling any other use of the key bytes. */
export function masterKeyId(masterKey: Buffer): string {
  return createHash('sha256').update('herald/master-key-id/v1\0').update(masterKey).digest('hex').slice(0, 16);
}

function assertP256Private(key: KeyObject): void {
  if (key.type !== 'private' || key.asymmetricKeyType !== 'ec' || key.asymmetricKeyDetails?.namedCurve !== 'prime256v1')
    throw new KeyVaultError('only P-256 private keys are sealed');
}

function decode(sealed: SealedKey, field: 'iv' | 'ciphertext' | 'tag', bytes?: number): Buffer {
  const value = sealed[field];
  const buf = typeof value === 'string' ? Buffer.from(value, 'base64') : Buffer.alloc(0);
  if (buf.length === 0 || (bytes !== undefined && buf.length !== bytes))
    throw new KeyVaultError(`sealed key: bad ${field}`);
  return buf;
}

/** AES-256-GCM over the PKCS#8 DER of the private key; a fresh random IV per seal. */
export function createKeyVault(masterKey: Buffer): KeyVault {
  if (masterKey.length !== 32) throw new KeyVaultError('the master key must be 32 bytes');
  // Own copy: the caller's buffer may be reused or zeroed.
  const key = Buffer.from(masterKey);
  const kid = masterKeyId(key);

  return {
    kid,
    seal(privateKey, aad) {
      assertP256Private(privateKey);
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
      cipher.setAAD(Buffer.from(aad, 'utf8'));
      const der = privateKey.export({ type: 'pkcs8', format: 'der' });
      try {
        const ciphertext = Buffer.concat([cipher.update(der), cipher.final()]);
        return {
          v: 1,
          alg: 'A256GCM',
          kid,
          iv: iv.toString('base64'),
          ciphertext: ciphertext.toString('base64'),
          tag: cipher.getAuthTag().toString('base64'),
        };
      } finally {
        der.fill(0);
      }
    },

    open(sealed, aad) {
      if (sealed.v !== 1 || sealed.alg !== 'A256GCM')
        throw new KeyVaultError(`sealed key: unsupported version/algorithm ${String(sealed.v)}/${String(sealed.alg)}`);
      if (sealed.kid !== kid)
        throw new KeyVaultError(`sealed key: sealed with master key ${String(sealed.kid)}, this vault holds ${kid}`);
      // authTagLength pins the tag size: without it GCM would accept a truncated tag.
      const decipher = createDecipheriv('aes-256-gcm', key, decode(sealed, 'iv', IV_BYTES), {
        authTagLength: TAG_BYTES,
      });
      decipher.setAAD(Buffer.from(aad, 'utf8'));
      decipher.setAuthTag(decode(sealed, 'tag', TAG_BYTES));
      let der: Buffer;
      try {
        der = Buffer.concat([decipher.update(decode(sealed, 'ciphertext')), decipher.final()]);
      } catch {
        throw new KeyVaultError('sealed key: authentication failed (wrong owner, master key, or tampered bytes)');
      }
      try {
        const privateKey = createPrivateKey({ key: der, format: 'der', type: 'pkcs8' });
        assertP256Private(privateKey);
        return privateKey;
      } finally {
        der.fill(0);
      }
    },
  };
}

/** A new P-256 signing key for a subscription (`generateP256Key`: why not `generateKeyPairSync`). */
export function generateSigningKey(): SigningKey {
  const privateKey = generateP256Key();
  return { privateKey, publicKeyHex: compressedHexOf(privateKey) };
}
