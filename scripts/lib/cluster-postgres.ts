// PostgreSQL for a cluster of scripts/lib/cluster.ts (from .tools/pg): its data folder, the server, and Temporal's two
// databases with their schema.
import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { clusterTools, type ClusterLayout } from './cluster-layout.js';
import { spawnManaged, waitForPort, type Managed } from './processes.js';

/** PostgreSQL refuses to run as root: there it runs as `nobody`, in a folder that user owns. */
const pgUser = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : undefined;

function run(cmd: string, args: string[], what: string, user?: { uid: number; gid: number }): void {
  const result = spawnSync(cmd, args, { encoding: 'utf8', ...(user ?? {}) });
  if (result.status !== 0) throw new Error(`${what} failed (${result.status}):\n${result.stdout}${result.stderr}`);
}

/** PostgreSQL's data folder, `dir`/pg, made by initdb (as `nobody` when run as root). */
export function initPostgres(dir: string): void {
  const data = join(dir, 'pg');
  mkdirSync(data, { mode: 0o700 });
  if (pgUser) {
    chmodSync(dir, 0o711);
    chownSync(data, pgUser.uid, pgUser.gid);
  }
  const initdb = ['-D', data, '-U', 'temporal', '--auth=trust', '-E', 'UTF8', '--locale=C'];
  run(join(clusterTools.pgBin, 'initdb'), initdb, 'initdb', pgUser);
}

/** PostgreSQL on the layout's data folder and port; resolves once it listens. */
export async function launchPostgres(layout: ClusterLayout): Promise<Managed> {
  const data = join(layout.dir, 'pg');
  const port = layout.ports.postgres;
  const settings = { listen_addresses: '127.0.0.1', unix_socket_directories: data, max_connections: 300 };
  const args = ['-D', data, '-p', String(port), ...Object.entries(settings).flatMap(([k, v]) => ['-c', `${k}=${v}`])];
  const pg = spawnManaged('postgres', join(clusterTools.pgBin, 'postgres'), args, {
    log: join(layout.dir, 'postgres.log'),
    ...(pgUser ? { user: pgUser } : {}),
    stopSignal: 'SIGINT', // fast shutdown: the server is stopped first, nothing is left to wait for
  });
  await waitForPort(port, 'PostgreSQL', pg.child);
  return pg;
}

/**
 * Temporal's two databases, each created and brought to the server's schema by its own tool (embedded schemas); once,
 * with PostgreSQL running.
 */
export function setupSchema(layout: ClusterLayout): void {
  const base = ['--ep', '127.0.0.1', '-p', String(layout.ports.postgres), '-u', 'temporal', '--pl', 'postgres12'];
  for (const [db, schema] of [
    ['temporal', 'postgresql/v12/temporal'],
    ['temporal_visibility', 'postgresql/v12/visibility'],
  ] as const) {
    const sql = (...args: string[]) => run(clusterTools.sqlTool, [...base, '--db', db, ...args], `sql-tool ${args[0]}`);
    sql('create-database');
    sql('setup-schema', '-v', '0.0');
    sql('update-schema', '--schema-name', schema);
  }
}
