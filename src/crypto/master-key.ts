import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { ConfigError, type Config } from '../config.js';

export const MASTER_KEY_BYTES = 32;

export type MasterKeySource = 'HERALD_MASTER_KEY' | 'HERALD_MASTER_KEY_FILE' | 'ephemeral';

export interface MasterKey {
  /** 32 bytes: the AES-256-GCM key that seals subscription signing keys. */
  readonly key: Buffer;
  readonly source: MasterKeySource;
  /** Set when the key is per-process random: the caller logs it (keys sealed now cannot be opened after a restart). */
  readonly warning?: string;
}

type MasterKeyConfig = Pick<
  Config,
  'NODE_ENV' | 'HERALD_MASTER_KEY' | 'HERALD_MASTER_KEY_FILE' | 'HERALD_INSECURE_EPHEMERAL_MASTER_KEY'
>;

const HINT = 'must be the base64 of exactly 32 bytes (make one with `openssl rand -base64 32`)';

/**
 * Strict base64 of 32 bytes. Buffer.from(…, 'base64') silently skips junk and truncates, so a typo would otherwise
 * become a different key; the round trip rejects anything that is not the canonical encoding.
 */
export function decodeMasterKey(value: string, variable: string): Buffer {
  const text = value.trim();
  const key = Buffer.from(text, 'base64');
  const canonical = key.toString('base64');
  if (key.length !== MASTER_KEY_BYTES || (text !== canonical && `${text}=` !== canonical)) {
    const got = /^[A-Za-z0-9+/]*={0,2}$/.test(text) ? ` (got ${key.length} bytes)` : ' (not base64)';
    throw new ConfigError(`Invalid configuration:\n  ${variable}: ${HINT}${got}`);
  }
  return key;
}

function readKeyFile(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    const reason = err instanceof Error && 'code' in err ? String(err.code) : 'unreadable';
    throw new ConfigError(`Invalid configuration:\n  HERALD_MASTER_KEY_FILE: cannot read ${path} (${reason})`);
  }
}

/**
 * The master key from HERALD_MASTER_KEY or the file HERALD_MASTER_KEY_FILE names. Without one, start-up fails: a
 * random key would make every sealed signing key unreadable after the next restart and by every other process.
 * HERALD_INSECURE_EPHEMERAL_MASTER_KEY=1 is the one opt-in to a per-process random key (throw-away use only; refused
 * with NODE_ENV=production).
 */
export function loadMasterKey(config: MasterKeyConfig): MasterKey {
  const { HERALD_MASTER_KEY: inline, HERALD_MASTER_KEY_FILE: file } = config;
  if (inline !== undefined && file !== undefined)
    throw new ConfigError(
      'Invalid configuration:\n  HERALD_MASTER_KEY, HERALD_MASTER_KEY_FILE: set one of them, not both',
    );
  if (inline !== undefined) return { key: decodeMasterKey(inline, 'HERALD_MASTER_KEY'), source: 'HERALD_MASTER_KEY' };
  if (file !== undefined)
    return {
      key: decodeMasterKey(readKeyFile(file), `HERALD_MASTER_KEY_FILE (${file})`),
      source: 'HERALD_MASTER_KEY_FILE',
    };
  if (!config.HERALD_INSECURE_EPHEMERAL_MASTER_KEY || config.NODE_ENV === 'production')
    throw new ConfigError(
      'Invalid configuration:\n  HERALD_MASTER_KEY: required (or HERALD_MASTER_KEY_FILE); it encrypts the ' +
        'subscription signing keys at rest (make one with `openssl rand -base64 32`). ' +
        (config.NODE_ENV === 'production'
          ? 'HERALD_INSECURE_EPHEMERAL_MASTER_KEY is refused with NODE_ENV=production'
          : 'For throw-away use only, HERALD_INSECURE_EPHEMERAL_MASTER_KEY=1 uses a per-process random key'),
    );
  return {
    key: randomBytes(MASTER_KEY_BYTES),
    source: 'ephemeral',
    warning:
      'HERALD_INSECURE_EPHEMERAL_MASTER_KEY=1: using a per-process random master key; ' +
      'signing keys sealed by this process cannot be opened by a worker nor after it stops',
  };
}
