// `npm run bench -- delivery --metricsRounds R`: what Herald's metrics cost a delivery (bench/delivery.ts runs it).
import { performance } from 'node:perf_hooks';
import { round } from './stats.js';
import { switchableMetrics } from './switchable-metrics.js';

export interface MetricsCostDeps {
  rounds: number;
  /** Deliveries per round. */
  deliveries: number;
  apiMetrics: ReturnType<typeof switchableMetrics>;
  workerMetrics: ReturnType<typeof switchableMetrics>;
  metricsUrl: () => string;
  /** Runs one round of `deliveries`; resolves with deliveries/s. */
  throughput: () => Promise<number>;
}

/**
 * Deliveries/s and this process's CPU per delivery (API, worker, receiver and load are all in it) with metrics off
 * and on, alternating rounds; while on, both endpoints are scraped every 5 s. Then the metric calls of one delivery
 * timed alone, as a share of the CPU a delivery costs this process: a bound that a loaded machine does not blur.
 */
export async function metricsCost(deps: MetricsCostDeps): Promise<void> {
  const { rounds, deliveries, apiMetrics, workerMetrics, throughput } = deps;
  const perSec = { off: [] as number[], on: [] as number[] };
  const cpuUs = { off: [] as number[], on: [] as number[] };
  const scrapeAll = () => {
    void fetch(deps.metricsUrl()).then((r) => r.text(), String);
    void workerMetrics.metrics.registry?.metrics();
  };
  for (let r = 0; r < rounds; r++) {
    for (const mode of r % 2 === 0 ? (['off', 'on'] as const) : (['on', 'off'] as const)) {
      apiMetrics.set(mode === 'on');
      workerMetrics.set(mode === 'on');
      const scraper = mode === 'on' ? setInterval(scrapeAll, 5_000) : undefined;
      const cpu = process.cpuUsage();
      perSec[mode].push(await throughput());
      const used = process.cpuUsage(cpu);
      cpuUs[mode].push((used.user + used.system) / deliveries);
      clearInterval(scraper);
      console.log(
        `round ${r + 1} metrics ${mode}: ${round(perSec[mode].at(-1)!)} deliveries/s, ` +
          `${round(cpuUs[mode].at(-1)! / 1000, 2)} ms CPU per delivery in this process`,
      );
    }
  }
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const ratio = mean(perSec.on) / mean(perSec.off);
  // One delivery's metric calls (API: ingest, hand-off, request; worker: lag, attempt, ending), timed in a loop.
  const m = switchableMetrics().metrics;
  const loops = 20_000;
  const t0 = performance.now();
  for (let i = 0; i < loops; i++) {
    m.eventIngested();
    m.deliveriesCreated(1);
    m.httpRequest('POST', '/internal/v1/events', 201, 0.006);
    m.deliveryLag('first', 0.05);
    m.attemptMade('succeeded', 204, 0.003);
    m.deliveryFinished('succeeded', null);
  }
  const callsUs = ((performance.now() - t0) * 1000) / loops;
  const callShare = callsUs / mean(cpuUs.off);
  console.log(`metrics on / off throughput: ${round(ratio, 3)} (goal ≥ 0.97: metrics cost ≤ 3 %)`);
  console.log(
    `CPU per delivery on / off: ${round(mean(cpuUs.on) / mean(cpuUs.off), 3)}; ` +
      `one delivery's metric calls: ${round(callsUs, 2)} µs = ${round(callShare * 100, 3)} % of its CPU here`,
  );
  console.log(
    JSON.stringify({
      metricsOffPerSec: perSec.off.map((x) => round(x)),
      metricsOnPerSec: perSec.on.map((x) => round(x)),
      onOffRatio: round(ratio, 3),
      cpuMsPerDeliveryOff: round(mean(cpuUs.off) / 1000, 2),
      cpuMsPerDeliveryOn: round(mean(cpuUs.on) / 1000, 2),
      metricCallsUsPerDelivery: round(callsUs, 2),
    }),
  );
}
