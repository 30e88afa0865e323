// Two workloads measured on the same servers in rounds of alternating order (A B, B A, …; an even number of rounds),
// so that neither gets the younger server: the dev server slows as its in-memory database fills (a bare workflow's
// Temporal CPU 17 → 25 ms over 3,600 workflows, 26 Nov). Each round runs round(items / rounds) items; a side's rate is
// over all of its rounds. After each round the servers and this process are left to go quiet: what a round left
// running (a delivery's attempt record and last workflow task after its POST arrived) is charged to that round's CPU
// and does not slow the next. CPU per item from /proc and this process. On `npm run cluster` (no dev server on the
// port) "temporal" is the server process and its PostgreSQL together, as the dev server's includes its SQLite.
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { clusterPorts } from '../../scripts/lib/cluster-layout.js';
import { cpuSecondsOf, cpuSecondsOfTree } from './delivery-phases.js';
import { pidListeningOn } from './proc-stats.js';
import { pool, round } from './stats.js';
import { threadCpuSeconds, threadMsPerItem, type ThreadCpu } from './thread-cpu.js';

export interface CpuPerItem {
  mongoWire: number;
  temporal: number;
  node: number;
}

export interface Side {
  /** Items per second over all rounds. */
  perSec: number;
  /** Items per second of each round, in order. */
  rounds: number[];
  /** CPU ms per item: the MongoDB-wire server, the Temporal dev server and this process, mean of the rounds. */
  cpuMs: CpuPerItem;
  /** This process's CPU ms per item by kind of thread (bench/lib/thread-cpu.ts), mean of the rounds. */
  threadMs: ThreadCpu;
}

export interface TurnsOptions {
  items: number;
  rounds: number;
  inFlight: number;
  mongoWirePort: string;
  temporalPort: string;
}

/** Waits until `cpuSeconds` grows by less than a tenth of a core over 150 ms, for at most 5 s. */
async function settle(cpuSeconds: () => number): Promise<void> {
  const deadline = performance.now() + 5_000;
  for (let last = cpuSeconds(); performance.now() < deadline;) {
    await sleep(150);
    const now = cpuSeconds();
    if (now - last < 0.015) return;
    last = now;
  }
}

/** The Temporal side's CPU seconds so far: the dev server on `port`, else the cluster's server and PostgreSQL. */
function temporalCpu(port: string): () => number {
  const devServer = ['start-dev', '--port', port];
  if (cpuSecondsOf(devServer) > 0) return () => cpuSecondsOf(devServer);
  const pids = [pidListeningOn(Number(port)), pidListeningOn(clusterPorts(Number(port)).postgres)];
  return () => pids.reduce<number>((sum, pid) => sum + (pid === undefined ? 0 : cpuSecondsOfTree(pid)), 0);
}

export async function takeTurns(
  a: (i: number) => Promise<unknown>,
  b: (i: number) => Promise<unknown>,
  options: TurnsOptions,
): Promise<[Side, Side]> {
  const mongoWire = ['-listen', `127.0.0.1:${options.mongoWirePort}`];
  const temporal = temporalCpu(options.temporalPort);
  const cpu = () => ({ mongo: cpuSecondsOf(mongoWire), temporal: temporal(), node: process.cpuUsage() });
  const total = () => {
    const { mongo, temporal: t, node } = cpu();
    return mongo + t + (node.user + node.system) / 1e6;
  };
  if (options.rounds < 2 || options.rounds % 2 !== 0) throw new Error('takeTurns: an even number of rounds, ≥ 2');
  const per = Math.max(1, Math.round(options.items / options.rounds));
  await settle(total); // what came before (a warm-up) is nobody's
  const sides = [a, b].map((run) => ({
    run,
    secs: 0,
    rounds: [] as number[],
    cpu: [] as CpuPerItem[],
    threads: [] as ThreadCpu[],
  }));
  let at = 0;
  for (let r = 0; r < options.rounds; r++) {
    for (const side of r % 2 === 0 ? sides : [...sides].reverse()) {
      const before = cpu();
      const threadsBefore = threadCpuSeconds(); // per round only: settle() polls cpu() alone
      const started = performance.now();
      const base = at;
      await pool(per, options.inFlight, async (i) => void (await side.run(base + i)));
      at += per;
      const secs = (performance.now() - started) / 1000;
      await settle(total);
      const after = cpu();
      const node = process.cpuUsage(before.node);
      side.secs += secs;
      side.rounds.push(round(per / secs));
      side.cpu.push({
        mongoWire: ((after.mongo - before.mongo) * 1000) / per,
        temporal: ((after.temporal - before.temporal) * 1000) / per,
        node: (node.user + node.system) / 1000 / per,
      });
      side.threads.push(threadMsPerItem(threadsBefore, threadCpuSeconds(), per));
    }
  }
  const mean = <K extends string>(xs: Record<K, number>[], k: K) =>
    round(xs.reduce((s, x) => s + (x[k] ?? 0), 0) / xs.length, 2);
  const meanThreads = (xs: ThreadCpu[]): ThreadCpu =>
    Object.fromEntries(
      [...new Set(xs.flatMap((x) => Object.keys(x)))]
        .map((kind) => [kind, mean(xs, kind)] as const)
        .filter(([, ms]) => ms > 0)
        .sort((p, q) => q[1] - p[1]),
    );
  const [x, y] = sides.map((s) => ({
    perSec: (per * options.rounds) / s.secs,
    rounds: s.rounds,
    cpuMs: { mongoWire: mean(s.cpu, 'mongoWire'), temporal: mean(s.cpu, 'temporal'), node: mean(s.cpu, 'node') },
    threadMs: meanThreads(s.threads),
  }));
  return [x!, y!];
}
