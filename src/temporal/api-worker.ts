// The API's small in-process delivery worker, for eager workflow start (issue 13; docs/scale-and-size.md, "The API's
// delivery worker"). A start through its client, which shares the worker's NativeConnection, asks Temporal to return
// the first workflow task in the start response: the SDK hands it to this worker (no transfer queue, no matching),
// and with eager activity dispatch the first attempt comes back in that task's reply. It is an ordinary worker of the
// delivery task queue otherwise, with few slots, so the API stays responsive.
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from '@temporalio/client';
import { NativeConnection, type Worker } from '@temporalio/worker';
import type { Config } from '../config.js';
import { WEBHOOK_USER_AGENT } from '../crypto/webhook-signature.js';
import { createDeliveryActivities, type DeliveryActivityDeps } from './worker-activities.js';
import { createWebhookHttpClient } from '../net/http-client.js';
import { callbackUrlPolicyFromConfig } from '../net/policy-from-config.js';
import { tracingClientInterceptors } from '../telemetry/temporal-tracing.js';
import { temporalConnectionOptions } from './connection.js';
import { createHeraldWorker } from './herald-worker.js';

/** Milliseconds between two tries to start it while Temporal is unreachable (the API itself starts without it). */
const RETRY_MS = 5_000;
/** In-flight attempts get this long on shutdown: the API process is forced out 10 s after SIGTERM (src/process/server.ts). */
const SHUTDOWN_GRACE_MS = 5_000;

export interface ApiWorker {
  /** The client whose starts may run eagerly here, or null while the worker does not run (a normal start then). */
  eagerClient(): Client | null;
  /** Resolves true once the worker runs, false if it was closed first. */
  readonly running: Promise<boolean>;
  /** Stops polling, lets in-flight attempts finish (SHUTDOWN_GRACE_MS), closes its connection and HTTP pool. */
  close(): Promise<void>;
}

/** The activities' dependencies but the HTTP pool (its own); `delivery`: the API's delivery service. */
export type ApiWorkerDeps = Omit<DeliveryActivityDeps, 'http' | 'slots'> & {
  readonly log: DeliveryActivityDeps['log'] & { warn(obj: object, msg?: string): void };
};

/** This worker's identity in Temporal histories (the tasks it polls, its completions). */
export const apiWorkerIdentity = (): string => `herald-api:${process.pid}@${hostname()}`;
/** Its client's: the WorkflowTaskStarted of an eager start names the start request's identity, not a poller's. */
export const eagerStartIdentity = (): string => `${apiWorkerIdentity()}/eager-start`;

/**
 * Workflow-task slots the pollers hold while they wait (measured: with 4 slots in all, an eager start found none
 * free; with 4 + 4 and with 20 it did): added to HERALD_API_WORKER_SLOTS, which counts the slots left for eager starts.
 */
const POLLER_SLOTS = 4;

/** Worker options of the API's worker: HERALD_API_WORKER_SLOTS eager starts and attempts at once, few pollers. */
export function apiWorkerOverrides(slots: number) {
  return {
    identity: apiWorkerIdentity(),
    maxConcurrentWorkflowTaskExecutions: slots + POLLER_SLOTS,
    maxConcurrentActivityTaskExecutions: slots,
    maxConcurrentLocalActivityExecutions: slots,
    workflowTaskPollerBehavior: { type: 'simple-maximum', maximum: 2 },
    activityTaskPollerBehavior: { type: 'simple-maximum', maximum: 1 },
    // Holds the deliveries it started until their attempt's result comes back on its sticky queue.
    maxCachedWorkflows: 4 * (slots + POLLER_SLOTS),
    // A few workflow tasks at once: one thread (the delivery worker's several are for its replays).
    workflowThreadPoolSize: 1,
    shutdownGraceTime: SHUTDOWN_GRACE_MS,
    shutdownForceTime: SHUTDOWN_GRACE_MS + 2_000,
  } as const;
}

/** Starts the worker in the background (retrying the connection until Temporal answers); never throws. */
export function startApiWorker(config: Config, deps: ApiWorkerDeps): ApiWorker {
  const http = createWebhookHttpClient({ policy: callbackUrlPolicyFromConfig(config), userAgent: WEBHOOK_USER_AGENT });
  const stop = new AbortController();
  let live: { connection: NativeConnection; worker: Worker; done: Promise<void> } | null = null;
  let eager: Client | null = null;

  async function start(): Promise<void> {
    const connection = await NativeConnection.connect(temporalConnectionOptions(config));
    try {
      const interceptors = tracingClientInterceptors();
      const client = new Client({
        connection,
        namespace: config.TEMPORAL_NAMESPACE,
        identity: eagerStartIdentity(),
        ...(interceptors ? { interceptors } : {}),
      });
      const worker = await createHeraldWorker({
        config,
        connection,
        activities: createDeliveryActivities(config, { ...deps, http, slots: config.HERALD_API_WORKER_SLOTS }),
        overrides: apiWorkerOverrides(config.HERALD_API_WORKER_SLOTS),
      });
      const done = worker.run().then(
        () => deps.log.info({}, 'API delivery worker stopped'),
        (err: unknown) => deps.log.error({ err }, 'API delivery worker failed; deliveries start the normal way'),
      );
      void done.finally(() => (eager = null));
      live = { connection, worker, done };
      eager = client;
      deps.log.info({ slots: config.HERALD_API_WORKER_SLOTS }, 'API delivery worker running');
    } catch (err) {
      await connection.close();
      throw err;
    }
  }

  const running = (async (): Promise<boolean> => {
    while (!stop.signal.aborted) {
      try {
        await start();
        return true;
      } catch (err) {
        deps.log.warn(
          { err },
          `API delivery worker could not start (Temporal unreachable?), retrying in ${RETRY_MS / 1000} s`,
        );
        await sleep(RETRY_MS, undefined, { signal: stop.signal }).catch(() => undefined);
      }
    }
    return false;
  })();

  let closed: Promise<void> | undefined;
  async function close(): Promise<void> {
    stop.abort();
    await running;
    eager = null;
    if (live) {
      // A SIGTERM may have stopped it already (the SDK's runtime handles the signal too).
      if (live.worker.getState() === 'RUNNING') live.worker.shutdown();
      await live.done;
      await live.connection.close();
    }
    await http.close();
  }

  return {
    eagerClient: () => eager,
    running,
    close: () => (closed ??= close()),
  };
}
