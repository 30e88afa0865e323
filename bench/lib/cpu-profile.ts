// V8 CPU profiles of this process (node:inspector), summarised as shares of self time by where the code lives: a
// comparison that a loaded, shared machine blurs less than wall-clock figures.
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
 * Runs `fn` under the V8 profiler; writes `<name>-<time>.cpuprofile` under .data/profiles/. Returns the process's CPU
 * per item (all its threads: the Temporal SDK's native ones too) and the main thread's top places by share.
 */
export async function profiled(
  name: string,
  items: number,
  fn: () => Promise<unknown>,
): Promise<{ processCpuMsPerItem: number; mainThreadSharesPct: Record<string, number> }> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 200 });
  await session.post('Profiler.start');
  const cpu = process.cpuUsage();
  await fn();
  const used = process.cpuUsage(cpu);
  const { profile } = (await session.post('Profiler.stop')) as { profile: Profile };
  session.disconnect();
  const dir = join(root, '.data', 'profiles');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${name}-${Date.now()}.cpuprofile`), JSON.stringify(profile));
  return {
    processCpuMsPerItem: round((used.user + used.system) / 1000 / items, 2),
    mainThreadSharesPct: Object.fromEntries(Object.entries(selfShares(profile)).slice(0, 25)),
  };
}
