// The whole Herald stack for end-to-end tests on the real Temporal dev server: the API listening on loopback, a
// worker in this process, and an HTTPS receiver on 127.0.0.1 reached through HERALD_DNS_STATIC names (loopback
// allowed by HERALD_ALLOW_CIDRS). Subscriptions and events go through the real routes.
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { DefaultLogger, type Logger as TemporalLogger } from '@temporalio/worker';
import { pino, type DestinationStream } from 'pino';
import { HeraldAdminClient } from '../../src/client/admin-client.js';
import type { PublishEventInput } from '../../src/client/events.js';
import type { Delivery, Subscription } from '../../src/client/herald-client.js';
import type { Config } from '../../src/config.js';
import type { LifecycleEventType, NameableEventType } from '../../src/domain/event-types.js';
import { installTemporalRuntime } from '../../src/telemetry/temporal-runtime.js';
import { createWorkerRuntime, type WorkerRuntime } from '../../src/process/worker-runtime.js';
import { buildTestApp, closeTestApp } from './app.js';
import { testConfig } from './env.js';
import { ADMIN_TOKEN, listen, registerIntegrator, type TestIntegrator } from './integrators.js';
import { startHttpsReceiver, type HttpsReceiver, type RecordedRequest } from './receiver.js';

export interface DeliveryStack {
  readonly app: FastifyInstance;
  /** The worker's configuration (for a worker started elsewhere: src/process/worker.ts in a child process). */
  readonly workerConfig: Config;
  /** The in-process worker; null with `inProcessWorker: false`. */
  readonly worker: WorkerRuntime | null;
  readonly receiver: HttpsReceiver;
  /** Per request path: the status the receiver answers (default 204). */
  readonly answers: Map<string, number>;
  /** Per request path: how long the receiver holds each request before it answers (default: not at all). */
  readonly delays: Map<string, number>;
  readonly alice: TestIntegrator;
  readonly admin: HeraldAdminClient;
  /** The API's address (real HTTP on loopback). */
  readonly baseUrl: string;
  requestsTo(path: string): RecordedRequest[];
  /** Creates a subscription through the API, to `https://<host>:<receiver port><path>`. */
  subscribe(path: string, eventTypes?: NameableEventType[], host?: string, port?: number): Promise<Subscription>;
  /** Publishes an event of Alice's (or of `integratorId`) through the admin API; resolves with its id. */
  publish(eventType?: LifecycleEventType, integratorId?: string): Promise<string>;
  deliveriesOf(eventId: string, subscriptionId?: string): Promise<Delivery[]>;
  stop(): Promise<void>;
}

export interface DeliveryStackOptions {
  /** Environment overrides of both processes' config (e.g. metrics ports, LOG_LEVEL, the Temporal connection). */
  readonly env?: Record<string, string>;
  /** Where the API and the worker write their JSON log lines (default: nowhere). */
  readonly logStream?: DestinationStream;
  /** The Temporal SDK's logger, installed with the runtime (once per process). */
  readonly temporalLogger?: TemporalLogger;
  /** The worker's logger (default: a pino logger on `logStream`, else pino on stdout). */
  readonly workerLogger?: NonNullable<Parameters<typeof createWorkerRuntime>[1]>['logger'];
  /** false leaves the worker to the test (e.g. a child process it can kill). */
  readonly inProcessWorker?: boolean;
  /** Both processes' drivers emit command events (`app.mongo.client`, `worker.mongo.client`). */
  readonly monitorCommands?: boolean;
}

let runtimeInstalled = false;

export async function startDeliveryStack(options: DeliveryStackOptions = {}): Promise<DeliveryStack> {
  const answers = new Map<string, number>();
  const delays = new Map<string, number>();
  const receiver = await startHttpsReceiver((r) => ({
    status: answers.get(r.url) ?? 204,
    ...(delays.has(r.url) ? { delayMs: delays.get(r.url) } : {}),
  }));
  // Before any worker, the API's own (HERALD_API_WORKER_SLOTS) included.
  if (!runtimeInstalled) {
    await installTemporalRuntime(testConfig(options.env), options.temporalLogger ?? new DefaultLogger('WARN'));
    runtimeInstalled = true;
  }
  const { app, config } = await buildTestApp(
    {
      HERALD_DNS_STATIC: 'hooks.example.com=127.0.0.1,rebind.example.com=127.0.0.1',
      HERALD_ALLOW_CIDRS: '127.0.0.1/32',
      ...options.env,
    },
    undefined,
    options.logStream,
    options.monitorCommands ? { monitorCommands: true } : undefined,
  );
  // The worker resolves rebind.example.com elsewhere: a name that re-resolves privately at delivery time.
  const workerConfig: Config = Object.freeze({
    ...config,
    HERALD_DNS_STATIC: { ...config.HERALD_DNS_STATIC, 'rebind.example.com': ['10.0.0.5'] },
  });
  const workerLogger =
    options.workerLogger ?? (options.logStream ? pino({ level: config.LOG_LEVEL }, options.logStream) : undefined);
  const inProcessWorker = options.inProcessWorker ?? true;
  const runtime = inProcessWorker
    ? await createWorkerRuntime(workerConfig, {
        ...(workerLogger ? { logger: workerLogger } : {}),
        ...(options.monitorCommands ? { mongoOptions: { monitorCommands: true } } : {}),
      })
    : null;
  const running = runtime?.run();
  const baseUrl = await listen(app);
  const alice = await registerIntegrator(app, baseUrl, 'alice');
  const admin = new HeraldAdminClient(baseUrl, ADMIN_TOKEN);

  return {
    app,
    workerConfig,
    worker: runtime,
    receiver,
    answers,
    delays,
    alice,
    admin,
    baseUrl,
    requestsTo: (path) => receiver.requests.filter((r) => r.url === path),
    subscribe: (path, eventTypes, host = 'hooks.example.com', port = receiver.port) =>
      alice.client.createSubscription({ url: `https://${host}:${port}${path}`, ...(eventTypes ? { eventTypes } : {}) }),
    async publish(eventType = 'customer.created', integratorId = alice.integratorId) {
      const input: PublishEventInput = {
        id: randomUUID(),
        eventType,
        occurredAt: new Date().toISOString(),
        livemode: true,
        payloadVersion: 1,
        integratorId,
        accountId: randomUUID(),
        provider: 'kyc_provider',
        data: { note: 'ünïcode ✓', amount: '10.00', nested: { list: [1, 2] } },
      };
      return (await admin.publishEvent(input)).event.id;
    },
    async deliveriesOf(eventId, subscriptionId) {
      return (await alice.client.listDeliveriesPage({ eventId, ...(subscriptionId ? { subscriptionId } : {}) }))
        .deliveries;
    },
    async stop() {
      runtime?.shutdown();
      await running;
      await receiver.close();
      await closeTestApp(app);
    },
  };
}
