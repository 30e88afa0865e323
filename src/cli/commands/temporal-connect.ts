// How `herald temporal …` reaches Temporal: the same TEMPORAL_* settings as the API and the worker (address,
// namespace, TLS / mTLS files, API key; src/temporal/connection.ts), checked the same way, within one deadline.
import { Connection } from '@temporalio/client';
import { loadConfig, type Config } from '../../config.js';
import { temporalConnectionOptions } from '../../temporal/connection.js';
import { grpcErrorOf, grpcStatus } from '../../util/grpc-status.js';
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

/** `err`'s message with its causes', so a wrapped gRPC status ("14 UNAVAILABLE: …") is not lost. */
const messageOf = (err: unknown): string => {
  const cause = (err as { cause?: unknown }).cause;
  const own = err instanceof Error ? err.message : String(err);
  return cause instanceof Error && !own.includes(cause.message) ? `${own}: ${messageOf(cause)}` : own;
};

/** What to check when the server refuses the credentials, by what the settings hold. */
function credentialSettings(config: Config): string {
  if (config.TEMPORAL_API_KEY !== undefined) return 'check TEMPORAL_API_KEY';
  if (config.TEMPORAL_API_KEY_FILE !== undefined)
    return `check the key in TEMPORAL_API_KEY_FILE (${config.TEMPORAL_API_KEY_FILE})`;
  if (config.TEMPORAL_TLS_CERT_FILE !== undefined) return 'check TEMPORAL_TLS_CERT_FILE and TEMPORAL_TLS_KEY_FILE';
  return 'the server wants credentials: set TEMPORAL_API_KEY (or TEMPORAL_API_KEY_FILE) or a client certificate';
}

/** A refusal of the credentials or of access, naming the settings to check; null for any other error. */
function accessProblem(err: unknown, config: Config): CliError | null {
  const grpc = grpcErrorOf(err);
  const at = `Temporal at ${config.TEMPORAL_ADDRESS}`;
  if (grpc?.code === grpcStatus.UNAUTHENTICATED)
    return new CliError(
      `${at} refused the credentials (UNAUTHENTICATED: ${grpc.details}): ${credentialSettings(config)}`,
    );
  if (grpc?.code === grpcStatus.PERMISSION_DENIED)
    return new CliError(
      `${at} denied access to namespace ${config.TEMPORAL_NAMESPACE} (PERMISSION_DENIED: ${grpc.details}): the ` +
        'API key or client certificate has no role on it, or not the one this command needs',
    );
  return null;
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
    throw (
      accessProblem(err, config) ??
      new CliError(`cannot connect to Temporal at ${config.TEMPORAL_ADDRESS}: ${messageOf(err)}`)
    );
  }
}

/** Runs `fn` on the connection within the deadline, then closes it. */
export async function withConnection<T>(io: CliIo, ms: number, fn: (s: TemporalSession) => Promise<T>): Promise<T> {
  const session = await connect(io, ms);
  try {
    return await session.connection.withDeadline(Date.now() + ms, () => fn(session));
  } catch (err) {
    throw accessProblem(err, session.config) ?? err;
  } finally {
    await session.connection.close();
  }
}
