// The bound on the workflow threads' young generation (src/process/worker-memory.ts): V8 sizes an isolate's young
// generation when it creates it, so the flag the worker sets at start bounds the threads it starts afterwards (the
// SDK's workflow threads) and leaves the main thread's as it was. Run in a child process: a V8 flag is process-wide.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const probe = new URL('../fixtures/young-generation/probe.ts', import.meta.url).pathname;

interface Probe {
  applied: { workflowThreadSemiSpaceMb: number | null };
  mainMb: number;
  threadMb: number;
}

async function run(semiSpaceMb: number): Promise<Probe> {
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', probe], {
    env: { ...process.env, HERALD_WORKER_THREAD_SEMI_SPACE_MB: String(semiSpaceMb) },
  });
  return JSON.parse(stdout.trim().split('\n').pop()!) as Probe;
}

describe('worker memory: the workflow threads young generation', { timeout: 120_000 }, () => {
  it('bounds a thread started after the setting to two semi-spaces, and not the main thread', async () => {
    const bounded = await run(1);
    assert.equal(bounded.applied.workflowThreadSemiSpaceMb, 1);
    assert.ok(bounded.threadMb > 0 && bounded.threadMb <= 2, `thread new space ${bounded.threadMb} MB (≤ 2 × 1)`);
    assert.ok(bounded.mainMb > 2, `main new space ${bounded.mainMb} MB: V8's own bound`);
  });

  it("leaves V8's own bound with 0", async () => {
    const free = await run(0);
    assert.equal(free.applied.workflowThreadSemiSpaceMb, null);
    assert.ok(free.threadMb > 2, `thread new space ${free.threadMb} MB`);
  });
});
