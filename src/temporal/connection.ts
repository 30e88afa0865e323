// How the API, the worker and the CLI reach Temporal: plain on loopback by default; TLS, mTLS and an API key
// (Temporal Cloud) from the environment, read and checked once at start-up (docs/deploy.md, "Secured Temporal").
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { TLSConfig } from '@temporalio/client';
import { ConfigError, type Config } from '../config.js';

export type TemporalConnectionConfig = Pick<
  Config,
  | 'TEMPORAL_ADDRESS'
  | 'TEMPORAL_TLS'
  | 'TEMPORAL_TLS_CA_FILE'
  | 'TEMPORAL_TLS_CERT_FILE'
  | 'TEMPORAL_TLS_KEY_FILE'
  | 'TEMPORAL_TLS_SERVER_NAME'
  | 'TEMPORAL_API_KEY'
  | 'TEMPORAL_API_KEY_FILE'
>;

/** What both `Connection` (client) and `NativeConnection` (worker) take. */
export interface TemporalConnectionOptions {
  readonly address: string;
  readonly tls?: TLSConfig;
  readonly apiKey?: string;
}

const fail = (variable: string, problem: string): never => {
  throw new ConfigError(`Invalid configuration:\n  ${variable}: ${problem}`);
};

function readFile(variable: string, path: string): Buffer {
  try {
    return readFileSync(path);
  } catch (err) {
    return fail(variable, `cannot read ${path} (${(err as NodeJS.ErrnoException).code ?? 'unreadable'})`);
  }
}

function readCertificate(variable: string, path: string): Buffer {
  const pem = readFile(variable, path);
  try {
    new X509Certificate(pem);
  } catch {
    fail(variable, `${path} is not a PEM certificate`);
  }
  return pem;
}

function readPrivateKey(variable: string, path: string): Buffer {
  const pem = readFile(variable, path);
  try {
    createPrivateKey(pem);
  } catch {
    fail(variable, `${path} is not an unencrypted PEM private key`);
  }
  return pem;
}

function apiKeyOf(config: TemporalConnectionConfig): string | undefined {
  const { TEMPORAL_API_KEY: inline, TEMPORAL_API_KEY_FILE: file } = config;
  if (inline !== undefined && file !== undefined)
    fail('TEMPORAL_API_KEY, TEMPORAL_API_KEY_FILE', 'set one of them, not both');
  const key =
    inline ?? (file === undefined ? undefined : readFile('TEMPORAL_API_KEY_FILE', file).toString('utf8').trim());
  if (key === '') fail('TEMPORAL_API_KEY_FILE', 'the file is empty');
  return key;
}

/**
 * Connection options from the environment, every file read and parsed now, so a wrong path, a key that is not a
 * key, or a certificate without its key stops the process at start-up with a message naming the variable. Any TLS
 * setting or an API key turns TLS on; an API key is never sent in clear (TEMPORAL_TLS=0 with one is refused).
 */
export function temporalConnectionOptions(config: TemporalConnectionConfig): TemporalConnectionOptions {
  const apiKey = apiKeyOf(config);
  const { TEMPORAL_TLS_CA_FILE: ca, TEMPORAL_TLS_CERT_FILE: cert, TEMPORAL_TLS_KEY_FILE: key } = config;
  const serverName = config.TEMPORAL_TLS_SERVER_NAME;
  if ((cert === undefined) !== (key === undefined))
    fail('TEMPORAL_TLS_CERT_FILE, TEMPORAL_TLS_KEY_FILE', 'mTLS needs both the client certificate and its key');
  const anyTls = [ca, cert, serverName, apiKey].some((v) => v !== undefined);
  if (config.TEMPORAL_TLS === '0' && anyTls)
    fail('TEMPORAL_TLS', '0 contradicts the TEMPORAL_TLS_* / TEMPORAL_API_KEY settings (an API key needs TLS)');
  if (config.TEMPORAL_TLS !== '1' && !anyTls) return { address: config.TEMPORAL_ADDRESS };

  const tls: TLSConfig = {
    ...(serverName ? { serverNameOverride: serverName } : {}),
    ...(ca ? { serverRootCACertificate: readCertificate('TEMPORAL_TLS_CA_FILE', ca) } : {}),
    ...(cert && key
      ? {
          clientCertPair: {
            crt: readCertificate('TEMPORAL_TLS_CERT_FILE', cert),
            key: readPrivateKey('TEMPORAL_TLS_KEY_FILE', key),
          },
        }
      : {}),
  };
  return { address: config.TEMPORAL_ADDRESS, tls, ...(apiKey ? { apiKey } : {}) };
}
