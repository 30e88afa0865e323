// V8 CPU profiles of this process (node:inspector), summarised as shares of self time by where the code lives: a
// comparison that a loaded, shared machine blurs less than wall-clock figures. Beside them, V8's sampling heap
// profile of everything allocated meanwhile (collected or not: the garbage collector's work follows it), per item.
import { mkdirSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { join, relative } from 'node:path';
import { root } from '../../scripts/lib/servers.js';
import { round } from './stats.js';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}
interface HeapNode {
  callFrame: ProfileNode['callFrame'];
  selfSize: number;
  children: HeapNode[];
}

/** Where a frame's code lives: a package, a node: module, a Herald file, the workflow bundle, or V8 itself. */
export function placeOf({ functionName, url }: ProfileNode['callFrame']): string {
  if (!url) return functionName.startsWith('(') ? functionName : `(native) ${functionName || 'anonymous'}`;
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1]!;
  if (url.startsWith('node:')) return url;
  if (!url.startsWith('file:') && !url.startsWith('/')) return `workflow bundle`;
  return `herald: ${relative(root, url.replace(/^file:\/\//, ''))}`;
}

/**
 * Each place's share (%) of the samples that caught the main thread running, highest first. Samples are counted,
 * not their time deltas: a thread preempted on a loaded machine (e.g. right after a loopback write wakes the
 * database) gets one late sample carrying the whole wait, which is not CPU.
 */
export function selfShares(profile: Profile): Record<string, number> {
  const byId = new Map(profile.nodes.map((n) => [n.id, placeOf(n.callFrame)]));
  const counts = new Map<string, number>();
  let total = 0;
  for (const id of profile.samples) {
    const place = byId.get(id)!;
    if (place === '(idle)') continue;
    counts.set(place, (counts.get(place) ?? 0) + 1);
    total++;
  }
  return Object.fromEntries(
    [...counts.entries()].sort((a, b) => b[1] - a[1]).map(([place, n]) => [place, round((100 * n) / total, 2)]),
  );
}

/**
 * KB allocated per item by the place that asked for it: the innermost frame that is not Node's own (`node:` modules
 * and V8 built-ins allocate on behalf of their caller: a promise hook's records count for the code making promises).
 */
export function allocationsByPlace(head: HeapNode, items: number): Record<string, number> {
  const kb = new Map<string, number>();
  const walk = (node: HeapNode, owner: string | undefined): void => {
    const place = placeOf(node.callFrame);
    const own = place.startsWith('node:') || place.startsWith('(') ? owner : place;
    if (node.selfSize > 0) kb.set(own ?? place, (kb.get(own ?? place) ?? 0) + node.selfSize / 1024 / items);
    for (const child of node.children) walk(child, own);
  };
  walk(head, undefined);
  return Object.fromEntries([...kb.entries()].sort((a, b) => b[1] - a[1]).map(([place, n]) => [place, round(n, 1)]));
}

/**
 * Runs `fn` under the V8 profiler and the sampling heap profiler; writes `<name>-<time>.cpuprofile` and `<name>-<time>.heapprofile`
 * under .data/profiles/. Returns the process's CPU per item (all its threads: the Temporal SDK's native ones too), the main
 * thread's top places by share, and the KB allocated per item, in all and by place (the top 12).
 */
export async function profiled(
  name: string,
  items: number,
  fn: () => Promise<unknown>,
): Promise<{
  processCpuMsPerItem: number;
  mainThreadSharesPct: Record<string, number>;
  allocatedKbPerItem: number;
  allocatedKbPerItemBy: Record<string, number>;
}> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 200 });
  await session.post('Profiler.start');
  await session.post('HeapProfiler.enable');
  // Node 20's types lack the two flags that keep what was collected in the profile.
  const sampling = {
    samplingInterval: 8192,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  };
  await session.post('HeapProfiler.startSampling', sampling as { samplingInterval: number });
  const cpu = process.cpuUsage();
  await fn();
  const used = process.cpuUsage(cpu);
  const { profile: heap } = (await session.post('HeapProfiler.stopSampling')) as unknown as {
    profile: { head: HeapNode };
  };
  const { profile } = (await session.post('Profiler.stop')) as { profile: Profile };
  session.disconnect();
  const dir = join(root, '.data', 'profiles');
  mkdirSync(dir, { recursive: true });
  const stamp = Date.now();
  writeFileSync(join(dir, `${name}-${stamp}.cpuprofile`), JSON.stringify(profile));
  writeFileSync(join(dir, `${name}-${stamp}.heapprofile`), JSON.stringify({ head: heap.head }));
  const allocated = allocationsByPlace(heap.head, items);
  return {
    processCpuMsPerItem: round((used.user + used.system) / 1000 / items, 2),
    mainThreadSharesPct: Object.fromEntries(Object.entries(selfShares(profile)).slice(0, 25)),
    allocatedKbPerItem: round(
      Object.values(allocated).reduce((s, n) => s + n, 0),
      0,
    ),
    allocatedKbPerItemBy: Object.fromEntries(Object.entries(allocated).slice(0, 12)),
  };
}
