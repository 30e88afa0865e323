// The worker's memory settings that its own process applies (docs/scale-and-size.md, "Worker memory").
import { setFlagsFromString } from 'node:v8';
import type { Config } from '../config.js';

/**
 * V8 lets a heap grow to up to 4× its live size before a full collection when the heap limit is large (its default
 * on a host with ≥ 16 GB): measured in the worker with 2,000 deliveries waiting, the main thread's heap reached
 * 257 MB over 74 MB live and the workflow thread's 195 MB over 51 MB. `--heap-growing-percent` caps that factor for
 * every isolate of the process, the workflow threads' included (V8 reads it at each collection), without the hard
 * limit of `--max-old-space-size`, so a burst costs more collections, never an out-of-memory crash.
 *
 * `--max-semi-space-size` bounds the young generation of the isolates created after it, so the workflow threads'
 * (the main thread's, created before, keeps V8's 16 MB semi-spaces): a busy workflow thread otherwise commits 32 MB
 * of young generation (three threads with 2,000 deliveries waiting: 532 MB, 464 with 4 MB semi-spaces;
 * docs/scale-and-size.md, "Worker memory"). Call this before the worker exists.
 */
export function applyWorkerMemorySettings(
  config: Pick<Config, 'HERALD_WORKER_HEAP_GROWING_PERCENT' | 'HERALD_WORKER_THREAD_SEMI_SPACE_MB'>,
): { heapGrowingPercent: number | null; workflowThreadSemiSpaceMb: number | null } {
  const percent = config.HERALD_WORKER_HEAP_GROWING_PERCENT;
  const semiSpace = config.HERALD_WORKER_THREAD_SEMI_SPACE_MB;
  if (percent !== 0) setFlagsFromString(`--heap-growing-percent=${percent}`);
  if (semiSpace !== 0) setFlagsFromString(`--max-semi-space-size=${semiSpace}`);
  return {
    heapGrowingPercent: percent === 0 ? null : percent,
    workflowThreadSemiSpaceMb: semiSpace === 0 ? null : semiSpace,
  };
}
