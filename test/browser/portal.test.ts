// Issue 46 item 4: the integrator portal in a real browser (Debian's Chromium through playwright-core) against the
// real stack (API, worker, Temporal dev server, HTTPS receiver). The link works once; each page and its actions, with
// the receiver seeing the test send and the retry; another integrator's ids answer 404; the read-only scope shows no
// write control and the API refuses one sent anyway; the keyboard reaches the pages; axe-core finds no serious or
// critical violation on any page. HERALD_WRITE_SCREENSHOTS=1 writes docs/portal/*.png.
import assert from 'node:assert/strict';
import { mkdir, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { chromium, type Browser, type Page } from 'playwright-core';
import { eventually } from '../helpers/deliveries.js';
import { startDeliveryStack, type DeliveryStack } from '../helpers/delivery-stack.js';
import { registerIntegrator } from '../helpers/integrators.js';

const CHROMIUM = '/usr/bin/chromium';
// Chromium's own network chatter is refused on this machine's closed network: turned off.
const FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const screenshots = process.env.HERALD_WRITE_SCREENSHOTS === '1';
/** A datetime-local input's value for `at`, in the browser's (and this process's) time zone. */
const localInput = (at: Date): string =>
  new Date(at.getTime() - at.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
const shotDir = join(import.meta.dirname, '../../docs/portal');

describe('the integrator portal in Chromium', { timeout: 240_000 }, () => {
  let s: DeliveryStack;
  let browser: Browser;
  let axeSource: string;
  before(async () => {
    s = await startDeliveryStack();
    browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS });
    axeSource = await readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
    if (screenshots) await mkdir(shotDir, { recursive: true });
  });
  after(async () => {
    await browser?.close();
    await s?.stop();
  });

  /** A new browser (its own cookies) on a fresh link of Alice's. */
  const openPortal = async (scope: 'read' | 'manage' = 'manage'): Promise<Page> => {
    const { url } = await s.alice.client.portalLink({ scope });
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    page.on('pageerror', (err) => assert.fail(`page error: ${err.message}`));
    await page.goto(url);
    await page.getByRole('heading', { level: 1, name: 'Subscriptions' }).waitFor();
    return page;
  };
  /** axe-core on the page as it is: no serious or critical violation. */
  const accessible = async (page: Page, what: string) => {
    await page.evaluate(axeSource); // through the debugger protocol: the page's CSP does not apply
    const violations = await page.evaluate(async () => {
      const axe = (
        globalThis as unknown as { axe: { run: () => Promise<{ violations: Array<{ id: string; impact: string }> }> } }
      ).axe;
      return (await axe.run()).violations.map((v) => `${v.impact}: ${v.id}`);
    });
    const grave = violations.filter((v) => v.startsWith('serious') || v.startsWith('critical'));
    assert.deepEqual(grave, [], `${what}: ${violations.join(', ')}`);
    if (screenshots) await page.screenshot({ path: join(shotDir, `${what}.png`), fullPage: true });
  };
  const go = async (page: Page, link: string, heading: string | RegExp) => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: link }).click();
    await page.getByRole('heading', { level: 1, name: heading }).waitFor();
  };
  const callbackUrl = (path: string) => `https://hooks.example.com:${s.receiver.port}${path}`;

  it('opens once from a link; the link never works twice', async () => {
    const { url } = await s.alice.client.portalLink();
    const first = await (await browser.newContext()).newPage();
    await first.goto(url);
    await first.getByRole('heading', { level: 1, name: 'Subscriptions' }).waitFor();
    assert.ok(!first.url().includes('token='), 'the token leaves the address bar');
    const second = await (await browser.newContext()).newPage();
    await second.goto(url);
    await second.getByRole('heading', { level: 1, name: /ask for a new link/i }).waitFor();
    await accessible(second, 'ended');
    await first.context().close();
    await second.context().close();
  });

  it('subscriptions: create (URL errors at the field), send a test the receiver sees, pause and resume', async () => {
    const page = await openPortal();
    await page.getByLabel('Callback URL').fill('http://hooks.example.com/plain');
    await page.getByRole('button', { name: 'Create subscription' }).click();
    await page.getByTestId('url-error').waitFor();
    await page.getByLabel('Callback URL').fill(callbackUrl('/portal-sub'));
    await page.getByRole('button', { name: 'Create subscription' }).click();
    const card = page.locator('article[data-testid^="subscription-"]', { hasText: '/portal-sub' });
    await card.waitFor();
    await card.getByRole('button', { name: 'Send test' }).click();
    await eventually(() => (s.requestsTo('/portal-sub').length >= 1 ? true : undefined));
    await card.getByRole('button', { name: 'Pause' }).click();
    await card.getByRole('button', { name: 'Resume' }).waitFor();
    await card.getByRole('button', { name: 'Resume' }).click();
    await card.getByRole('button', { name: 'Pause' }).waitFor();
    await accessible(page, 'subscriptions');
    await page.context().close();
  });

  it('deliveries and events: a failed delivery retried from its page reaches the receiver again', async () => {
    s.answers.set('/portal-retry', 500);
    const subscription = await s.subscribe('/portal-retry');
    const eventId = await s.publish();
    const [delivery] = await eventually(async () => {
      const found = (await s.deliveriesOf(eventId, subscription.id)).filter((d) => d.attemptCount === 1);
      return found.length > 0 ? found : undefined;
    });
    const page = await openPortal();
    await go(page, 'Deliveries', 'Deliveries');
    await accessible(page, 'deliveries');
    // Filters by event type and time reach the API: another type, or a window after it, lists nothing.
    const filter = async (type: string, after = '') => {
      await page.getByLabel('Subscription').selectOption(subscription.id);
      await page.getByLabel('Event type', { exact: true }).selectOption(type);
      await page.getByLabel('Created after (local time)').fill(after);
      await page.getByRole('button', { name: 'Apply filters' }).click();
    };
    const listed = page.getByRole('link', { name: delivery!.id });
    await filter('customer.rejected');
    await page.getByText('No deliveries match.').waitFor();
    await filter('customer.created');
    await listed.waitFor();
    await filter('customer.created', localInput(new Date(Date.now() + 3_600_000)));
    await page.getByText('No deliveries match.').waitFor();
    await filter('customer.created');
    await page.getByRole('link', { name: delivery!.id }).click();
    await page.getByRole('heading', { level: 1, name: `Delivery ${delivery!.id}` }).waitFor();
    s.answers.set('/portal-retry', 204);
    await page.getByRole('button', { name: 'Retry' }).click();
    await eventually(() => (s.requestsTo('/portal-retry').length >= 2 ? true : undefined));
    await accessible(page, 'delivery');

    await go(page, 'Events', 'Events');
    await accessible(page, 'events');
    await page.getByRole('link', { name: eventId }).first().click();
    await page.getByRole('heading', { level: 1, name: `Event ${eventId}` }).waitFor();
    await page.getByTestId('payload-pretty').waitFor();
    await page.getByLabel('Exact bytes').check();
    const raw = await page.getByTestId('payload-raw').textContent();
    assert.equal(raw, '{"note":"ünïcode ✓","amount":"10.00","nested":{"list":[1,2]}}', 'the data as stored');
    await accessible(page, 'event');
    await go(page, 'Recovery', 'Recovery');
    await accessible(page, 'recovery');
    // Health: the failed attempt and the retry in the last 24 hours, and nothing waiting.
    await eventually(async () =>
      (await s.alice.client.subscriptionStats(subscription.id)).total.attempts === 2 ? true : undefined,
    );
    await go(page, 'Health', 'Health');
    const health = page.getByTestId(`health-${subscription.id}`);
    assert.match((await health.getByTestId('stats-summary').textContent()) ?? '', /2 attempts, 50\.0 % answered 2xx/);
    await health.getByRole('img', { name: /Attempts per hour/ }).waitFor();
    assert.equal(await health.getByTestId('waiting-now').textContent(), 'Nothing is waiting now.');
    await accessible(page, 'health');
    await page.context().close();
  });

  it('recovery: pauses, resumes and cancels a running campaign', async () => {
    s.answers.set('/portal-campaign', 503);
    const sub = await s.subscribe('/portal-campaign', ['customer.under_review']);
    for (let n = 0; n < 3; n++) {
      const eventId = await s.publish('customer.under_review');
      const [d] = await eventually(async () => {
        const found = (await s.deliveriesOf(eventId, sub.id)).filter((x) => x.attemptCount === 1);
        return found.length > 0 ? found : undefined;
      });
      await s.alice.client.cancelDelivery(d!.id);
    }
    const page = await openPortal();
    await go(page, 'Recovery', 'Recovery');
    await page.getByLabel('Subscription').selectOption(sub.id);
    await page.getByLabel('Since (local time)').fill(localInput(new Date(Date.now() - 3_600_000)));
    await page.getByLabel('were cancelled').check();
    await page.getByLabel('Re-deliveries per second').fill('0.1');
    await page.getByRole('button', { name: 'Start recovery' }).click();
    const card = page.locator('[data-testid^="campaign-"]').first();
    const campaignId = ((await card.getAttribute('data-testid')) ?? '').replace('campaign-', '');
    const state = async () => (await s.alice.client.getCampaign(campaignId)).state;
    await card.getByRole('button', { name: 'Pause' }).click();
    await card.getByRole('button', { name: 'Resume' }).waitFor();
    assert.equal(await state(), 'paused');
    await card.getByRole('button', { name: 'Resume' }).click();
    await card.getByRole('button', { name: 'Pause' }).waitFor();
    assert.equal(await state(), 'running');
    await card.getByRole('button', { name: 'Cancel campaign' }).click();
    await card.getByText('cancelled', { exact: true }).waitFor();
    assert.equal(await state(), 'cancelled');
    assert.ok(s.requestsTo('/portal-campaign').length < 6, 'not every cancelled delivery was re-sent');
    await page.context().close();
  });

  it('edits, rotates and deletes a subscription; cancels a delivery; recovers it with a campaign', async () => {
    const edited = await s.subscribe('/portal-edit');
    s.answers.set('/portal-cancel', 503);
    const cancelling = await s.subscribe('/portal-cancel', ['transaction.completed']);
    const page = await openPortal();
    const card = page.locator(`[data-testid="subscription-${edited.id}"]`);
    await card.getByRole('button', { name: 'Edit' }).click();
    await card.getByLabel('Description (optional)').fill('edited in the portal');
    await card.getByLabel('Delivery order').selectOption({ label: 'In order (FIFO), one at a time' });
    await card.getByRole('button', { name: 'Save' }).click();
    await card.getByTestId('ordering').getByText('In order (FIFO)').waitFor();
    const saved = await s.alice.client.getSubscription(edited.id);
    assert.deepEqual([saved.description, saved.ordering], ['edited in the portal', 'fifo']);
    await card.getByRole('button', { name: 'Edit' }).click();
    assert.equal(await card.getByLabel('Delivery order').inputValue(), 'fifo', 'the form opens with it');
    await card.getByRole('button', { name: 'Cancel edit' }).click();
    const before = await card.getByTestId('public-key').textContent();
    await card.getByRole('button', { name: 'Rotate key' }).click();
    await eventually(async () => ((await card.getByTestId('public-key').textContent()) !== before ? true : undefined));
    const shown = await card.getByTestId('public-key').textContent();
    assert.equal(shown, (await s.alice.client.getSubscription(edited.id)).publicKey, 'the new key, as the API has it');
    await card.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('button', { name: 'Yes, delete' }).click();
    await card.waitFor({ state: 'detached' });
    await assert.rejects(s.alice.client.getSubscription(edited.id), { status: 404 });

    const eventId = await s.publish('transaction.completed');
    const [pending] = await eventually(async () => {
      const found = (await s.deliveriesOf(eventId, cancelling.id)).filter((d) => d.attemptCount === 1);
      return found.length > 0 ? found : undefined;
    });
    await page.goto(`${s.baseUrl}/portal/deliveries/${pending!.id}`);
    await page.getByRole('button', { name: 'Cancel delivery' }).click();
    await eventually(async () =>
      (await s.alice.client.getDelivery(pending!.id)).status === 'cancelled' ? true : undefined,
    );

    s.answers.set('/portal-cancel', 204);
    await go(page, 'Recovery', 'Recovery');
    await page.getByLabel('Subscription').selectOption(cancelling.id);
    await page.getByLabel('Since (local time)').fill(localInput(new Date(Date.now() - 3_600_000)));
    await page.getByLabel('were cancelled').check();
    await page.getByRole('button', { name: 'Start recovery' }).click();
    await page.locator('[data-testid^="campaign-"] progress').waitFor();
    await eventually(() => (s.requestsTo('/portal-cancel').length >= 2 ? true : undefined), 30_000, 're-delivered');
    await page.context().close();
  });

  it("answers 404 for another integrator's ids, in the page and from the API", async () => {
    const bob = await registerIntegrator(s.app, s.baseUrl, 'bob');
    const theirs = await bob.client.createSubscription({ url: callbackUrl('/bob') });
    const page = await openPortal();
    const status = await page.evaluate(
      async (id) => (await fetch(`/v1/webhooks/subscriptions/${id}`, { credentials: 'same-origin' })).status,
      theirs.id,
    );
    assert.equal(status, 404);
    await page.goto(`${s.baseUrl}/portal/deliveries/00000000-0000-4000-8000-000000000000`);
    await page
      .getByText(/not found/i)
      .first()
      .waitFor();
    await page.context().close();
  });

  it('read-only: no write control, and the API refuses a write sent anyway', async () => {
    const page = await openPortal('read');
    assert.equal(await page.getByTestId('scope').textContent(), 'read-only');
    for (const name of ['Create subscription', 'Pause', 'Delete', 'Rotate key', 'Send test'])
      assert.equal(await page.getByRole('button', { name, exact: true }).count(), 0, name);
    const refused = await page.evaluate(async () => {
      const session = (await (await fetch('/portal/session')).json()) as { csrfToken: string };
      const res = await fetch('/v1/webhooks/subscriptions', {
        method: 'POST',
        credentials: 'same-origin',
        headers: { 'content-type': 'application/json', 'x-csrf-token': session.csrfToken },
        body: JSON.stringify({ url: 'https://hooks.example.com/x' }),
      });
      return { status: res.status, body: (await res.json()) as { error: string } };
    });
    assert.equal(refused.status, 403);
    assert.equal(refused.body.error, 'forbidden');
    await page.context().close();
  });

  it('works from the keyboard, and a revoked session goes to "ask for a new link"', async () => {
    const page = await openPortal();
    const nav = page.getByRole('navigation', { name: 'Main' });
    await nav.getByRole('link', { name: 'Deliveries' }).focus();
    await page.keyboard.press('Tab'); // the next link: Events
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: 'Events' }).waitFor();
    await s.admin.revokePortalSessions(s.alice.integratorId);
    await page.reload();
    await page.getByRole('heading', { level: 1, name: /ask for a new link/i }).waitFor();
    await page.context().close();
  });
});
