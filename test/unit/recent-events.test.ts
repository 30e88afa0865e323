import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { EventDoc } from '../../src/store/documents.js';
import { createRecentEvents } from '../../src/store/recent-events.js';

const event = (id: string, bodyBytes = 10): EventDoc => ({ _id: id, body: 'x'.repeat(bodyBytes) }) as EventDoc;

describe('the events a process stored, kept for its own worker', () => {
  it('answers an event it kept, and nothing it did not', () => {
    const recent = createRecentEvents();
    const e = event('a');
    recent.keep(e);
    assert.equal(recent.get('a'), e);
    assert.equal(recent.get('b'), undefined);
  });

  it('forgets an event after a minute', () => {
    let now = 0;
    const recent = createRecentEvents(() => now);
    recent.keep(event('a'));
    now = 59_999;
    assert.ok(recent.get('a'));
    now = 60_000;
    assert.equal(recent.get('a'), undefined);
  });

  it('keeps at most 2,000 events, the newest', () => {
    const recent = createRecentEvents();
    for (let i = 0; i < 2_001; i++) recent.keep(event(`e${i}`));
    assert.equal(recent.get('e0'), undefined);
    assert.ok(recent.get('e1'));
    assert.ok(recent.get('e2000'));
  });

  it('keeps at most 16 MB of bodies, the newest', () => {
    const recent = createRecentEvents();
    const mb = 1024 * 1024;
    for (let i = 0; i < 17; i++) recent.keep(event(`big${i}`, mb));
    assert.equal(recent.get('big0'), undefined);
    assert.ok(recent.get('big1'));
    assert.ok(recent.get('big16'));
  });
});
