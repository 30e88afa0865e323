import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync, randomBytes, randomUUID, sign, verify } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { p256 } from '@noble/curves/nist.js';
import { ConfigError, loadConfig } from '../../src/config.js';
import { KeyVaultError, createKeyVault, generateSigningKey, type SealedKey } from '../../src/crypto/key-encryption.js';
import { loadMasterKey } from '../../src/crypto/master-key.js';
import { parsePublicKeyHex } from '../../src/crypto/p256.js';

const masterKey = randomBytes(32);
const vault = createKeyVault(masterKey);
const subscriptionId = randomUUID();

/** Flips one bit of a base64 field. */
function tamper(sealed: SealedKey, field: 'iv' | 'ciphertext' | 'tag'): SealedKey {
  const bytes = Buffer.from(sealed[field], 'base64');
  bytes[bytes.length - 1] = (bytes[bytes.length - 1] ?? 0) ^ 1;
  return { ...sealed, [field]: bytes.toString('base64') };
}

describe('generateSigningKey', () => {
  it('makes a P-256 key whose compressed public hex matches noble and the codec', () => {
    const { privateKey, publicKeyHex } = generateSigningKey();
    assert.match(publicKeyHex, /^0[23][0-9a-f]{64}$/);
    const d = Buffer.from(privateKey.export({ format: 'jwk' }).d ?? '', 'base64url');
    assert.equal(Buffer.from(p256.getPublicKey(d, true)).toString('hex'), publicKeyHex);
    assert.equal(parsePublicKeyHex(publicKeyHex).compressedHex, publicKeyHex);
  });
});

describe('createKeyVault', () => {
  it('opens what it sealed: the same key, able to sign', () => {
    const { privateKey, publicKeyHex } = generateSigningKey();
    const sealed = vault.seal(privateKey, subscriptionId);
    assert.equal(sealed.v, 1);
    assert.equal(sealed.alg, 'A256GCM');
    assert.equal(sealed.kid, vault.kid);
    assert.equal(Buffer.from(sealed.iv, 'base64').length, 12);
    assert.equal(Buffer.from(sealed.tag, 'base64').length, 16);
    const opened = vault.open(JSON.parse(JSON.stringify(sealed)) as SealedKey, subscriptionId);
    assert.ok(opened.equals(privateKey));
    const sig = sign('sha256', Buffer.from('x'), opened);
    assert.ok(verify('sha256', Buffer.from('x'), parsePublicKeyHex(publicKeyHex).keyObject, sig));
  });

  it('uses a fresh IV per seal', () => {
    const { privateKey } = generateSigningKey();
    const a = vault.seal(privateKey, subscriptionId);
    const b = vault.seal(privateKey, subscriptionId);
    assert.notEqual(a.iv, b.iv);
    assert.notEqual(a.ciphertext, b.ciphertext);
  });

  it('refuses another owner (AAD), tampered bytes, and another master key', () => {
    const sealed = vault.seal(generateSigningKey().privateKey, subscriptionId);
    assert.throws(() => vault.open(sealed, randomUUID()), KeyVaultError);
    assert.throws(() => vault.open(sealed, ''), KeyVaultError);
    for (const field of ['iv', 'ciphertext', 'tag'] as const)
      assert.throws(() => vault.open(tamper(sealed, field), subscriptionId), KeyVaultError);
    const shortTag = { ...sealed, tag: Buffer.from(sealed.tag, 'base64').subarray(0, 12).toString('base64') };
    assert.throws(() => vault.open(shortTag, subscriptionId), /bad tag/);
    assert.throws(() => vault.open({ ...sealed, v: 2 } as unknown as SealedKey, subscriptionId), /version/);
    const other = createKeyVault(randomBytes(32));
    assert.throws(() => other.open(sealed, subscriptionId), /sealed with master key/);
    // Even with a forged kid, a different master key fails authentication.
    assert.throws(() => other.open({ ...sealed, kid: other.kid }, subscriptionId), /authentication failed/);
  });

  it('seals only P-256 private keys and needs a 32-byte master key', () => {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-384' });
    assert.throws(() => vault.seal(privateKey, subscriptionId), KeyVaultError);
    assert.throws(() => vault.seal(publicKey, subscriptionId), KeyVaultError);
    assert.throws(() => vault.seal(generateKeyPairSync('ed25519').privateKey, subscriptionId), KeyVaultError);
    assert.throws(() => createKeyVault(randomBytes(16)), KeyVaultError);
  });

  it('stores no encoding of the private key: no PKCS#8 DER, PEM body or scalar d', () => {
    const { privateKey } = generateSigningKey();
    const json = JSON.stringify(vault.seal(privateKey, subscriptionId));
    const der = privateKey.export({ type: 'pkcs8', format: 'der' });
    const sec1 = privateKey.export({ type: 'sec1', format: 'der' });
    const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const d = Buffer.from(privateKey.export({ format: 'jwk' }).d ?? '', 'base64url');
    const pemLines = pem.split('\n').filter((l) => l !== '' && !l.startsWith('-----'));
    const forbidden = [
      ...[der, sec1, d].flatMap((b) => [b.toString('base64'), b.toString('hex'), b.toString('base64url')]),
      ...pemLines,
      'PRIVATE KEY',
      // Shorter fragments: the scalar's first 12 bytes in each encoding.
      ...['base64', 'hex', 'base64url'].map((enc) => d.subarray(0, 12).toString(enc as BufferEncoding)),
    ];
    for (const secret of forbidden) assert.ok(!json.includes(secret), `sealed JSON contains ${secret}`);
    assert.ok(!json.toLowerCase().includes(d.toString('hex')));
  });
});

describe('loadMasterKey', () => {
  const key = randomBytes(32).toString('base64');

  it('refuses to start without a key, naming the variable and the one opt-in', () => {
    for (const NODE_ENV of ['production', 'development', 'test'])
      assert.throws(
        () => loadMasterKey(loadConfig({ NODE_ENV })),
        (err: unknown) =>
          err instanceof ConfigError &&
          /HERALD_MASTER_KEY: required/.test(err.message) &&
          /HERALD_INSECURE_EPHEMERAL_MASTER_KEY/.test(err.message),
        NODE_ENV,
      );
    assert.throws(() => loadMasterKey(loadConfig({ HERALD_INSECURE_EPHEMERAL_MASTER_KEY: '0' })), /required/);
    assert.throws(() => loadConfig({ HERALD_INSECURE_EPHEMERAL_MASTER_KEY: 'yes' }), /HERALD_INSECURE_EPHEMERAL/);
  });

  it('uses a per-process random key, with a warning, only on HERALD_INSECURE_EPHEMERAL_MASTER_KEY=1', () => {
    const a = loadMasterKey(loadConfig({ NODE_ENV: 'development', HERALD_INSECURE_EPHEMERAL_MASTER_KEY: '1' }));
    const b = loadMasterKey(loadConfig({ NODE_ENV: 'test', HERALD_INSECURE_EPHEMERAL_MASTER_KEY: '1' }));
    assert.equal(a.key.length, 32);
    assert.equal(a.source, 'ephemeral');
    assert.match(a.warning ?? '', /random/);
    assert.ok(!a.key.equals(b.key));
    assert.throws(
      () => loadMasterKey(loadConfig({ NODE_ENV: 'production', HERALD_INSECURE_EPHEMERAL_MASTER_KEY: '1' })),
      /refused with NODE_ENV=production/,
    );
  });

  it('reads HERALD_MASTER_KEY, and rejects bad base64 or length naming the variable', () => {
    const loaded = loadMasterKey(loadConfig({ NODE_ENV: 'production', HERALD_MASTER_KEY: key }));
    assert.deepEqual(loaded, { key: Buffer.from(key, 'base64'), source: 'HERALD_MASTER_KEY' });
    assert.ok(loadMasterKey(loadConfig({ HERALD_MASTER_KEY: key.replace(/=$/, '') })).key.equals(loaded.key));
    const bad = [randomBytes(16).toString('base64'), randomBytes(33).toString('base64'), `${key.slice(0, -2)}!=`];
    bad.push(`${key.slice(0, 42)}${key[42] === 'B' ? 'C' : 'B'}=`); // non-canonical last character
    bad.push(randomBytes(32).toString('hex'));
    for (const value of bad)
      assert.throws(
        () => loadMasterKey(loadConfig({ HERALD_MASTER_KEY: value })),
        (err: unknown) => err instanceof ConfigError && /HERALD_MASTER_KEY: must be the base64 of/.test(err.message),
        value,
      );
  });

  it('reads HERALD_MASTER_KEY_FILE (trailing newline allowed) and names it when it is bad', () => {
    const dir = mkdtempSync(join(tmpdir(), 'herald-key-'));
    try {
      const file = join(dir, 'master.key');
      writeFileSync(file, `${key}\n`);
      const loaded = loadMasterKey(loadConfig({ NODE_ENV: 'production', HERALD_MASTER_KEY_FILE: file }));
      assert.ok(loaded.key.equals(Buffer.from(key, 'base64')));
      assert.equal(loaded.source, 'HERALD_MASTER_KEY_FILE');
      writeFileSync(file, 'short');
      assert.throws(() => loadMasterKey(loadConfig({ HERALD_MASTER_KEY_FILE: file })), /HERALD_MASTER_KEY_FILE/);
      const missing = join(dir, 'absent.key');
      assert.throws(
        () => loadMasterKey(loadConfig({ HERALD_MASTER_KEY_FILE: missing })),
        /HERALD_MASTER_KEY_FILE.*ENOENT/,
      );
      assert.throws(
        () => loadMasterKey(loadConfig({ HERALD_MASTER_KEY: key, HERALD_MASTER_KEY_FILE: file })),
        /not both/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
