// The worker's memory settings that its own process applies (docs/scale-and-size.md, "Worker memory").
import { setFlagsFromString } from 'node:v8';
import type { Config } from '../config.js';

/**
 * V8 lets a heap grow to up to 4× its live size before a full collection when the heap limit is large (its default
 * on a host with ≥ 16 GB): measured in the worker with 2,000 deliveries waiting, the main thread's heap reached
 * 257 MB over 74 MB live and the workflow thread's 195 MB over 51 MB. `--heap-growing-percent` caps that factor for
 * every isolate of the process, the workflow thread's included (V8 reads it at each collection), without the hard
 * limit of `--max-old-space-size`, so a burst costs more collections, never an out-of-memory crash.
 */
export function applyWorkerMemorySettings(config: Pick<Config, 'HERALD_WORKER_HEAP_GROWING_PERCENT'>): {
  heapGrowingPercent: number | null;
} {
  const percent = config.HERALD_WORKER_HEAP_GROWING_PERCENT;
  if (percent === 0) return { heapGrowingPercent: null };
  setFlagsFromString(`--heap-growing-percent=${percent}`);
  return { heapGrowingPercent: percent };
}
