// Issue 33 item 3: refused credentials cost a counter each, not a log line each — the first of a window is logged
// with its cause, the rest of the window as one line of counts by reason.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createFailureLog } from '../../src/auth/failure-log.js';

type Line = [fields: Record<string, unknown>, message: string];

describe('the bounded log of refused credentials', () => {
  const setup = () => {
    let t = 1_000_000;
    const lines: Line[] = [];
    const log = createFailureLog({ log: (f, m) => lines.push([f, m]), windowMs: 10_000, now: () => t });
    return { log, lines, advance: (ms: number) => (t += ms) };
  };

  it('logs the first failure of a window with its cause and counts the rest by reason in one line', () => {
    const { log, lines, advance } = setup();
    log.record('bad_signature', 'bad signature');
    for (let i = 0; i < 1000; i++) log.record('unknown_key', 'unknown or revoked key');
    log.record('stale_timestamp', 'X-Timestamp is 90 s from server time');
    assert.deepEqual(lines, [[{ cause: 'bad signature' }, 'unauthorized']]);
    advance(10_000);
    log.record('bad_signature', 'bad signature');
    assert.deepEqual(lines.slice(1), [
      [{ count: 1001, reasons: { unknown_key: 1000, stale_timestamp: 1 }, windowMs: 10_000 }, 'unauthorized (more)'],
      [{ cause: 'bad signature' }, 'unauthorized'],
    ]);
    log.flush();
    assert.equal(lines.length, 3, 'nothing more was counted');
  });

  it('writes a window that no later failure closes when it ends, on its own', async () => {
    let t = 0;
    const lines: Line[] = [];
    const log = createFailureLog({ log: (f, m) => lines.push([f, m]), windowMs: 50, now: () => t });
    log.record('unknown_key', 'unknown or revoked key');
    t = 10;
    log.record('unknown_key', 'unknown or revoked key');
    log.record('unknown_key', 'unknown or revoked key');
    assert.equal(lines.length, 1);
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.deepEqual(lines[1], [{ count: 2, reasons: { unknown_key: 2 }, windowMs: 50 }, 'unauthorized (more)']);
  });
});
