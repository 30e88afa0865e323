import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { HeraldAdminClient } from '../client/admin-client.js';
import { HeraldClient } from '../client/herald-client.js';
import { CliError, heraldUrl } from './support.js';
import type { CliIo } from './types.js';

/**
 * The folder `npm run dev` keeps its secrets in (`.data/` of the working directory, or HERALD_DATA_DIR): the CLI
 * falls back to its admin token and to the integrator key `herald init` writes there, so that a developer in a
 * checkout needs no exports. Explicit settings always win.
 */
export const devDataDir = (env: CliIo['env']): string => env.HERALD_DATA_DIR?.trim() || join(process.cwd(), '.data');
export const DEV_KEY_FILE = 'integrator.pem';

const readIfPresent = (path: string): string | undefined =>
  existsSync(path) ? readFileSync(path, 'utf8').trim() || undefined : undefined;

export function adminToken(env: CliIo['env']): string {
  const token = env.HERALD_ADMIN_TOKEN?.trim() || readIfPresent(join(devDataDir(env), 'admin.token'));
  if (!token)
    throw new CliError(
      'HERALD_ADMIN_TOKEN is not set (the bearer token of the internal admin API; `npm run dev` writes .data/admin.token)',
    );
  return token;
}

/** The admin client over HERALD_URL with HERALD_ADMIN_TOKEN (or the dev stack's .data/admin.token). */
export const adminClient = (env: CliIo['env']): HeraldAdminClient =>
  new HeraldAdminClient(heraldUrl(env), adminToken(env));

/** The integrator's private key PEM: --key FILE, HERALD_KEY_FILE, HERALD_PRIVATE_KEY (the PEM itself), .data/integrator.pem. */
export function integratorKeyPem(env: CliIo['env'], keyFile?: string): string {
  const file = keyFile ?? (env.HERALD_KEY_FILE?.trim() || undefined);
  if (file) {
    try {
      return readFileSync(file, 'utf8');
    } catch (err) {
      throw new CliError(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
    }
  }
  const pem = env.HERALD_PRIVATE_KEY?.trim() || readIfPresent(join(devDataDir(env), DEV_KEY_FILE));
  if (!pem)
    throw new CliError(
      'no integrator key: give --key FILE, or set HERALD_KEY_FILE or HERALD_PRIVATE_KEY (in a dev checkout, `herald init` makes one)',
    );
  return pem;
}

/** A client signing as the integrator (spec §5). */
export function integratorClient(env: CliIo['env'], keyFile?: string): HeraldClient {
  const pem = integratorKeyPem(env, keyFile);
  try {
    return new HeraldClient({ baseUrl: heraldUrl(env), privateKey: pem, resignOnUnauthorized: true });
  } catch {
    throw new CliError('the integrator key is not a PEM P-256 private key');
  }
}
