// `herald temporal setup|check` against a real server (the test bed's dev server, or the cluster of
// `npm run test:cluster`): each test makes a fresh namespace through the API, so it starts without Herald's search
// attributes whatever the server was started with.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time.js';
import proto from '@temporalio/proto';
import { cli } from '../helpers/cli.js';
import { eventually } from '../helpers/deliveries.js';
import { requireEnv } from '../helpers/env.js';
import { assertSearchAttributes } from '../../src/temporal/namespace.js';
import { searchAttributes } from '../../workflows/search-attributes.js';

const names = Object.values(searchAttributes).map((k) => k.name);
const DAY = 86_400;

interface Report {
  namespace: string;
  retentionSeconds: number;
  retentionRaised?: boolean;
  ready?: boolean;
  namespaceCreated?: boolean;
  searchAttributes: Record<string, string[]>;
}
const parse = (stdout: string): Report => JSON.parse(stdout) as Report;

describe('herald temporal setup', { timeout: 120_000 }, () => {
  const address = requireEnv('TEMPORAL_ADDRESS');
  let connection: Connection;
  before(async () => {
    connection = await Connection.connect({ address });
  });
  after(async () => connection?.close());

  const env = (namespace: string) => ({ TEMPORAL_ADDRESS: address, TEMPORAL_NAMESPACE: namespace });
  const freshName = () => `herald-setup-${randomBytes(4).toString('hex')}`;
  const register = async (retentionSeconds = DAY): Promise<string> => {
    const namespace = freshName();
    await connection.workflowService.registerNamespace({
      namespace,
      workflowExecutionRetentionPeriod: msToTs(retentionSeconds * 1000),
    });
    return namespace;
  };

  it('check reports what a fresh namespace lacks; setup registers it; a second setup changes nothing', async (t) => {
    const namespace = await register();
    const missing = await cli(env(namespace), ['temporal', 'check']);
    assert.equal(missing.code, 1, missing.stderr);
    const lacking = parse(missing.stdout);
    assert.equal(lacking.ready, false);
    assert.equal(lacking.searchAttributes.missing?.length, names.length, missing.stdout);
    assert.match(missing.stderr, /lacks Herald's search attributes HeraldDeliveryStatus \(Keyword\)/);
    assert.match(missing.stderr, /run `herald temporal setup`/);
    // One day is below the recommended week: a note, not a failure.
    assert.match(missing.stderr, /keeps closed workflows 1 day.*--retention 7d/);
    await assert.rejects(assertSearchAttributes(connection, namespace), /run `herald temporal setup`/);

    const first = await cli(env(namespace), ['temporal', 'setup']);
    assert.equal(first.code, 0, first.stderr);
    assert.deepEqual(parse(first.stdout).searchAttributes, { created: names, alreadyRegistered: [] });
    assert.equal(parse(first.stdout).namespaceCreated, false);
    // The one-day retention is raised to the week (the dev server's too: cli-temporal.test.ts).
    assert.deepEqual([parse(first.stdout).retentionRaised, parse(first.stdout).retentionSeconds], [true, 7 * DAY]);

    const second = await cli(env(namespace), ['temporal', 'setup']);
    assert.equal(second.code, 0, second.stderr);
    assert.equal(parse(second.stdout).retentionRaised, false);
    assert.deepEqual(parse(second.stdout).searchAttributes, { created: [], alreadyRegistered: names });

    const ready = await cli(env(namespace), ['temporal', 'check']);
    assert.equal(ready.code, 0, ready.stderr);
    assert.equal(parse(ready.stdout).ready, true);
    assert.deepEqual(parse(ready.stdout).searchAttributes, { present: names, missing: [], conflicting: [] });
    await assertSearchAttributes(connection, namespace);

    // The server accepts a workflow carrying all five (once its namespace cache has the new ones, ≈ 2 s).
    const client = new Client({ connection, namespace });
    const started = Date.now();
    const handle = await eventually(
      () =>
        client.workflow
          .start('noSuchWorkflow', {
            taskQueue: 'herald-setup-test',
            workflowId: `setup-${randomBytes(4).toString('hex')}`,
            typedSearchAttributes: [
              { key: searchAttributes.deliveryStatus, value: 'pending' },
              { key: searchAttributes.subscriptionId, value: 's' },
              { key: searchAttributes.eventType, value: 'e' },
              { key: searchAttributes.integratorId, value: 'i' },
              { key: searchAttributes.attemptCount, value: 0 },
            ],
          })
          .catch(() => undefined),
      20_000,
    );
    t.diagnostic(`a start with the new attributes was accepted ${Date.now() - started} ms after setup`);
    await handle.terminate('test done');
  });

  it('--create-namespace registers a missing namespace with 7 days retention; without it both name the fix', async () => {
    const namespace = freshName();
    for (const command of ['check', 'setup']) {
      const run = await cli(env(namespace), ['temporal', command]);
      assert.equal(run.code, 1);
      assert.match(
        run.stderr,
        new RegExp(`namespace ${namespace} does not exist: create it with .*--create-namespace`),
      );
      assert.equal(run.stdout, '');
    }
    const run = await cli(env(namespace), ['temporal', 'setup', '--create-namespace']);
    assert.equal(run.code, 0, run.stderr);
    const report = parse(run.stdout);
    assert.equal(report.namespaceCreated, true);
    assert.equal(report.retentionSeconds, 7 * DAY);
    assert.deepEqual(report.searchAttributes.created, names);
    assert.doesNotMatch(run.stderr, /note/);
    const again = await cli(env(namespace), ['temporal', 'setup', '--create-namespace']);
    assert.equal(again.code, 0, again.stderr);
    assert.equal(parse(again.stdout).namespaceCreated, false);
  });

  it('refuses a namespace that has one of them with another type, naming it', async () => {
    const namespace = await register(7 * DAY);
    await connection.operatorService.addSearchAttributes({
      namespace,
      searchAttributes: { HeraldAttemptCount: proto.temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD },
    });
    const setup = await cli(env(namespace), ['temporal', 'setup']);
    assert.equal(setup.code, 1);
    assert.match(setup.stderr, /HeraldAttemptCount is Keyword, Herald needs Int/);
    const check = await cli(env(namespace), ['temporal', 'check']);
    assert.equal(check.code, 1);
    assert.deepEqual(parse(check.stdout).searchAttributes.conflicting, [
      'HeraldAttemptCount is Keyword, Herald needs Int',
    ]);
    // Setup stopped before adding anything: the other four are still missing.
    assert.equal(parse(check.stdout).searchAttributes.missing?.length, names.length - 1);
  });
});
