// The long benchmarks' stack on the bench bed: the API in this process, the worker (and its sweeper) in a child
// process of its own (so its CPU and RSS are its own), one integrator, and helpers to publish and to watch processes.
import type { SubscriptionOrdering } from '../../src/store/documents.js';
import { randomBytes } from 'node:crypto';
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/process/app.js';
import { HeraldAdminClient } from '../../src/client/admin-client.js';
import type { PublishEventInput } from '../../src/client/events.js';
import { loadConfig, type Config } from '../../src/config.js';
import type { LifecycleEventType, SubscribableEventType } from '../../src/domain/event-types.js';
import { root } from '../../scripts/lib/servers.js';
import { imageMallocEnv } from '../../scripts/lib/malloc-env.js';
import type { Temporal } from '../../src/temporal/client.js';
import { lifecycleEvent, seedSubscription } from '../../test/helpers/deliveries.js';
import { pidListeningOn } from './proc-stats.js';
import { resendingShed } from './resend-shed.js';

/** One integrator of the bench: its subscriptions and its events. */
export interface BenchIntegrator {
  readonly integratorId: string;
  subscribe(url: string, eventTypes?: SubscribableEventType[], ordering?: SubscriptionOrdering): Promise<string>;
  /** Publishes one event through the admin API (re-sent while shed: bench/lib/resend-shed.ts); resolves with its id. */
  publish(eventType?: LifecycleEventType & SubscribableEventType): Promise<string>;
}

export interface BenchStack extends BenchIntegrator {
  readonly app: FastifyInstance;
  readonly config: Config;
  readonly admin: HeraldAdminClient;
  /** The API's address (loopback). */
  readonly baseUrl: string;
  readonly worker: ChildProcess;
  /** pids of the API (this process), the worker, the MongoDB-wire server and the Temporal dev server. */
  readonly pids: Record<string, number | undefined>;
  /** Registers another integrator (the stack's own is 'bench'). */
  integrator(name: string): Promise<BenchIntegrator>;
  stop(): Promise<void>;
}

/**
 * Resolves once `count` workers (distinct identities) poll both the workflow and the activity task queues, so no load
 * waits on a start-up; throws when `worker` (the one awaited, if given) exits first.
 */
export async function workerPolling(
  temporal: Pick<Temporal, 'connection'>,
  config: Pick<Config, 'TEMPORAL_NAMESPACE' | 'TEMPORAL_TASK_QUEUE'>,
  worker: ChildProcess | undefined,
  count = 1,
): Promise<void> {
  const deadline = Date.now() + 180_000;
  const pollers = async (taskQueueType: 1 | 2): Promise<number> => {
    const res = await temporal.connection.workflowService.describeTaskQueue({
      namespace: config.TEMPORAL_NAMESPACE,
      taskQueue: { name: config.TEMPORAL_TASK_QUEUE },
      taskQueueType, // 1 workflow, 2 activity
    });
    return new Set(res.pollers?.map((p) => p.identity)).size;
  };
  while ((await pollers(1)) < count || (await pollers(2)) < count) {
    if (worker && worker.exitCode !== null) throw new Error(`the worker exited with code ${worker.exitCode}`);
    if (Date.now() > deadline) throw new Error(`${count} worker(s) did not poll within 180 s`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

const portOf = (url: string): number => Number(/:(\d+)(?:\/|$)/.exec(url)?.[1]);

/** The environment of a bench's API and worker processes: a fresh database, task queue and secrets; loopback only. */
export function benchEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv & { HERALD_ADMIN_TOKEN: string } {
  return {
    ...process.env,
    MONGODB_DB: `bench_${randomBytes(4).toString('hex')}`,
    TEMPORAL_TASK_QUEUE: `bench-${randomBytes(4).toString('hex')}`,
    HERALD_ADMIN_TOKEN: randomBytes(24).toString('hex'),
    HERALD_MASTER_KEY: randomBytes(32).toString('base64'),
    HERALD_DNS_STATIC: 'hooks.example.com=127.0.0.1',
    HERALD_ALLOW_CIDRS: '127.0.0.1/32',
    // The receiver on loopback and the bench CA (NODE_EXTRA_CA_CERTS) in production mode: src/net/egress-exemptions.ts.
    HERALD_UNSAFE_EGRESS: '1',
    LOG_LEVEL: 'warn',
    ...extra,
  };
}

/**
 * A worker process (src/process/worker.ts), its output appended to `logFile`. BENCH_WORKER_NODE_ARGS: extra node flags
 * for it, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof" (a profile per thread, the workflow thread's included, written as
 * it exits), or "--trace-gc" (each line names its isolate: the main thread's or the workflow thread's).
 */
export function spawnWorker(env: NodeJS.ProcessEnv, logFile: string): ChildProcess {
  const nodeArgs = (process.env.BENCH_WORKER_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const worker = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', join(root, 'src/process/worker.ts')], {
    cwd: root,
    env: { ...imageMallocEnv(), ...env }, // as the image sets them (Dockerfile)
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const log = createWriteStream(logFile, { flags: 'a' });
  worker.stdout?.pipe(log);
  worker.stderr?.pipe(log);
  // A bench that exits or is stopped (npm run bench's SIGTERM or ^C) takes its worker with it: an orphan would keep
  // the worker's metrics port, and the next bench's worker would fail to start.
  const abandon = () => worker.kill('SIGKILL');
  process.once('exit', abandon);
  worker.once('exit', () => process.off('exit', abandon));
  return worker;
}

/** Stopped by a signal, a bench exits (its 'exit' listeners end its workers); npm run bench stops the servers. */
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.once(signal, () => process.exit(signal === 'SIGINT' ? 130 : 143));

/**
 * `monitorCommands`: the API's driver emits command events (bench/lib/ingest-marks.ts times the event insert);
 * `env`: more environment for the API and the worker.
 */
export async function startBenchStack(
  logDir: string,
  options: { monitorCommands?: boolean; env?: NodeJS.ProcessEnv } = {},
): Promise<BenchStack> {
  const env = benchEnv(options.env);
  const token = env.HERALD_ADMIN_TOKEN;
  const config = loadConfig(env);
  const mongoOptions = options.monitorCommands ? { mongoOptions: { monitorCommands: true } } : {};
  const app = await buildApp({ config, logger: false, ...mongoOptions });
  const baseUrl = await app.listen({ host: '127.0.0.1', port: 0 });
  const worker = spawnWorker(env, join(logDir, 'worker.log'));
  await workerPolling(app.temporal, config, worker);
  const admin = new HeraldAdminClient(baseUrl, token);
  const integrator = async (name: string): Promise<BenchIntegrator> => {
    const { id: integratorId } = await admin.createIntegrator(name);
    return {
      integratorId,
      async subscribe(url, eventTypes, ordering) {
        const { subscription } = await seedSubscription(app.store, app.vault, {
          integratorId,
          url,
          ...(eventTypes ? { eventTypes } : {}),
          ...(ordering ? { ordering } : {}),
        });
        return subscription._id;
      },
      async publish(eventType = 'customer.created') {
        const event = lifecycleEvent(integratorId, eventType);
        await resendingShed(() => admin.publishEvent(JSON.parse(event.body) as PublishEventInput));
        return event._id;
      },
    };
  };
  const own = await integrator('bench');
  const workerExited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  return {
    ...own,
    app,
    config,
    admin,
    baseUrl,
    worker,
    pids: {
      api: process.pid,
      worker: worker.pid,
      mongoWire: pidListeningOn(portOf(config.MONGODB_URL)),
      temporal: pidListeningOn(portOf(`x://${config.TEMPORAL_ADDRESS}`)),
    },
    integrator,
    async stop() {
      worker.kill('SIGTERM'); // drains in-flight tasks; a backlog could hold it for minutes
      const killer = setTimeout(() => worker.kill('SIGKILL'), 20_000);
      await workerExited;
      clearTimeout(killer);
      await app.mongo.db.dropDatabase();
      await app.close();
    },
  };
}
