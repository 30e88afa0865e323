// `npm run bench -- portal [--events 100000] [--runs 7]` (issue 46 item 5; not in CI, most of it seeding). Measured in
// Debian's Chromium: each portal page's first render (navigation to the page's data drawn) and a filter change (the
// click to the new rows drawn), for an integrator with --events events and as many deliveries on the embedded default
// layout, against the same pages of an integrator with an empty history (the baseline, same run). Goals: first
// render ≤ 1 s, filter change ≤ 300 ms (p90 of --runs). Ends with one JSON line.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { chromium, type Page } from 'playwright-core';
import { HOUR_MS } from '../src/store/attempt-stats-repo.js';
import { deliveryIdOf } from '../src/store/derived-ids.js';
import type { DeliveryDoc, EventDoc } from '../src/store/documents.js';
import { buildPortal, CHROMIUM } from '../scripts/lib/portal.js';
import { seedDoc } from '../test/helpers/events.js';
import { delivery } from '../test/helpers/retention-seed.js';
import { startBenchStack, type BenchIntegrator } from './lib/stack.js';
import { numberFlags, quantile, round } from './lib/stats.js';

const flags = numberFlags({ events: 100_000, runs: 7, batch: 5_000 });
const FLAGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking'];
const STATUSES = ['succeeded', 'succeeded', 'succeeded', 'failed', 'pending', 'cancelled'] as const;

buildPortal();
const stack = await startBenchStack(mkdtempSync(join(tmpdir(), 'herald-bench-portal-')));
const layout = await stack.app.store.events.layout();

interface Seeded {
  who: BenchIntegrator;
  subscription: string;
  /** The middle event of its history and its delivery. */
  sample: { eventId: string; deliveryId: string };
}

/** An integrator with `n` events of the last days, each delivered to its one subscription (mixed outcomes). */
async function seeded(name: string, n: number): Promise<Seeded> {
  const who = await stack.integrator(name);
  const subscription = await who.subscribe('https://hooks.example.com/portal-bench');
  const t0 = performance.now();
  const base = Date.now() - n * 1_000;
  const middle = Math.floor(n / 2);
  let sample = { eventId: '', deliveryId: '' };
  for (let from = 0; from < n; from += flags.batch) {
    const count = Math.min(flags.batch, n - from);
    const events: EventDoc[] = Array.from({ length: count }, (_, j) =>
      seedDoc({ integratorId: who.integratorId, createdAt: new Date(base + (from + j) * 1_000) }, from + j),
    );
    const deliveries = events.map((e, j): DeliveryDoc => {
      const status = STATUSES[(from + j) % STATUSES.length]!;
      return delivery(e, subscription, { status, ...(status === 'pending' ? { nextAttemptAt: new Date() } : {}) });
    });
    const at = middle - from;
    if (at >= 0 && at < count) sample = { eventId: events[at]!._id, deliveryId: deliveries[at]!._id };
    await stack.app.store.events.insertMany(events);
    await stack.app.store.deliveries.insertMany(deliveries);
    if ((from / flags.batch) % 8 === 7)
      process.stderr.write(`seeded ${from + count} (${round((performance.now() - t0) / 1000)} s)\n`);
  }
  if (n > 0) await seedStats(who.integratorId, subscription);
  if (n > 0)
    console.log(`layout ${layout}: seeded ${n} events and deliveries in ${round((performance.now() - t0) / 1000)} s`);
  if (n === 0) {
    const eventId = await who.publish(); // one event, delivered or not: the single pages need one
    const deliveryId = deliveryIdOf(eventId, subscription);
    while (!(await stack.app.store.deliveries.findById(deliveryId))) await new Promise((r) => setTimeout(r, 100));
    sample = { eventId, deliveryId };
  }
  return { who, subscription, sample };
}

/** A day of hourly attempt stats for the subscription, as the workers write them. */
async function seedStats(integratorId: string, subscriptionId: string): Promise<void> {
  const now = Date.now();
  const hour = now - (now % HOUR_MS);
  await stack.app.store.attemptStats.add(
    Array.from({ length: 24 }, (_, n) => ({
      integratorId,
      subscriptionId,
      hour: hour - n * HOUR_MS,
      attempts: 4_000,
      succeeded: 3_900 - n,
      latencySumMs: 4_000 * 40,
      latencyMaxMs: 900,
      l: { '1': 3_000, '2': 900, '5': 100 },
    })),
  );
}

const browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS });
/** Resolves after the next frame is drawn. */
const drawn = (page: Page) => page.evaluate('new Promise((r) => requestAnimationFrame(() => setTimeout(r)))');
const apiCall = (page: Page, path: string) =>
  page.waitForResponse((r) => new URL(r.url()).pathname.startsWith(path) && r.request().method() === 'GET');

/** Per page: first-render times (ms) of `runs` visits; then the two filter changes. */
async function measure({ who, subscription, sample }: Seeded) {
  const { url } = await stack.admin.portalLink(who.integratorId);
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  await page.goto(url);
  await page.getByRole('heading', { level: 1, name: 'Subscriptions' }).waitFor();
  // Each page with the API calls whose answers it draws (Health: its subscription's stats and what is waiting).
  const pages: Array<[string, string, string[]]> = [
    ['delivery', `/portal/deliveries/${sample.deliveryId}`, [`/v1/webhooks/deliveries/${sample.deliveryId}`]],
    ['subscriptions', '/portal/subscriptions', ['/v1/webhooks/subscriptions']],
    ['deliveries', '/portal/deliveries', ['/v1/webhooks/deliveries']],
    ['events', '/portal/events', ['/v1/query/events']],
    ['health', '/portal/health', [`/v1/webhooks/subscriptions/${subscription}/stats`, '/v1/webhooks/deliveries']],
    ['recovery', '/portal/recovery', ['/v1/webhooks/subscriptions']],
  ];
  const render: Record<string, number[]> = {};
  for (const [name, path, apis] of pages)
    for (let i = 0; i < flags.runs; i++) {
      const t = performance.now();
      await Promise.all([...apis.map((api) => apiCall(page, api)), page.goto(`${stack.baseUrl}${path}`)]);
      await drawn(page);
      (render[name] ??= []).push(performance.now() - t);
    }
  // An event's page: until its payload is drawn.
  for (let i = 0; i < flags.runs; i++) {
    const t = performance.now();
    await page.goto(`${stack.baseUrl}/portal/events/${sample.eventId}`);
    await page.getByTestId('payload-pretty').waitFor();
    await drawn(page);
    (render.event ??= []).push(performance.now() - t);
  }
  const filter: Record<string, number[]> = {};
  /** `runs` filter changes: `choose` sets the form for run i, then the click until the new rows are drawn. */
  const timeFilter = async (name: string, api: string, choose: (i: number) => Promise<void>) => {
    for (let i = 0; i < flags.runs; i++) {
      await choose(i);
      const t = performance.now();
      await Promise.all([apiCall(page, api), page.getByRole('button', { name: 'Apply filters' }).click()]);
      await drawn(page);
      (filter[name] ??= []).push(performance.now() - t);
    }
  };
  const alternate = (a: string, b: string) => (i: number) => (i % 2 === 0 ? a : b);
  await page.goto(`${stack.baseUrl}/portal/deliveries`);
  await page.getByRole('button', { name: 'Apply filters' }).waitFor();
  const status = alternate('failed', 'pending');
  await timeFilter('deliveries by status', '/v1/webhooks/deliveries', async (i) => {
    await page.getByLabel('Status').selectOption(status(i));
  });
  await page.getByLabel('Status').selectOption('');
  const types = alternate('transaction.completed', 'customer.created');
  await timeFilter('deliveries by event type', '/v1/webhooks/deliveries', async (i) => {
    await page.getByLabel('Event type', { exact: true }).selectOption(types(i));
  });
  await page.goto(`${stack.baseUrl}/portal/events`);
  await page.getByRole('button', { name: 'Apply filters' }).waitFor();
  await timeFilter('events by type', '/v1/query/events', async (i) => {
    await page.getByLabel('Event type').selectOption(types(i + 1));
  });
  await context.close();
  return { render, filter };
}

const empty = await seeded('portal-empty', 0);
const full = await seeded('portal-full', flags.events);
const baseline = await measure(empty);
const grown = await measure(full);

const p90 = (xs: number[]) => round(quantile(xs, 0.9), 0);
const figures: Record<string, { empty: number; full: number; ratio: number; goal: number; met: boolean }> = {};
for (const [kind, goal] of [
  ['render', 1_000],
  ['filter', 300],
] as const)
  for (const name of Object.keys(grown[kind])) {
    const e = p90(baseline[kind][name]!);
    const f = p90(grown[kind][name]!);
    figures[`${kind}: ${name}`] = { empty: e, full: f, ratio: round(f / e, 2), goal, met: f <= goal };
    console.log(
      `${kind} ${name}: p90 ${f} ms with ${flags.events} events (empty history ${e} ms, ${round(f / e, 2)} ×); goal ≤ ${goal} ms: ${f <= goal ? 'met' : 'missed'}`,
    );
  }
await browser.close();
await stack.stop();
console.log(JSON.stringify({ bench: 'portal', layout, events: flags.events, runs: flags.runs, figures }));
process.exit(0);
