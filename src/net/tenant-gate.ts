export interface TenantGateOptions {
  /** Tasks of one tenant running at once (default 8). */
  maxInFlight?: number;
  /** Tasks of one tenant waiting for a slot; one more is refused at once (default 256). */
  maxQueued?: number;
}

export const TENANT_GATE_DEFAULTS = { maxInFlight: 8, maxQueued: 256 } as const;

/** The tenant already has `maxQueued` tasks waiting. */
export class TenantBusyError extends Error {
  override readonly name = 'TenantBusyError';
  constructor(readonly tenant: string) {
    super(`tenant ${JSON.stringify(tenant)} has too many lookups waiting`);
  }
}

export interface TenantGate {
  /**
   * Runs `task` once `tenant` has a free slot, holding the slot until the task settles. Rejects with TenantBusyError
   * when the tenant's queue is full, and with `signal.reason` when `signal` aborts before the task started.
   */
  run<T>(tenant: string, task: () => Promise<T>, signal?: AbortSignal): Promise<T>;
  /** Tasks running and waiting, over every tenant (for tests and metrics). */
  readonly running: number;
  readonly waiting: number;
}

interface Lane {
  running: number;
  readonly queue: Array<() => void>;
}

/** Per-tenant concurrency: one tenant's slow work waits behind its own, never in front of another tenant's. */
export function createTenantGate(options: TenantGateOptions = {}): TenantGate {
  const { maxInFlight, maxQueued } = { ...TENANT_GATE_DEFAULTS, ...options };
  const lanes = new Map<string, Lane>();
  let running = 0;
  let waiting = 0;

  const release = (tenant: string, lane: Lane) => {
    lane.running -= 1;
    running -= 1;
    const next = lane.queue.shift();
    if (next) next();
    else if (lane.running === 0) lanes.delete(tenant);
  };

  const start = <T>(tenant: string, lane: Lane, task: () => Promise<T>): Promise<T> => {
    lane.running += 1;
    running += 1;
    let settled: Promise<T>;
    try {
      settled = task();
    } catch (err) {
      settled = Promise.reject(err as Error);
    }
    settled.then(
      () => release(tenant, lane),
      () => release(tenant, lane),
    );
    return settled;
  };

  return {
    run(tenant, task, signal) {
      if (signal?.aborted) return Promise.reject(signal.reason as Error);
      const lane = lanes.get(tenant) ?? { running: 0, queue: [] };
      lanes.set(tenant, lane);
      if (lane.running < maxInFlight) return start(tenant, lane, task);
      if (lane.queue.length >= maxQueued) return Promise.reject(new TenantBusyError(tenant));
      waiting += 1;
      return new Promise((resolve, reject) => {
        const admit = () => {
          waiting -= 1;
          signal?.removeEventListener('abort', abort);
          start(tenant, lane, task).then(resolve, reject);
        };
        const abort = () => {
          const at = lane.queue.indexOf(admit);
          if (at < 0) return;
          lane.queue.splice(at, 1);
          waiting -= 1;
          reject(signal?.reason as Error);
        };
        lane.queue.push(admit);
        signal?.addEventListener('abort', abort, { once: true });
      });
    },
    get running() {
      return running;
    },
    get waiting() {
      return waiting;
    },
  };
}
