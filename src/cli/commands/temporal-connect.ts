// How `herald temporal …` reaches Temporal: the same TEMPORAL_* settings as the API and the worker (address,
// namespace, TLS / mTLS files, API key; src/temporal/connection.ts), checked the same way, within one deadline.
import { Connection } from '@temporalio/client';
import { loadConfig, type Config } from '../../config.js';
import { temporalConnectionOptions } from '../../temporal/connection.js';
import { integerValue } from '../flags.js';
import { CliError } from '../support.js';
import type { CliIo } from '../types.js';

export const ENV_HELP = [
  'environment (the same as the API and the worker; docs/deploy.md, "Secured Temporal"):',
  '  TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_TLS, TEMPORAL_TLS_CA_FILE, TEMPORAL_TLS_CERT_FILE,',
  '  TEMPORAL_TLS_KEY_FILE, TEMPORAL_TLS_SERVER_NAME, TEMPORAL_API_KEY / TEMPORAL_API_KEY_FILE',
].join('\n');

export const timeoutOption = {
  timeout: { type: 'string', value: 'seconds', help: 'give up after this many seconds, 1 to 300 (default 10)' },
} as const;

export const timeoutMs = (value: unknown): number => (integerValue(value, 'timeout', 1, 300) ?? 10) * 1000;

export interface TemporalSession {
  readonly config: Config;
  readonly connection: Connection;
  /** How the connection is secured, as printed by the commands. */
  readonly tls: { tls: boolean; mtls: boolean; apiKey: boolean };
}

/** Connects with the environment's settings (a bad file or combination fails here, naming the variable). */
async function connect(io: CliIo, ms: number): Promise<TemporalSession> {
  const config = loadConfig(io.env); // ConfigError: printed as is, exit 1
  const options = temporalConnectionOptions(config);
  try {
    const connection = await Connection.connect({ ...options, connectTimeout: ms });
    const tls = {
      tls: options.tls !== undefined,
      mtls: Boolean(options.tls?.clientCertPair),
      apiKey: !!options.apiKey,
    };
    return { config, connection, tls };
  } catch (err) {
    throw new CliError(`cannot connect to Temporal at ${config.TEMPORAL_ADDRESS}: ${(err as Error).message}`);
  }
}

/** Runs `fn` on the connection within the deadline, then closes it. */
export async function withConnection<T>(io: CliIo, ms: number, fn: (s: TemporalSession) => Promise<T>): Promise<T> {
  const session = await connect(io, ms);
  try {
    return await session.connection.withDeadline(Date.now() + ms, () => fn(session));
  } finally {
    await session.connection.close();
  }
}
