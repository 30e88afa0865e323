// Issue 33 item 8: a recovery campaign that no worker answers for (none polls its task queue here): its pause, resume
// and cancel are answered 503 workflow_unavailable with Retry-After, in the error shape, within
// HERALD_WORKFLOW_ANSWER_MS — not a 500 after however long the server lets an update wait. Its progress is read from
// the database without a worker (issue 45 item 3: src/store/campaign-progress-repo.ts), so reading it answers at once.
// The campaign itself is untouched: it runs once a worker does.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildTestApp, closeTestApp } from '../helpers/app.js';
import { listen, registerIntegrator, type TestIntegrator } from '../helpers/integrators.js';
import { signedHeaders } from '../helpers/signed.js';
import { HOOK_URL, SUBSCRIPTION_DNS } from '../helpers/subscriptions.js';
import { campaignWorkflowId } from '../../workflows/recovery-messages.js';

const ANSWER_MS = 1_000;

/** A window's bound `n` days back (a window older than HERALD_RETENTION is refused). */
const daysAgo = (n: number): string => new Date(Math.floor(Date.now() / 86_400_000 - n) * 86_400_000).toISOString();
describe('a recovery campaign no worker answers for', { timeout: 60_000 }, () => {
  let app: FastifyInstance;
  let baseUrl: string;
  let alice: TestIntegrator;
  let bob: TestIntegrator;
  const started: string[] = [];
  /** The app's error log lines: shown with a failed assertion. */
  const errors: string[] = [];

  before(async () => {
    // No worker is started: the campaign's workflow starts (the server takes it) but nothing answers its query.
    ({ app } = await buildTestApp(
      { HERALD_DNS_STATIC: SUBSCRIPTION_DNS, HERALD_WORKFLOW_ANSWER_MS: String(ANSWER_MS), LOG_LEVEL: 'error' },
      undefined,
      { write: (line: string) => void errors.push(line) },
    ));
    baseUrl = await listen(app);
    alice = await registerIntegrator(app, baseUrl, 'unanswered');
    // Opening a campaign asks the integrator's running ones for their state: bob's first is opened apart from alice's.
    bob = await registerIntegrator(app, baseUrl, 'unanswered-bob');
  });
  after(async () => {
    // Nothing will ever run them: end them rather than leave them open on the shared dev server.
    for (const id of started)
      await app.temporal.client.workflow
        .getHandle(campaignWorkflowId(id))
        .terminate('test over')
        .catch(() => undefined);
    await closeTestApp(app);
  });

  const send = async (method: string, path: string, body?: unknown, who = alice) => {
    const text = body === undefined ? '' : JSON.stringify(body);
    const started = performance.now();
    const res = await fetch(`${baseUrl}${path}`, {
      method,
      headers: signedHeaders(who, method, path, text),
      ...(text ? { body: text } : {}),
    });
    return { res, body: (await res.json()) as unknown, ms: performance.now() - started };
  };

  it('answers its progress at once, and 503 workflow_unavailable with Retry-After to a control, within the deadline', async () => {
    const subscription = await alice.client.createSubscription({ url: HOOK_URL, eventTypes: [] });
    const window = { since: daysAgo(3), until: daysAgo(2) };
    const recover = `/v1/webhooks/subscriptions/${subscription.id}/recover`;
    const opened = await send('POST', recover, window);
    assert.equal(opened.res.status, 202, JSON.stringify(opened.body));
    const { id } = opened.body as { id: string };
    started.push(id);

    // Read from the database: the progress the start recorded, with no worker asked.
    for (const [method, path, body] of [
      ['GET', `/v1/webhooks/campaigns/${id}`],
      ['POST', recover, window], // the same window: the existing campaign is read
    ] as const) {
      // The same signed bytes within one second would be a replay (401): the repeated POST is signed a second later.
      if (method === 'POST') await new Promise((r) => setTimeout(r, 1_100));
      const { res, body: answer, ms } = await send(method, path, body);
      const where = `${method} ${path}`;
      assert.equal(res.status, 200, `${where}: ${JSON.stringify(answer)}\n${errors.join('')}`);
      assert.deepEqual(
        { ...(answer as object), links: undefined },
        { ...(opened.body as object), links: undefined },
        where,
      );
      assert.ok(ms < ANSWER_MS * 0.9, `${where}: answered after ${Math.round(ms)} ms, without waiting for a worker`);
    }
    for (const [method, path] of [
      ['POST', `/v1/webhooks/campaigns/${id}/pause`],
      ['POST', `/v1/webhooks/campaigns/${id}/cancel`],
    ] as const) {
      const { res, body: answer, ms } = await send(method, path);
      const where = `${method} ${path}`;
      assert.equal(res.status, 503, `${where}: ${JSON.stringify(answer)}\n${errors.join('')}`);
      assert.deepEqual(
        answer,
        {
          error: 'workflow_unavailable',
          status: 503,
          message: 'no worker answered for this campaign in time; retry',
        },
        where,
      );
      assert.equal(res.headers.get('retry-after'), '5', where);
      assert.ok(ms >= ANSWER_MS * 0.9 && ms < ANSWER_MS + 4_000, `${where}: answered after ${Math.round(ms)} ms`);
    }
  });

  it("the delivery service's campaign state (the re-delivery gate's question) gives up within the deadline too", async () => {
    const subscription = await bob.client.createSubscription({ url: HOOK_URL, eventTypes: [] });
    const window = { since: daysAgo(5), until: daysAgo(4) };
    const opened = await send('POST', `/v1/webhooks/subscriptions/${subscription.id}/recover`, window, bob);
    assert.equal(opened.res.status, 202, JSON.stringify(opened.body));
    const { id } = opened.body as { id: string };
    started.push(id);
    const t0 = performance.now();
    await assert.rejects(app.deliveryService.campaignState(campaignWorkflowId(id)), (err: Error) => {
      assert.equal(err.name, 'WorkflowUnansweredError');
      assert.match(err.message, new RegExp(`within ${ANSWER_MS} ms`));
      return true;
    });
    const ms = performance.now() - t0;
    assert.ok(ms >= ANSWER_MS * 0.9 && ms < ANSWER_MS + 4_000, `gave up after ${Math.round(ms)} ms`);
  });

  it('declares the 503 on each campaign operation of the document', async () => {
    const doc = (await app.inject({ url: '/openapi.json' })).json<{
      paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
    }>();
    const campaignOps = Object.entries(doc.paths)
      .filter(([path]) => path.includes('/campaigns/') || path.endsWith('/recover'))
      .flatMap(([path, item]) => Object.entries(item).map(([method, op]) => ({ where: `${method} ${path}`, op })));
    assert.equal(campaignOps.length, 5, campaignOps.map((o) => o.where).join(', '));
    for (const { where, op } of campaignOps) assert.ok(op.responses['503'], `${where} declares 503`);
  });
});
