// Processes that share a host: workers started with the defaults but for their own /metrics port (or none) all poll
// and all export the Temporal SDK's metrics; a taken scrape port stops a process with one line naming its variable.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:net';
import { envOf, reap, spawnHerald, type HeraldChild } from '../helpers/child-process.js';
import { eventually } from '../helpers/deliveries.js';
import { startDeliveryStack, type DeliveryStack } from '../helpers/delivery-stack.js';
import { freePort, scrape, sum } from '../helpers/prom-text.js';

/** Time for child workers to start (tsx, bundle, connections) on a loaded machine. */
const START_MS = 90_000;

describe('workers side by side on one host', { timeout: 300_000 }, () => {
  let s: DeliveryStack;
  const children: HeraldChild[] = [];
  const spawn = (entry: 'worker' | 'server', extra: Record<string, string>): HeraldChild => {
    const env = envOf(s.workerConfig, extra);
    // The SDK exporter's port as an operator would leave it: unset.
    if (!('HERALD_TEMPORAL_METRICS_PORT' in extra)) delete env.HERALD_TEMPORAL_METRICS_PORT;
    const child = spawnHerald(entry, env);
    children.push(child);
    return child;
  };

  before(async () => {
    s = await startDeliveryStack({ inProcessWorker: false });
  });
  after(async () => {
    await reap(...children);
    await s.stop();
  });

  /** Distinct identities polling the task queue for workflow (1) or activity (2) tasks, as Temporal reports them. */
  const pollers = async (taskQueueType: 1 | 2): Promise<number> => {
    const res = await s.app.temporal.connection.workflowService.describeTaskQueue({
      namespace: s.workerConfig.TEMPORAL_NAMESPACE,
      taskQueue: { name: s.workerConfig.TEMPORAL_TASK_QUEUE },
      taskQueueType,
    });
    return new Set(res.pollers?.map((p) => p.identity)).size;
  };

  it('three workers, each with its own /metrics port or none: all poll, and both /metrics carry SDK metrics', async () => {
    const ports = [await freePort(), await freePort()];
    const exporting = ports.map((port) => spawn('worker', { HERALD_WORKER_METRICS_PORT: String(port) }));
    const quiet = spawn('worker', { HERALD_WORKER_METRICS_PORT: 'off' });
    const all = [...exporting, quiet];
    await eventually(async () => {
      const exited = all.find((w) => w.child.exitCode !== null);
      if (exited) assert.fail(`a worker exited (${exited.child.exitCode}): ${exited.output()}`);
      return (await pollers(1)) === 3 && (await pollers(2)) === 3 ? true : undefined;
    }, START_MS);

    for (const port of ports) {
      const samples = await eventually(async () => {
        const { samples } = await scrape(`http://127.0.0.1:${port}/metrics`);
        return sum(samples, 'temporal_num_pollers', { poller_type: 'activity_task' }) > 0 ? samples : undefined;
      });
      assert.ok(sum(samples, 'temporal_num_pollers', { poller_type: 'workflow_task' }) > 0, `SDK metrics on ${port}`);
      assert.ok(
        samples.some((x) => x.name === 'herald_deliveries_overdue'),
        `Herald's own metrics on ${port}`,
      );
    }
    assert.ok(
      all.every((w) => w.child.exitCode === null),
      'every worker still runs',
    );
  });

  it('a taken scrape port stops the process with one line that names the variable', async () => {
    const holders: Server[] = [];
    const taken = async (): Promise<string> => {
      const holder = createServer();
      holders.push(holder);
      await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
      return String((holder.address() as { port: number }).port);
    };
    try {
      const cases = [
        ['worker', 'HERALD_WORKER_METRICS_PORT', { HERALD_WORKER_METRICS_PORT: await taken() }],
        ['worker', 'HERALD_TEMPORAL_METRICS_PORT', { HERALD_TEMPORAL_METRICS_PORT: await taken() }],
        ['server', 'HERALD_METRICS_PORT', { HERALD_PORT: '0', HERALD_METRICS_PORT: await taken() }],
      ] as const;
      const started = cases.map(([entry, variable, env]) => ({ variable, env, child: spawn(entry, env) }));
      for (const { variable, env, child } of started) {
        const exit = await child.exited;
        const port = (env as Record<string, string>)[variable];
        assert.equal(exit.code, 1, child.output());
        // stdout and stderr arrive interleaved: the one line about the variable, wherever it lands.
        const lines = child
          .output()
          .split('\n')
          .filter((line) => line.includes(variable));
        assert.deepEqual(lines, [
          `${variable}: 127.0.0.1:${port} is already in use; set another port, 0 for a free one, or off`,
        ]);
        assert.doesNotMatch(child.output(), /^\s+at /m, 'no stack trace');
      }
    } finally {
      await Promise.all(holders.map((h) => new Promise((resolve) => h.close(resolve))));
    }
  });
});
