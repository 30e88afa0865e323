// `npm run test:cluster`: the end-to-end delivery tests against a real Temporal cluster (not in CI): the one named by
// TEMPORAL_ADDRESS (e.g. `npm run cluster` in another terminal), else one started here and stopped after
// (scripts/lib/cluster.ts). The test bed then starts only the MongoDB-wire server. Arguments replace the file list.
import { spawn } from 'node:child_process';
import { clusterOptions, ensureClusterTools, startCluster, type Cluster } from './lib/cluster.js';
import { exitWithTestStatus } from './lib/processes.js';
import { root } from './lib/servers.js';

/** What differs between servers: starts, updates (test send, manual retry), timers, visibility, setup. */
const CLUSTER_TESTS = [
  'delivery-e2e', // publish → signed POST, manual retry (update-with-start), DNS rebinding, cancel by DELETE
  'test-delivery', // test send (an update), manual retry of a terminated run
  'manual-retry-race', // ten concurrent update-with-starts coalesce
  'delivery-cancel-summary', // cancel, summary
  'subscription-pause', // pause/resume, Retry-After timers, 410 and health pauses
  'endpoint-probe', // the probe workflow's short timers on the real clock
  'late-event', // the first attempt's short activity retries on the real clock
  'recovery-campaigns', // a campaign: rate, pause/resume/cancel, continue-as-new, query, search attributes
  'api-worker', // eager workflow start
  'worker-process', // a worker killed -9 and one stopped by SIGTERM
  'cli-temporal', // herald temporal check / inspect
  'temporal-setup', // herald temporal setup on fresh namespaces
].map((name) => `test/integration/${name}.test.ts`);

async function main(): Promise<number> {
  let cluster: Cluster | undefined;
  let stopCluster: (() => Promise<void>) | undefined;
  // Ctrl-C: the servers run in process groups of their own, so they are stopped here.
  process.on('SIGINT', () => void stopCluster?.().then(() => process.exit(130)));
  const env: NodeJS.ProcessEnv = { ...process.env };
  if (!env.TEMPORAL_ADDRESS) {
    ensureClusterTools();
    const started = Date.now();
    cluster = await startCluster(clusterOptions((s) => (stopCluster = s)));
    console.log(
      `cluster: ${cluster.address} ready in ${Math.round((Date.now() - started) / 1000)} s, logs in ${cluster.dir}`,
    );
    env.TEMPORAL_ADDRESS = cluster.address;
  }
  try {
    const requested = process.argv.slice(2).filter((a) => a !== '--');
    const files = requested.length > 0 ? requested : CLUSTER_TESTS;
    return await new Promise<number>((resolve) => {
      const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/test.ts', ...files], {
        cwd: root,
        env,
        stdio: 'inherit',
      });
      child.on('exit', (code) => resolve(code ?? 1));
    });
  } finally {
    await cluster?.stop();
  }
}

exitWithTestStatus(main());
