import { HeraldApiError } from '../../src/client/http.js';

/** Ingests the API shed with 503 `overloaded` in this process and sent again (src/api/ingest-gate.ts). */
export const shedIngests = { count: 0 };

/**
 * Runs `send` until the API takes it: a 503 `overloaded` (the ingest gate shedding load) is sent again after the
 * second its Retry-After asks, as a real producer does, and counted in `shedIngests`; any other error is thrown.
 */
export async function resendingShed<T>(send: () => Promise<T>): Promise<T> {
  for (;;) {
    try {
      return await send();
    } catch (err) {
      if (!(err instanceof HeraldApiError && err.status === 503 && err.body?.error === 'overloaded')) throw err;
      shedIngests.count++;
      await new Promise((r) => setTimeout(r, 1_000));
    }
  }
}
