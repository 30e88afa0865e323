// Replays recorded delivery histories against the current workflow code: a nondeterministic change fails here.
// The histories come from test/integration/delivery-schedule*.test.ts and delivery-retry-update.test.ts
// (HERALD_RECORD_HISTORIES=1 records new ones only). They are never modified nor removed: manifest.json holds their
// SHA-256 (test/unit/history-fixtures.test.ts) and docs/upgrade-workflow.md says how a workflow change adds one.
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { DefaultLogger, Runtime, Worker, type ReplayWorkerOptions } from '@temporalio/worker';
import { DeterminismViolationError } from '@temporalio/workflow';
import { readHistory, type History } from '../fixtures/histories/history-json.js';
import { eventsOfType } from '../helpers/temporal.js';

Runtime.install({ logger: new DefaultLogger('WARN') });

/** Every fixture, with what its history must hold: an empty or truncated file cannot pass. */
const expected = {
  // Recorded from the workflow before its patches (no patch markers).
  'always-fails-with-retry-now': { activities: 7, timers: 6, signals: 1, updates: 0, markers: 0 },
  'succeeds-after-3-failures': { activities: 4, timers: 3, signals: 0, updates: 0, markers: 0 },
  'manual-rerun-one-attempt': { activities: 1, timers: 0, signals: 1, updates: 0, markers: 0 },
  'test-send-with-update': { activities: 2, timers: 1, signals: 0, updates: 2, markers: 0 },
  'retry-during-last-attempt': { activities: 2, timers: 0, signals: 1, updates: 0, markers: 0 },
  'cancelled-after-delete': { activities: 2, timers: 1, signals: 0, updates: 0, markers: 0 },
  // Recorded from the patched workflow: the attempt rule in the activity, the cancel signal (two patch markers).
  'ruled-always-fails-with-retry-now': { activities: 7, timers: 6, signals: 1, updates: 0, markers: 2 },
  'ruled-succeeds-after-3-failures': { activities: 4, timers: 3, signals: 0, updates: 0, markers: 2 },
  'ruled-manual-rerun-one-attempt': { activities: 1, timers: 0, signals: 1, updates: 0, markers: 2 },
  'ruled-test-send-with-update': { activities: 2, timers: 1, signals: 0, updates: 2, markers: 2 },
  'ruled-retry-during-last-attempt': { activities: 2, timers: 0, signals: 1, updates: 0, markers: 2 },
  'ruled-cancelled-at-next-attempt': { activities: 2, timers: 1, signals: 0, updates: 0, markers: 2 },
  'ruled-cancel-signal-during-wait': { activities: 1, timers: 1, signals: 1, updates: 0, markers: 2 },
  // Recorded from the workflow with the manual-retry update (a marker only where a manual retry starts the run).
  'retry-update-during-wait': { activities: 3, timers: 2, signals: 0, updates: 4, markers: 0 },
  'retry-update-rerun': { activities: 2, timers: 0, signals: 0, updates: 3, markers: 1 },
  // The recovery campaign workflow (workflows/recovery.ts): paused, resumed and cancelled by updates.
  'recovery-pause-resume-cancel': { activities: 6, timers: 3, signals: 0, updates: 4, markers: 0 },
  // Recorded from the workflow that holds a delivery while its subscription is paused (patch pause-hold; three
  // markers): a held retry released by the signal, and a held first attempt cancelled.
  'pause-held-retry-released': { activities: 4, timers: 2, signals: 1, updates: 0, markers: 3 },
  'pause-held-then-cancelled': { activities: 1, timers: 0, signals: 1, updates: 0, markers: 3 },
  // Recorded from the workflow whose retry timer counts from the answer (nextAttemptInMs: a 27.5 s timer, no patch:
  // only the duration differs, which replay does not check).
  'retry-counted-from-answer': { activities: 2, timers: 1, signals: 0, updates: 0, markers: 3 },
  // Recorded from the workflow whose new runs record one marker, `one-marker`, for all the changes before it.
  'one-marker-retry-update-during-wait': { activities: 3, timers: 2, signals: 0, updates: 4, markers: 1 },
  'one-marker-retry-update-rerun': { activities: 2, timers: 0, signals: 0, updates: 3, markers: 1 },
  'one-marker-pause-held-retry-released': { activities: 4, timers: 2, signals: 1, updates: 0, markers: 1 },
  'one-marker-pause-held-then-cancelled': { activities: 1, timers: 0, signals: 1, updates: 0, markers: 1 },
  // Recorded from the state machine (patch attempt-steps, one marker): runAttempt answers sent, end or wait; the
  // same shapes as above, and waits for a capacity guard (three re-asks, then attempt 2; a cancel while waiting).
  'steps-always-fails-with-retry-now': { activities: 7, timers: 6, signals: 1, updates: 0, markers: 1 },
  'steps-cancel-signal-during-wait': { activities: 1, timers: 1, signals: 1, updates: 0, markers: 1 },
  'steps-manual-rerun-one-attempt': { activities: 2, timers: 0, signals: 1, updates: 0, markers: 1 },
  'steps-pause-held-retry-released': { activities: 4, timers: 2, signals: 1, updates: 0, markers: 1 },
  'steps-pause-held-then-cancelled': { activities: 1, timers: 0, signals: 1, updates: 0, markers: 1 },
  'steps-retry-during-last-attempt': { activities: 3, timers: 0, signals: 1, updates: 0, markers: 1 },
  'steps-retry-update-during-wait': { activities: 3, timers: 2, signals: 0, updates: 4, markers: 1 },
  'steps-retry-update-after-record': { activities: 2, timers: 0, signals: 0, updates: 3, markers: 1 },
  'steps-retry-update-rerun': { activities: 2, timers: 0, signals: 0, updates: 3, markers: 1 },
  'steps-succeeds-after-3-failures': { activities: 4, timers: 3, signals: 0, updates: 0, markers: 1 },
  'steps-test-send-with-update': { activities: 2, timers: 1, signals: 0, updates: 2, markers: 1 },
  'steps-waiting-then-cancelled': { activities: 1, timers: 1, signals: 1, updates: 0, markers: 1 },
  'steps-waits-then-succeeds': { activities: 6, timers: 5, signals: 0, updates: 0, markers: 1 },
  // An ordered delivery (test/integration/delivery-fifo.test.ts): waits for its turn twice, released, then sent.
  'steps-fifo-turn-released': { activities: 3, timers: 2, signals: 2, updates: 0, markers: 1 },
  // The endpoint probe (workflows/probe.ts): two failing probes, then the 2xx that resumed the subscription.
  'probe-failing-then-resumed': { activities: 3, timers: 3, signals: 0, updates: 0, markers: 0 },
} as const;
type FixtureName = keyof typeof expected;

const workflowsPath = fileURLToPath(new URL('../../workflows/index.ts', import.meta.url));
const bundlePath = process.env.HERALD_WORKFLOW_BUNDLE;
const replayOptions: ReplayWorkerOptions = bundlePath
  ? { workflowBundle: { codePath: bundlePath } }
  : { workflowsPath };

async function replayAll(histories: { workflowId: string; history: History }[]) {
  const results = [];
  for await (const result of Worker.runReplayHistories(replayOptions, histories)) results.push(result);
  return results;
}

describe('delivery workflow replay', () => {
  const histories = new Map<FixtureName, History>();

  before(async () => {
    for (const name of Object.keys(expected) as FixtureName[]) histories.set(name, await readHistory(name));
  });

  it('has exactly the expected fixtures, each with its activities, timers, signals and updates', async () => {
    const files = (await readdir(new URL('../fixtures/histories/', import.meta.url))).filter(
      (f) => f.endsWith('.json') && f !== 'manifest.json',
    );
    assert.deepEqual(
      files.sort(),
      Object.keys(expected)
        .map((n) => `${n}.json`)
        .sort(),
    );
    for (const [name, counts] of Object.entries(expected)) {
      const events = histories.get(name as FixtureName)?.events;
      assert.deepEqual(
        {
          activities: eventsOfType(events, 'activityTaskScheduledEventAttributes').length,
          timers: eventsOfType(events, 'timerStartedEventAttributes').length,
          signals: eventsOfType(events, 'workflowExecutionSignaledEventAttributes').length,
          updates: eventsOfType(events, 'workflowExecutionUpdateCompletedEventAttributes').length,
          markers: eventsOfType(events, 'markerRecordedEventAttributes').length,
        },
        counts,
        name,
      );
      assert.equal(eventsOfType(events, 'workflowExecutionCompletedEventAttributes').length, 1, name);
    }
  });

  it('replays every recorded history without a nondeterminism error', async () => {
    const results = await replayAll(
      [...histories].map(([name, history]) => ({ workflowId: `delivery:replay-${name}`, history })),
    );
    assert.equal(results.length, Object.keys(expected).length);
    for (const result of results) assert.equal(result.error, undefined, `${result.workflowId}: ${result.error}`);
  });

  it('reports an error for a history the code would not produce (the replay is not vacuous)', async () => {
    const history = await readHistory('succeeds-after-3-failures');
    const scheduled = eventsOfType(history.events, 'activityTaskScheduledEventAttributes')[0];
    const activityType = scheduled?.activityTaskScheduledEventAttributes?.activityType;
    assert.ok(activityType);
    activityType.name = 'somethingElse';
    const [result] = await replayAll([{ workflowId: 'delivery:replay-tampered', history }]);
    assert.ok(result?.error instanceof DeterminismViolationError, 'a changed activity type must fail the replay');
    assert.match(result.error.message, /Nondeterminism/);
  });
});
