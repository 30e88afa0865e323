import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClientCert, createTestCa } from '../../scripts/lib/test-ca.js';
import { ConfigError, loadConfig } from '../../src/config.js';
import { temporalConnectionOptions } from '../../src/temporal/connection.js';

describe('Temporal connection options from the environment', () => {
  const dir = mkdtempSync(join(tmpdir(), 'herald-temporal-options-'));
  let files: { ca: string; cert: string; key: string; junk: string; apiKey: string };
  before(() => {
    const ca = createTestCa(dir);
    const client = createClientCert(dir, 'client');
    files = { ca: ca.caCert, ...client, junk: join(dir, 'junk.pem'), apiKey: join(dir, 'api.key') };
    writeFileSync(files.junk, 'not a certificate\n');
    writeFileSync(files.apiKey, 'cloud-api-key-123\n');
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const options = (env: Record<string, string>) => temporalConnectionOptions(loadConfig(env));
  const refuses = (env: Record<string, string>, message: RegExp) =>
    assert.throws(
      () => options(env),
      (err: unknown) => err instanceof ConfigError && message.test(err.message),
    );

  it('is plain by default, and TLS with the system CAs on TEMPORAL_TLS=1', () => {
    assert.deepEqual(options({}), { address: '127.0.0.1:7233' });
    assert.deepEqual(options({ TEMPORAL_TLS: '1', TEMPORAL_ADDRESS: 'ns.acct.tmprl.cloud:7233' }), {
      address: 'ns.acct.tmprl.cloud:7233',
      tls: {},
    });
  });

  it('reads the CA, the client pair and the server name (mTLS)', () => {
    const o = options({
      TEMPORAL_TLS_CA_FILE: files.ca,
      TEMPORAL_TLS_CERT_FILE: files.cert,
      TEMPORAL_TLS_KEY_FILE: files.key,
      TEMPORAL_TLS_SERVER_NAME: 'temporal.internal',
    });
    assert.equal(o.tls?.serverNameOverride, 'temporal.internal');
    assert.match(Buffer.from(o.tls?.serverRootCACertificate ?? []).toString(), /BEGIN CERTIFICATE/);
    assert.match(Buffer.from(o.tls?.clientCertPair?.key ?? []).toString(), /PRIVATE KEY/);
    assert.equal(o.apiKey, undefined);
  });

  it('takes an API key (Temporal Cloud) inline or from a file, and turns TLS on for it', () => {
    assert.deepEqual(options({ TEMPORAL_API_KEY: 'k1' }), { address: '127.0.0.1:7233', tls: {}, apiKey: 'k1' });
    assert.equal(options({ TEMPORAL_API_KEY_FILE: files.apiKey }).apiKey, 'cloud-api-key-123');
    refuses({ TEMPORAL_API_KEY: 'k1', TEMPORAL_TLS: '0' }, /TEMPORAL_TLS: 0 contradicts/);
    refuses({ TEMPORAL_API_KEY: 'k1', TEMPORAL_API_KEY_FILE: files.apiKey }, /set one of them, not both/);
  });

  it('refuses at start-up, naming the variable: half a pair, unreadable files, files that are not PEM', () => {
    refuses({ TEMPORAL_TLS_CERT_FILE: files.cert }, /TEMPORAL_TLS_CERT_FILE, TEMPORAL_TLS_KEY_FILE: mTLS needs both/);
    refuses({ TEMPORAL_TLS_CA_FILE: join(dir, 'missing.pem') }, /TEMPORAL_TLS_CA_FILE: cannot read .*ENOENT/);
    refuses({ TEMPORAL_TLS_CA_FILE: files.junk }, /TEMPORAL_TLS_CA_FILE: .* is not a PEM certificate/);
    refuses(
      { TEMPORAL_TLS_CERT_FILE: files.cert, TEMPORAL_TLS_KEY_FILE: files.junk },
      /TEMPORAL_TLS_KEY_FILE: .* is not an unencrypted PEM private key/,
    );
    refuses({ TEMPORAL_TLS: 'yes' }, /TEMPORAL_TLS/);
  });
});
