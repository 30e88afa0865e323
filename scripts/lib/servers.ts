import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnSync } from 'node:child_process';
import { parse } from 'yaml';
import { searchAttributeFlags } from '../../workflows/search-attributes.js';
import { RECOMMENDED_RETENTION_SECONDS } from '../../src/temporal/namespace.js';
import { spawnManaged, waitForPort, type Managed } from './processes.js';

export const root = fileURLToPath(new URL('../..', import.meta.url));

/**
 * The Temporal server version Herald runs on everywhere: the dev server of the pinned Temporal CLI (scripts/tools.sh),
 * the cluster built from tools/temporal-server (`npm run cluster`) and docker-compose.yml's images.
 */
export const TEMPORAL_SERVER_VERSION = '1.32.0';
export const tools = {
  temporal: join(root, '.tools/venv/bin/temporal'),
  temporalTestServer: join(root, '.tools/venv/bin/temporal-test-server'),
  mongoWire: join(root, '.tools/bin/mongo-wire'),
} as const;

/** promtool, pinned by tools/promtool: built by scripts/tools.sh only when asked (`npm test` asks). */
export const promtoolPath = join(root, '.tools/bin/promtool');

/** Node 24 from the npm registry (scripts/tools.sh --node24): `npm run test:node24`, the smoke run in CI. */
export const node24Path = join(root, '.tools/node24/bin/node');

/**
 * Runs scripts/tools.sh (idempotent; seconds when everything is already there); `promtool` adds promtool, `node24`
 * Node 24.
 */
export function ensureTools(options: { promtool?: boolean; node24?: boolean } = {}): void {
  const flags = [...(options.promtool ? ['--promtool'] : []), ...(options.node24 ? ['--node24'] : [])];
  const result = spawnSync('bash', [join(root, 'scripts/tools.sh'), ...flags], {
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  if (result.status !== 0) throw new Error('scripts/tools.sh failed: the local servers cannot be installed');
  const needed = [
    ...Object.values(tools),
    ...(options.promtool ? [promtoolPath] : []),
    ...(options.node24 ? [node24Path] : []),
  ];
  for (const path of needed) if (!existsSync(path)) throw new Error(`missing ${path}`);
}

/**
 * `args`: extra launcher flags, e.g. `-id-index=false` to reproduce FerretDB's `_id` scans (bench/ids, tests);
 * HERALD_MONGO_WIRE_FLAGS adds more to every start (e.g. `-serialize-updates=false` to measure what it costs).
 */
export async function startMongoWire(opts: {
  port: number;
  dataDir: string;
  log?: string;
  args?: string[];
}): Promise<Managed> {
  const proc = spawnManaged(
    'mongo-wire',
    tools.mongoWire,
    [
      '-listen',
      `127.0.0.1:${opts.port}`,
      '-data',
      opts.dataDir,
      ...(opts.args ?? []),
      ...(process.env.HERALD_MONGO_WIRE_FLAGS ?? '').split(' ').filter(Boolean),
    ],
    { log: opts.log },
  );
  await waitForPort(opts.port, 'the MongoDB-wire server', proc.child);
  return proc;
}

export interface TemporalDevOptions {
  port: number;
  /** Web UI port; omitted → headless. */
  uiPort?: number;
  /** SQLite file that keeps state across runs; omitted → in memory. */
  dbFile?: string;
  log?: string;
  /** `KEY=JSON` dynamic configuration values that replace Herald's for this server (a test's own server). */
  dynamicConfig?: readonly string[];
}

/**
 * Connections per process to the MongoDB-wire server: SQLite has one writer, and more connections only lengthen
 * the waits on its lock (the platform's performance notes; measured again for bench/delivery).
 */
export const MONGO_WIRE_POOL = 2;

/**
 * The dynamic configuration Herald needs on every Temporal server (ops/temporal-dynamic-config.yaml, also mounted by
 * docker-compose.yml) as the dev server's `--dynamic-config-value KEY=JSON` values: each key's unconstrained value.
 * A key set for some task queues only (the delivery queue's partitions) has no flag form: the dev server's one-box
 * tuning covers it for every queue.
 */
export function heraldDynamicConfigFlags(file = join(root, 'ops', 'temporal-dynamic-config.yaml')): string[] {
  const config = parse(readFileSync(file, 'utf8')) as Record<string, { value: unknown; constraints?: object }[]>;
  return Object.entries(config).flatMap(([key, values]) => {
    const global = values.find((v) => v.constraints === undefined || Object.keys(v.constraints).length === 0);
    return global ? [`${key}=${JSON.stringify(global.value)}`] : [];
  });
}

/** Tuning for a dev server alone on one small box (the platform's performance notes); a cluster sizes these itself. */
export const ONE_BOX_DYNAMIC_CONFIG = [
  // One partition per task queue: +20–30 % on one box (the default 4 forward tasks between each other), and fairness
  // is exact only within a partition.
  'matching.numTaskqueueReadPartitions=1',
  'matching.numTaskqueueWritePartitions=1',
  // The dev server has one history shard, and a shard reads its transfer and timer queues at most 20 times a second
  // by default: one read per 50 ms, so once tasks come faster than that (a delivery makes several) each waits for the
  // next read. At 100 a task waits ≤ 10 ms and reads still batch under load (1,000 measured worse tails in the outage
  // run). Measured (issue 13, 26 Nov, docs/scale-and-size.md "Temporal's queue reads"): a new workflow's first task
  // queued p50 29–31 → 2–3 ms at 18–21/s, ingest → receiver p50 72 → 22–26 ms on the default path.
  'history.transferProcessorMaxPollRPS=100',
  'history.timerProcessorMaxPollRPS=100',
];

/** `temporal server start-dev`, tuned as the platform's performance notes measured, with Herald's search attributes. */
export async function startTemporalDev(opts: TemporalDevOptions): Promise<Managed> {
  const args = ['server', 'start-dev', '--ip', '127.0.0.1', '--port', String(opts.port), '--log-level', 'warn'];
  args.push(...(opts.uiPort ? ['--ui-port', String(opts.uiPort)] : ['--headless']));
  if (opts.dbFile)
    args.push(
      '--db-filename',
      opts.dbFile,
      '--sqlite-pragma',
      'journal_mode=wal',
      '--sqlite-pragma',
      'synchronous=normal',
    );
  const keyOf = (value: string): string => value.slice(0, value.indexOf('='));
  const overridden = new Set((opts.dynamicConfig ?? []).map(keyOf));
  const defaults = [...heraldDynamicConfigFlags(), ...ONE_BOX_DYNAMIC_CONFIG].filter((v) => !overridden.has(keyOf(v)));
  for (const value of [...defaults, ...(opts.dynamicConfig ?? [])]) args.push('--dynamic-config-value', value);
  for (const flag of searchAttributeFlags) args.push('--search-attribute', flag);
  const proc = spawnManaged('temporal', tools.temporal, args, { log: opts.log });
  await waitForPort(opts.port, 'the Temporal dev server', proc.child);
  await keepClosedRuns(opts.port);
  return proc;
}

/**
 * The dev server's `default` namespace keeps closed runs 24 h; Herald's dev server keeps them the week `herald temporal
 * setup` sets (docs/retention.md, "Temporal's side"). The namespace may answer a moment after the port opens.
 */
async function keepClosedRuns(port: number): Promise<void> {
  const args = ['operator', 'namespace', 'update', '--address', `127.0.0.1:${port}`, '--namespace', 'default'];
  args.push('--retention', `${RECOMMENDED_RETENTION_SECONDS}s`);
  for (let n = 0; ; n += 1) {
    const run = spawnSync(tools.temporal, args, { encoding: 'utf8' });
    if (run.status === 0) return;
    if (n >= 40) throw new Error(`temporal operator namespace update failed: ${run.stderr}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}
