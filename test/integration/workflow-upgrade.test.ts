// A deploy in the middle of a delivery (docs/upgrade-workflow.md, "Versioning the delivery workflow"): runs started by
// the previously released workflow code (a copy kept under test/fixtures/workflow-code/<commit>/) lose their
// worker mid-schedule and are finished by a worker with the current code, which must replay their history. The
// activities run all along in a worker of their own, as a deploy that replaces the workflow code leaves them.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { WorkflowHandle } from '@temporalio/client';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { deliveryStartOptions } from '../../src/delivery/start-delivery.js';
import { retryNowSignal, retryUpdate } from '../../workflows/messages.js';

/** The workflow type name, as the worker registers it: the upgrade runs it from two different bundles. */
const deliveryWorkflowType = 'deliveryWorkflow';
import type { DeliveryWorkflowInput } from '../../workflows/types.js';
import { requireEnv } from '../helpers/env.js';
import { createFakeDeliveryActivities } from '../helpers/fake-delivery.js';
import { eventsOfType } from '../helpers/temporal.js';
import { registerSearchAttributes } from '../helpers/time-skipping.js';

Runtime.install({ logger: new DefaultLogger('WARN') });

const released = fileURLToPath(new URL('../fixtures/workflow-code/', import.meta.url));
/** Whether the kept code of `version` has patch manual-retry-update (a manual re-run reads its numbers first). */
const rerunReadsRecords = (version: string): boolean => {
  const patchesFile = `${released}/${version}/patches.ts`;
  return existsSync(patchesFile) && readFileSync(patchesFile, 'utf8').includes("'manual-retry-update'");
};
const current = fileURLToPath(new URL('../../workflows/index.ts', import.meta.url));
const { activities, receivers, calls } = createFakeDeliveryActivities();

function startOptions(taskQueue: string, input: DeliveryWorkflowInput) {
  const delivery = {
    _id: input.deliveryId,
    subscriptionId: 'sub-1',
    eventType: 'customer.created' as const,
    integratorId: 'int-1',
    attemptCount: input.firstAttemptNumber - 1,
  };
  return deliveryStartOptions(delivery, taskQueue, input);
}

type Attribute = 'activityTaskScheduledEventAttributes' | 'activityTaskCompletedEventAttributes';

/** Waits until the run's history holds `count` events with this attribute. */
async function historyHas(handle: WorkflowHandle, attribute: Attribute, count: number) {
  for (let i = 0; i < 200; i++) {
    if (eventsOfType((await handle.fetchHistory()).events, attribute).length >= count) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no ${count} × ${attribute}`);
}

for (const version of readdirSync(released, { withFileTypes: true })
  .filter((e) => e.isDirectory())
  .map((e) => e.name)) {
  describe(`a deploy from the workflow code of ${version} to the current code (time-skipping server)`, () => {
    let env: TestWorkflowEnvironment;
    let activityWorker: Worker;
    let activitiesRunning: Promise<void>;
    const taskQueue = `upgrade-${version}`;

    before(async () => {
      env = await TestWorkflowEnvironment.createTimeSkipping({
        server: { executable: { type: 'existing-path', path: requireEnv('HERALD_TEMPORAL_TEST_SERVER') } },
      });
      await registerSearchAttributes(env);
      activityWorker = await Worker.create({ connection: env.nativeConnection, taskQueue, activities });
      activitiesRunning = activityWorker.run();
    });
    after(async () => {
      activityWorker?.shutdown();
      await activitiesRunning;
      await env?.teardown();
    });

    /** A workflow-only worker on `workflowsPath` while `during` runs; it has stopped when this resolves. */
    async function withWorkflowWorker(workflowsPath: string, during: () => Promise<void>): Promise<void> {
      const worker = await Worker.create({
        connection: env.nativeConnection,
        taskQueue,
        workflowsPath,
        maxCachedWorkflows: 0, // every task replays the history, as a fresh worker after a deploy does
      });
      await worker.runUntil(during());
    }

    it(
      'a scheduled delivery: started and signalled on the old code, finished on the new one',
      { timeout: 120_000 },
      async () => {
        const input: DeliveryWorkflowInput = {
          deliveryId: randomUUID(),
          firstAttemptNumber: 1,
          actor: 'system',
          followSchedule: true,
        };
        receivers.set(input.deliveryId, (n) => (n >= 5 ? 'succeeded' : 'http_error'));
        const handle = await env.client.workflow.start(deliveryWorkflowType, startOptions(taskQueue, input));
        await withWorkflowWorker(`${released}/${version}/index.ts`, async () => {
          await historyHas(handle, 'activityTaskCompletedEventAttributes', 1);
          await env.sleep('40 seconds'); // attempt 2 at +30 s
          await historyHas(handle, 'activityTaskCompletedEventAttributes', 2);
          await handle.signal(retryNowSignal); // an old API's manual retry: attempt 3 at once
          await historyHas(handle, 'activityTaskCompletedEventAttributes', 3);
        });
        // Deployed: the new code replays the old run, then serves a new API's retry by update.
        await withWorkflowWorker(current, async () => {
          assert.deepEqual(await handle.executeUpdate(retryUpdate, { args: [{ recordedAttempts: 3 }] }), {
            attemptNumber: 4,
          });
          assert.deepEqual(await handle.result(), { status: 'succeeded', attempts: 5 });
        });
        const made = calls.get(input.deliveryId)?.map((c) => `${c.attemptNumber} ${c.actor}`);
        assert.deepEqual(made, ['1 system', '2 system', '3 manual', '4 manual', '5 system']);
      },
    );

    it(
      'a manual re-run: its attempt in flight while the worker is replaced, it ends on the new code',
      { timeout: 120_000 },
      async () => {
        const deliveryId = randomUUID();
        // Code with patch manual-retry-update numbers the re-run from the records (prepareRerun; the fake has none
        // for this delivery: attempt 1, schedule followed); older code takes the number it is started with.
        const numbersFromRecords = rerunReadsRecords(version);
        const inFlight = numbersFromRecords ? 1 : 8;
        let release = (): void => {};
        const released8 = new Promise<void>((resolve) => (release = resolve));
        receivers.set(deliveryId, async (n) => {
          if (n === inFlight) await released8;
          return 'succeeded' as const;
        });
        const input: DeliveryWorkflowInput = {
          deliveryId,
          firstAttemptNumber: 8,
          actor: 'manual',
          followSchedule: false,
        };
        const { signaledRunId } = await env.client.workflow.signalWithStart(deliveryWorkflowType, {
          ...startOptions(taskQueue, input),
          signal: retryNowSignal,
          signalArgs: [],
        });
        const handle = env.client.workflow.getHandle(startOptions(taskQueue, input).workflowId, signaledRunId);
        await withWorkflowWorker(`${released}/${version}/index.ts`, async () => {
          await historyHas(handle, 'activityTaskScheduledEventAttributes', numbersFromRecords ? 2 : 1);
        });
        release();
        await withWorkflowWorker(current, async () => {
          assert.deepEqual(await handle.result(), { status: 'succeeded', attempts: 1 });
        });
        // The old run took its own path on replay: no new command, its attempt numbered as that code numbered it.
        const events = (await handle.fetchHistory()).events;
        const names = eventsOfType(events, 'activityTaskScheduledEventAttributes').map(
          (e) => e.activityTaskScheduledEventAttributes?.activityType?.name,
        );
        assert.deepEqual(names, numbersFromRecords ? ['prepareRerun', 'attemptDelivery'] : ['attemptDelivery']);
        assert.deepEqual(calls.get(deliveryId), [
          {
            deliveryId,
            attemptNumber: inFlight,
            actor: 'manual',
            followSchedule: numbersFromRecords,
            retryInSeconds: null,
          },
        ]);
      },
    );
  });
}
