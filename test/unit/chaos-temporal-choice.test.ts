// The chaos run's choice of Temporal (bench/lib/chaos-mode.ts) and its CPU figures across restarts
// (bench/lib/chaos-cpu.ts): the parts of `npm run chaos` that need no server.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { cpuMeter } from '../../bench/lib/chaos-cpu.js';
import { chaosTemporalChoice, isLoopback } from '../../bench/lib/chaos-mode.js';

describe('which Temporal the chaos run uses', () => {
  it('starts a dev server of its own by default', () => {
    assert.deepEqual(chaosTemporalChoice({}), { mode: 'dev' });
    assert.deepEqual(chaosTemporalChoice({ CHAOS_TEMPORAL: 'dev', TEMPORAL_ADDRESS: ' ' }), { mode: 'dev' });
  });

  it('starts a cluster of its own with CHAOS_TEMPORAL=cluster, with the one-box tuning when asked', () => {
    assert.deepEqual(chaosTemporalChoice({ CHAOS_TEMPORAL: 'cluster' }), { mode: 'cluster', oneBox: false });
    assert.deepEqual(chaosTemporalChoice({ CHAOS_TEMPORAL: 'cluster', HERALD_CLUSTER_ONE_BOX: '1' }), {
      mode: 'cluster',
      oneBox: true,
    });
  });

  it('uses the server TEMPORAL_ADDRESS names, and says external', () => {
    const external = { mode: 'external', address: '127.0.0.1:27233' };
    assert.deepEqual(chaosTemporalChoice({ TEMPORAL_ADDRESS: '127.0.0.1:27233' }), external);
    assert.deepEqual(
      chaosTemporalChoice({ CHAOS_TEMPORAL: 'external', TEMPORAL_ADDRESS: '127.0.0.1:27233' }),
      external,
    );
    assert.equal(chaosTemporalChoice({ TEMPORAL_ADDRESS: 'temporal.internal:7233' }).mode, 'external');
    assert.equal(chaosTemporalChoice({ TEMPORAL_ADDRESS: '[::1]:7233' }).mode, 'external');
  });

  it('refuses a contradiction or a value it does not know, naming the variable', () => {
    assert.throws(() => chaosTemporalChoice({ CHAOS_TEMPORAL: 'cloud' }), /CHAOS_TEMPORAL must be one of dev, cluster/);
    assert.throws(() => chaosTemporalChoice({ CHAOS_TEMPORAL: 'external' }), /needs TEMPORAL_ADDRESS/);
    assert.throws(
      () => chaosTemporalChoice({ CHAOS_TEMPORAL: 'cluster', TEMPORAL_ADDRESS: '127.0.0.1:17233' }),
      /CHAOS_TEMPORAL=cluster starts a Temporal of its own, but TEMPORAL_ADDRESS is set/,
    );
    assert.throws(() => chaosTemporalChoice({ TEMPORAL_ADDRESS: '127.0.0.1' }), /TEMPORAL_ADDRESS must be host:port/);
  });

  it('measures an external server only when it is on this machine', () => {
    for (const local of ['127.0.0.1:7233', 'localhost:7233', '[::1]:7233']) assert.ok(isLoopback(local), local);
    for (const remote of ['10.0.0.5:7233', 'temporal.internal:7233']) assert.ok(!isLoopback(remote), remote);
  });
});

describe("the chaos run's CPU figures", () => {
  it('count from the meter on, and a restarted process (a new pid) from its own start', () => {
    const cpu = new Map([[10, 5]]);
    let pid: number | undefined = 10;
    const meter = cpuMeter({ server: () => pid }, (p) => cpu.get(p) ?? 0);
    cpu.set(10, 7);
    meter.tick();
    cpu.set(10, 8); // its last second before the kill is not seen: the meter ticks every few seconds
    pid = undefined; // down
    meter.tick();
    pid = 11;
    cpu.set(11, 3);
    assert.deepEqual(meter.seconds(), { server: 2 + 3 });
  });

  it('never go down when a reading does, and leave out a process never found', () => {
    const readings = [4, 2, 6]; // the meter's own first reading, then a partial one (children exiting), then more
    const meter = cpuMeter({ db: () => 20, remote: () => undefined }, (p) => (p === 20 ? readings.shift()! : 0));
    meter.tick();
    assert.deepEqual(meter.seconds(), { db: 2 });
  });
});
