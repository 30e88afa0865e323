// `npm run cluster`: a real Temporal cluster on this machine (docs/temporal-cluster.md, "The cluster test bed"):
// PostgreSQL and the Temporal server built by scripts/tools.sh --cluster, the schema, the namespace `default` with
// Herald's search attributes and ops/temporal-dynamic-config.yaml, on 127.0.0.1:17233 (HERALD_CLUSTER_PORT). Prints
// the address; Ctrl-C stops everything. State lives in a temp folder and goes with it.
import { clusterOptions, ensureClusterTools, startCluster } from './lib/cluster.js';

async function main(): Promise<void> {
  ensureClusterTools();
  let stopCluster: (() => Promise<void>) | undefined;
  let stopping = false;
  const stop = async (): Promise<void> => {
    if (stopping) return;
    stopping = true;
    console.log('\nherald cluster: stopping…');
    await stopCluster?.();
    console.log('herald cluster: stopped');
    process.exit(0);
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
  const options = clusterOptions((s) => (stopCluster = s));
  const cluster = await startCluster(options);
  console.log(
    [
      '',
      `herald cluster: Temporal at ${cluster.address}, namespace ${cluster.namespace} (PostgreSQL, all four services${
        options.oneBox ? ", the dev server's one-box tuning" : ''
      }${options.fairness ? ', task-queue fairness on' : ''})`,
      `  use it:  TEMPORAL_ADDRESS=${cluster.address} npm run dev   (or npm run test:cluster, npm run bench -- delivery)`,
      `  metrics: ${cluster.metricsUrl}   (the server's; approximate_backlog_count by task queue)`,
      `  logs:    ${cluster.dir}`,
      'Ctrl-C stops it (its state goes with it).',
    ].join('\n'),
  );
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
