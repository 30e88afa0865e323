// The integrator commands (signed with the key `herald init` wrote) and the operator's `herald admin deliveries`
// against the real stack (API, worker, Temporal), with `herald listen` receiving the deliveries they cause.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { cli, startCli, waitForOutput, type CliRun } from '../helpers/cli.js';
import { eventually } from '../helpers/deliveries.js';
import { startListenStack, type ListenStack } from '../helpers/listen-stack.js';

const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
const ok = (r: CliRun): string => {
  assert.equal(r.code, 0, r.stderr);
  return r.stdout;
};

describe('herald integrator and operator commands', { timeout: 120_000 }, () => {
  let stack: ListenStack;
  const stopListening = new AbortController();
  before(async () => (stack = await startListenStack()));
  after(async () => {
    stopListening.abort();
    await stack.stop();
  });

  it('manage subscriptions, deliveries and events, as tables and as JSON, page by page', async () => {
    const h = (...argv: string[]) => cli(stack.env, argv);
    const init = JSON.parse(ok(await h('init', '--json'))) as { integratorId: string; created: boolean };
    assert.equal(init.created, true);

    const listener = startCli(
      stack.env,
      ['listen', '--port', '0', '--count', '3', ...stack.tlsArgs],
      stopListening.signal,
    );
    const banner = await waitForOutput(listener.stderr, (t) => /subscription [0-9a-f-]{36}/.test(t));
    const [, port, subId] = /127\.0\.0\.1:(\d+), subscription ([0-9a-f-]{36})/.exec(banner) as unknown as [
      string,
      string,
      string,
    ];
    const listenUrl = `https://herald-listen.example.com:${port}/`;

    const created = ok(
      await h(
        'subscriptions',
        'create',
        '--url',
        `${listenUrl}other`,
        '--event-type',
        'customer.created,transaction.completed',
        '--description',
        'second',
      ),
    );
    const otherId = new RegExp(`^id:\\s+(${UUID})$`, 'm').exec(created)![1]!;
    assert.match(created, /^event types:\s+customer\.created, transaction\.completed$/m);

    const table = ok(await h('subscriptions', 'list'));
    assert.match(table.split('\n')[0]!, /^ID\s+STATUS\s+URL\s+EVENT TYPES\s+CREATED$/);
    assert.match(table, new RegExp(`^${subId}\\s+enabled\\s+${listenUrl}\\s+\\(all\\)`, 'm'));
    const first = ok(await h('subscriptions', 'list', '--limit', '1'));
    const cursor = /^more: herald subscriptions list --cursor (\S+)$/m.exec(first)![1]!;
    assert.ok(first.includes(otherId) && !first.includes(subId));
    const second = ok(await h('subscriptions', 'list', '--limit', '1', '--cursor', cursor));
    assert.ok(second.includes(subId) && !second.includes('more:'));
    const all = JSON.parse(ok(await h('subscriptions', 'list', '--all', '--limit', '1', '--json'))) as Array<{
      id: string;
    }>;
    assert.deepEqual(
      all.map((s) => s.id),
      [otherId, subId],
    );
    const page = JSON.parse(ok(await h('subscriptions', 'list', '--json'))) as {
      subscriptions: unknown[];
      nextCursor: null;
    };
    assert.equal(page.subscriptions.length, 2);

    const updated = ok(await h('subscriptions', 'update', otherId, '--disable', '--clear-description'));
    assert.match(updated, /^status:\s+disabled$/m);
    assert.match(updated, /^description:\s+-$/m);
    const rotated = JSON.parse(ok(await h('subscriptions', 'rotate-key', otherId, '--json'))) as { keys: unknown[] };
    assert.equal(rotated.keys.length, 2);
    assert.match(ok(await h('subscriptions', 'get', otherId)), /^keys:\n.*\n.*inactive.*\n.*active/m);
    assert.match(ok(await h('subscriptions', 'pause', subId)), /^status:\s+paused \(manual\)$/m);
    assert.match(ok(await h('subscriptions', 'pause', subId)), /^status:\s+paused \(manual\)$/m, 'idempotent');
    assert.match(ok(await h('subscriptions', 'resume', subId)), /^status:\s+enabled$/m);

    const test = ok(await h('subscriptions', 'test', subId));
    const deliveryId = new RegExp(`^id:\\s+(${UUID})$`, 'm').exec(test)![1]!;
    assert.match(test, /^status:\s+succeeded$/m);
    assert.match(test, /^attempts:\n#\s+OUTCOME.*\n1\s+succeeded\s+204\s/m);
    await waitForOutput(listener.output, (t) => t.includes(`${deliveryId}  attempt 1  verified  → 204`));

    assert.match(
      ok(await h('deliveries', 'list', '--subscription', subId)),
      new RegExp(`^${deliveryId}\\s+succeeded\\s+webhook\\.test\\s+1\\s+204`, 'm'),
    );
    assert.equal(
      (JSON.parse(ok(await h('deliveries', 'list', '--json', '--status', 'failed'))) as { deliveries: [] }).deliveries
        .length,
      0,
    );
    assert.match(ok(await h('deliveries', 'retry', deliveryId)), new RegExp(`^id:\\s+${deliveryId}$`, 'm'));
    await waitForOutput(listener.output, (t) => t.includes(`${deliveryId}  attempt 2  verified  → 204`));
    // The receiver saw the POST; the attempt is recorded once its answer is back: read until it is.
    const actors = await eventually(async () => {
      const got = JSON.parse(ok(await h('deliveries', 'get', deliveryId, '--json'))) as {
        attempts: Array<{ actor: string }>;
      };
      return got.attempts.length === 2 ? got.attempts.map((a) => a.actor) : undefined;
    });
    assert.deepEqual(actors, ['test', 'manual']);
    const summary = ok(await h('deliveries', 'summary', subId));
    // The retry's attempt may still be recording: pending or succeeded, nothing else.
    assert.match(summary, /^pending:\s+[01]\nsucceeded:\s+[01]\nfailed:\s+0\ncancelled:\s+0\noldest pending:\s+\S/m);
    assert.match(
      ok(await h('events', 'list', '--type', 'webhook.test')),
      /^ID\s+EVENT TYPE\s+OCCURRED.*\n[0-9a-f-]{36}\s+webhook\.test\s/m,
    );
    assert.equal(ok(await h('events', 'list')), '(none)\n');

    // The operator's view over the admin API.
    const listed = ok(
      await h('admin', 'deliveries', 'list', '--integrator', init.integratorId, '--status', 'succeeded'),
    );
    assert.match(
      listed,
      new RegExp(`^${deliveryId}\\s+${init.integratorId}\\s+${subId}\\s+succeeded\\s+webhook\\.test\\s+2`, 'm'),
    );
    assert.equal(ok(await h('admin', 'deliveries', 'list', '--since', '2999-01-01T00:00:00Z')), '(none)\n');
    const inspect = ok(await h('admin', 'deliveries', 'inspect', deliveryId));
    assert.match(
      inspect,
      new RegExp(`^temporal ui:\\s+http://ui\\.test:8233/namespaces/default/workflows/delivery%3A${deliveryId}$`, 'm'),
    );
    assert.match(inspect, /^next attempt:\s+-$/m);
    assert.match(inspect, /^attempts:\n#.*\n1\s+succeeded\s+204.*test.*\n2\s+succeeded\s+204.*manual/m);
    assert.match(
      ok(await h('admin', 'deliveries', 'retry', deliveryId)),
      new RegExp(`^retrying ${deliveryId}: pending`),
    );
    await waitForOutput(listener.output, (t) => t.includes(`${deliveryId}  attempt 3  verified  → 204`));
    assert.equal((await listener.done).code, 0);

    assert.equal(ok(await h('subscriptions', 'delete', otherId)), `deleted ${otherId}\n`);
    const gone = await h('subscriptions', 'get', otherId);
    assert.deepEqual([gone.code, gone.stderr], [1, 'herald subscriptions get: 404 not_found\n']);
  });

  it('say what is missing: no key is exit 1, a bad flag exit 2 with the usage', async () => {
    const noKey = await cli({ HERALD_URL: stack.env.HERALD_URL!, HERALD_DATA_DIR: '/nonexistent' }, [
      'deliveries',
      'list',
    ]);
    assert.equal(noKey.code, 1);
    assert.match(noKey.stderr, /no integrator key: give --key FILE, or set HERALD_KEY_FILE/);
    const bad = await cli(stack.env, ['subscriptions', 'list', '--colour']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /usage: herald subscriptions list/);
  });
});
