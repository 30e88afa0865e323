// The worker process's memory settings (docs/scale-and-size.md, "Worker memory"): with
// HERALD_WORKER_HEAP_GROWING_PERCENT set, V8's own trace (`--trace-gc-verbose`) shows the heap growing factor it
// uses after each full collection, in more than one isolate (the main thread's and the workflow thread's: V8 reads
// the flag process-wide); with the image's MALLOC_ARENA_MAX, the process holds no more glibc arenas than that (a
// worker without it opens 11–15); and the worker still delivers.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { memoryMap } from '../../bench/lib/memory-map.js';
import { imageMallocEnv } from '../../scripts/lib/malloc-env.js';
import { root } from '../../scripts/lib/servers.js';
import { envOf, reap, spawnHerald, type HeraldChild } from '../helpers/child-process.js';
import { eventually } from '../helpers/deliveries.js';
import { startDeliveryStack, type DeliveryStack } from '../helpers/delivery-stack.js';

/** Time for a child worker to start (tsx, bundle, connections) and deliver on a loaded machine. */
const START_MS = 90_000;
/** Factor 5.0: beyond V8's own range (1.1–4.0), so only the setting can produce it. */
const PERCENT = 400;

/**
 * Isolate address → the growing factors V8 applied for it after its full collections. Node 20 (V8 11.3) prints the
 * applied factor on the limit line, `[pid:0x…] … ms: [HeapController] Limit: old size: … KB, new limit: … KB (5.0)`
 * (its `factor 4.0 based on …` line is the factor before the flag); Node 24 (V8 13.6) prints
 * `[pid:0x…:n] … ms: [HeapController] factor 5.0 based on …`, with the flag applied, and no factor on the limit line.
 */
function factorsByIsolate(output: string): Map<string, string[]> {
  const byIsolate = new Map<string, string[]>();
  const line =
    /^\[\d+:(0x[0-9a-f]+)(?::\d+)?\]\s+[\d.]+ ms: \[HeapController\] (?:factor ([\d.]+) based on |Limit: .*\(([\d.]+)\)$)/gm;
  for (const m of output.matchAll(line)) {
    const [, isolate, factor24, factor20] = m;
    byIsolate.set(isolate!, [...(byIsolate.get(isolate!) ?? []), (factor24 ?? factor20)!]);
  }
  return byIsolate;
}

/** The glibc settings as the image (Dockerfile) sets them; `npm run start:worker` defaults to the same values. */
function imageMalloc(): Record<string, string> {
  const malloc = imageMallocEnv();
  assert.deepEqual(Object.keys(malloc).sort(), [
    'MALLOC_ARENA_MAX',
    'MALLOC_MMAP_THRESHOLD_',
    'MALLOC_TRIM_THRESHOLD_',
  ]);
  const startWorker = (
    JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
  ).scripts['start:worker'];
  for (const [name, value] of Object.entries(malloc))
    assert.ok(startWorker?.includes(`${name}=\${${name}:-${value}}`), `start:worker defaults ${name} to ${value}`);
  return malloc;
}

describe('worker process: memory settings', { timeout: 240_000 }, () => {
  let s: DeliveryStack;
  let child: HeraldChild | undefined;
  before(async () => {
    s = await startDeliveryStack({ inProcessWorker: false });
  });
  after(async () => {
    await reap(child);
    await s?.stop();
  });

  it('caps the V8 heap growing factor of its main and workflow threads, and its malloc arenas', async () => {
    const malloc = imageMalloc();
    const subscription = await s.subscribe('/memory-settings');
    const env = envOf(s.workerConfig, {
      HERALD_WORKER_METRICS_PORT: 'off',
      HERALD_TEMPORAL_METRICS_PORT: 'off',
      LOG_LEVEL: 'info',
      HERALD_WORKER_HEAP_GROWING_PERCENT: String(PERCENT),
      ...malloc,
    });
    child = spawnHerald('worker', env, ['--trace-gc-verbose']);
    const eventId = await s.publish();
    await eventually(async () => {
      const [d] = await s.deliveriesOf(eventId, subscription.id);
      return d?.status === 'succeeded' ? d : undefined;
    }, START_MS);
    // Each thread makes full collections while it loads its code (the workflow thread: the bundle).
    await eventually(() => {
      const isolates = [...factorsByIsolate(child!.output())].filter(([, f]) => f.includes('5.0'));
      return isolates.length >= 2 ? isolates : undefined;
    }, START_MS).catch(() =>
      assert.fail(`factors by isolate: ${JSON.stringify([...factorsByIsolate(child!.output())])}`),
    );

    const settings = child
      .output()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((l) => l.msg === 'worker memory settings');
    assert.equal(settings?.heapGrowingPercent, PERCENT, 'the worker logs the setting it applied');
    assert.deepEqual(settings?.malloc, malloc, 'the worker logs the glibc settings it started with');
    // The main arena (brk) is not among the 64 MiB arena heaps memoryMap counts.
    const map = memoryMap(child.child.pid!);
    assert.ok(map && map.mallocArenas <= Number(malloc.MALLOC_ARENA_MAX) - 1, JSON.stringify(map));
  });
});
