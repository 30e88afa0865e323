// The project's own Temporal cluster: the real Temporal server (all four services in one process) on PostgreSQL,
// both from .tools (scripts/tools.sh --cluster), on loopback ports beside the dev server's, with the schema, the
// namespace, Herald's search attributes (`herald temporal setup`) and ops/temporal-dynamic-config.yaml.
// `npm run cluster` keeps one running; `npm run test:cluster` starts one for the end-to-end tests; the chaos run
// (bench/lib/chaos-temporal.ts) starts its processes itself from initCluster's layout, to kill the server and
// launch it again.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { parse, stringify } from 'yaml';
import { runCli } from '../../src/cli/main.js';
import {
  clusterAddress,
  clusterPorts,
  clusterTools,
  DEFAULT_CLUSTER_PORT,
  takenPorts,
  type ClusterLayout,
  type ClusterPorts,
} from './cluster-layout.js';
import { initPostgres, launchPostgres, setupSchema } from './cluster-postgres.js';
import { spawnManaged, waitForPort, type Managed } from './processes.js';
import { ONE_BOX_DYNAMIC_CONFIG, root } from './servers.js';

/** Runs scripts/tools.sh --cluster: minutes the first time (the server's build), seconds after. */
export function ensureClusterTools(): void {
  const result = spawnSync('bash', [join(root, 'scripts/tools.sh'), '--cluster'], {
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  if (result.status !== 0) throw new Error('scripts/tools.sh --cluster failed');
  for (const path of Object.values(clusterTools)) if (!existsSync(path)) throw new Error(`missing ${path}`);
}

const DYNAMIC_CONFIG = join(root, 'ops', 'temporal-dynamic-config.yaml');

/**
 * The dynamic config file the server loads: Herald's, plus with `oneBox` the dev server's tuning for one small box (one
 * task-queue partition, 100 queue reads a second: scripts/lib/servers.ts), with `fairness` task-queue fairness turned
 * on (docs/temporal-cluster.md, "Task-queue fairness, off by default"), written into `dir`.
 */
function dynamicConfigFile(dir: string, oneBox: boolean, fairness: boolean): string {
  if (!oneBox && !fairness) return DYNAMIC_CONFIG;
  const config = parse(readFileSync(DYNAMIC_CONFIG, 'utf8')) as Record<string, unknown>;
  const flags = [...(oneBox ? ONE_BOX_DYNAMIC_CONFIG : []), ...(fairness ? ['matching.enableFairness=true'] : [])];
  for (const flag of flags) {
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
function serverConfig(ports: ClusterPorts, dynamicConfig: string): object {
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
 * their ring first): the namespace with 7 days' retention and Herald's search attributes. Once, with the server up.
 */
export async function setupNamespace(layout: ClusterLayout, timeoutMs = 90_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const out = new PassThrough();
    const chunks: Buffer[] = [];
    out.on('data', (c: Buffer) => chunks.push(c));
    const env = { TEMPORAL_ADDRESS: clusterAddress(layout), TEMPORAL_NAMESPACE: layout.namespace };
    const code = await runCli(['temporal', 'setup', '--create-namespace'], {
      stdin: Readable.from(['']),
      stdout: process.stdout,
      stderr: out,
      env,
    });
    if (code === 0) break;
    if (Date.now() > deadline) throw new Error(`herald temporal setup failed:\n${Buffer.concat(chunks).toString()}`);
    await new Promise((r) => setTimeout(r, 1_000));
  }
  // New search attributes reach the frontend's namespace cache at its next refresh (2 s by default).
  await new Promise((r) => setTimeout(r, 3_000));
}

/**
 * Everything a cluster needs on disk in `dir` (which it owns; its parents must let PostgreSQL's user through), nothing
 * started: the dynamic config validated, PostgreSQL's data initialised, the server's configuration written.
 */
export function initCluster(
  dir: string,
  options: Pick<ClusterOptions, 'port' | 'namespace' | 'oneBox' | 'fairness'>,
): ClusterLayout {
  const { port = DEFAULT_CLUSTER_PORT, namespace = 'default', oneBox = false, fairness = false } = options;
  const ports = clusterPorts(port);
  const dynamicConfig = dynamicConfigFile(dir, oneBox, fairness);
  validateDynamicConfig(dynamicConfig);
  initPostgres(dir);
  const configFile = join(dir, 'temporal.yaml');
  writeFileSync(configFile, stringify(serverConfig(ports, dynamicConfig)));
  return { dir, ports, namespace, configFile };
}

/**
 * The Temporal server (all four services) on the layout's configuration; resolves once its frontend listens. Called
 * again after the process died, it comes back on the same configuration and PostgreSQL data.
 */
export async function launchClusterServer(layout: ClusterLayout): Promise<Managed> {
  const server = spawnManaged(
    'temporal-server',
    clusterTools.server,
    ['--config-file', layout.configFile, '--allow-no-auth', 'start'],
    { log: join(layout.dir, 'temporal.log') },
  );
  await waitForPort(layout.ports.frontend, 'the Temporal server', server.child, 120_000);
  return server;
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
  /** Task-queue fairness on (matching.enableFairness), to compare it with the per-integrator share. */
  fairness?: boolean;
  /** Receives the stop function at once, so that Ctrl-C during the start stops what has started. */
  onStop?: (stop: () => Promise<void>) => void;
}

/**
 * The options of `npm run cluster` and `npm run test:cluster`: HERALD_CLUSTER_PORT, HERALD_CLUSTER_ONE_BOX=1,
 * HERALD_CLUSTER_FAIRNESS=1.
 */
export function clusterOptions(onStop: ClusterOptions['onStop'], env = process.env): ClusterOptions {
  return {
    port: Number(env.HERALD_CLUSTER_PORT ?? DEFAULT_CLUSTER_PORT),
    oneBox: env.HERALD_CLUSTER_ONE_BOX === '1',
    fairness: env.HERALD_CLUSTER_FAIRNESS === '1',
    onStop,
  };
}

/** Starts PostgreSQL and the server on loopback, in a temp folder, with the namespace set up; throws if a port is taken. */
export async function startCluster(options: ClusterOptions = {}): Promise<Cluster> {
  const { port = DEFAULT_CLUSTER_PORT, onStop = () => {} } = options;
  const taken = await takenPorts(clusterPorts(port));
  if (taken.length > 0)
    throw new Error(`port ${taken.join(', ')} taken (a cluster already running? HERALD_CLUSTER_PORT)`);
  const dir = mkdtempSync(join(tmpdir(), 'herald-cluster-'));
  const procs: Managed[] = [];
  const stop = async (): Promise<void> => {
    for (const p of [...procs].reverse()) await p.stop();
    if (!process.env.HERALD_KEEP_TMP) rmSync(dir, { recursive: true, force: true });
  };
  onStop(stop);
  try {
    const layout = initCluster(dir, options);
    procs.push(await launchPostgres(layout));
    setupSchema(layout);
    procs.push(await launchClusterServer(layout));
    await setupNamespace(layout);
    const address = clusterAddress(layout);
    return {
      address,
      metricsUrl: `http://127.0.0.1:${layout.ports.metrics}/metrics`,
      namespace: layout.namespace,
      dir,
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
