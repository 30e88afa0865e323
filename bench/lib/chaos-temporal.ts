// The chaos run's Temporal (bench/lib/chaos-mode.ts says which): a dev server of its own on its SQLite file; a cluster
// of its own (scripts/lib/cluster.ts: PostgreSQL, started once and never killed as a managed database is not, and
// the Temporal server, which the run kills -9 and launches again on the same configuration and data); or an external
// server, used as it is and never killed.
import { chmodSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { ensureClusterTools, initCluster, launchClusterServer, setupNamespace } from '../../scripts/lib/cluster.js';
import { clusterAddress, freeClusterPort } from '../../scripts/lib/cluster-layout.js';
import { launchPostgres, setupSchema } from '../../scripts/lib/cluster-postgres.js';
import { freePort } from '../../scripts/lib/processes.js';
import { startTemporalDev } from '../../scripts/lib/servers.js';
import { isLoopback, type ChaosTemporalChoice, type ChaosTemporalMode } from './chaos-mode.js';
import { pidListeningOn } from './proc-stats.js';
import { supervised, type Supervised } from './supervised.js';

export interface ChaosTemporal {
  readonly mode: ChaosTemporalMode;
  /** host:port for TEMPORAL_ADDRESS. */
  readonly address: string;
  /** The process the fault phase kills -9 once; undefined for an external server. */
  readonly server: Supervised | undefined;
  /** The processes the run started (in start order): killed on its exit, stopped at its end. */
  readonly processes: readonly Supervised[];
  /** Starts them and, once, sets up what the server needs for Herald; resolves once it serves. */
  start(): Promise<void>;
  /** By CPU figure (`temporal`, and `postgres` for a cluster): the pid that figure measures now. */
  readonly pids: Readonly<Record<string, () => number | undefined>>;
}

/** Declares the Temporal side, its data and logs in `tmp`; nothing is started yet. */
export async function chaosTemporal(choice: ChaosTemporalChoice, tmp: string): Promise<ChaosTemporal> {
  if (choice.mode === 'external') {
    const port = Number(choice.address.slice(choice.address.lastIndexOf(':') + 1));
    const pid = isLoopback(choice.address) ? pidListeningOn(port) : undefined;
    return {
      mode: 'external',
      address: choice.address,
      server: undefined,
      processes: [],
      start: () => Promise.resolve(),
      pids: { temporal: () => pid },
    };
  }
  if (choice.mode === 'dev') {
    const port = await freePort();
    const server = supervised('temporal', () =>
      startTemporalDev({ port, dbFile: join(tmp, 'temporal.db'), log: join(tmp, 'temporal.log') }),
    );
    return {
      mode: 'dev',
      address: `127.0.0.1:${port}`,
      server,
      processes: [server],
      start: () => server.start(),
      pids: { temporal: () => server.pid },
    };
  }
  ensureClusterTools();
  chmodSync(tmp, 0o711); // PostgreSQL runs as `nobody` under root: it must get through to its folder, not list this one
  const dir = join(tmp, 'cluster');
  mkdirSync(dir);
  const layout = initCluster(dir, { port: await freeClusterPort(), oneBox: choice.oneBox });
  const postgres = supervised('postgres', () => launchPostgres(layout));
  const server = supervised('temporal', () => launchClusterServer(layout));
  return {
    mode: 'cluster',
    address: clusterAddress(layout),
    server,
    processes: [postgres, server],
    async start() {
      await postgres.start();
      setupSchema(layout);
      await server.start();
      await setupNamespace(layout);
    },
    pids: { temporal: () => server.pid, postgres: () => postgres.pid },
  };
}
