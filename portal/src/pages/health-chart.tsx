import type { JSX } from 'preact';
import { formatTime } from '../lib/format';
import type { SubscriptionStats } from '../types';

type Hour = SubscriptionStats['hours'][number];

const W = 480;
const H = 120;
const GAP = 2;

const percent = (rate: number | null): string => (rate === null ? '—' : `${(rate * 100).toFixed(1)} %`);
const ms = (n: number | undefined): string => (n === undefined ? '—' : `${n} ms`);
const hourLabel = (iso: string): string =>
  new Date(iso).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });

/** One bar per hour, scaled to the tallest: `parts` stacked from the bottom, each with its class. */
function Bars(props: { label: string; hours: Hour[]; parts: (h: Hour) => [number, string][] }): JSX.Element {
  const top = Math.max(1, ...props.hours.map((h) => props.parts(h).reduce((n, [v]) => n + v, 0)));
  const bw = W / props.hours.length;
  return (
    <svg viewBox={`0 0 ${W} ${H}`} class="chart" role="img" aria-label={props.label} preserveAspectRatio="none">
      <line x1="0" y1={H - 0.5} x2={W} y2={H - 0.5} class="chart-axis" />
      {props.hours.map((h, n) => {
        let y = H;
        return props.parts(h).map(([v, cls]) => {
          const height = (v / top) * (H - 4);
          y -= height;
          return v > 0 ? (
            <rect key={`${n}-${cls}`} x={n * bw + GAP / 2} y={y} width={bw - GAP} height={height} class={cls} />
          ) : null;
        });
      })}
    </svg>
  );
}

/** A subscription's last 24 hours: attempts per hour (2xx and not), p95 latency per hour, and the same as a table. */
export function HealthChart({ stats }: { stats: SubscriptionStats }): JSX.Element {
  const { hours, total } = stats;
  const mostAttempts = Math.max(0, ...hours.map((h) => h.attempts));
  const slowest = Math.max(0, ...hours.map((h) => h.latencyMs?.p95 ?? 0));
  const summary =
    total.attempts === 0
      ? 'No attempt in the last 24 hours.'
      : `${total.attempts} attempts, ${percent(total.successRate)} answered 2xx; latency p50 ≤ ${ms(
          total.latencyMs?.p50,
        )}, p95 ≤ ${ms(total.latencyMs?.p95)}, max ${ms(total.latencyMs?.max)}.`;
  return (
    <div class="health-chart">
      <p data-testid="stats-summary">Last 24 hours: {summary}</p>
      <figure>
        <Bars
          label={`Attempts per hour, last 24 hours: ${summary}`}
          hours={hours}
          parts={(h) => [
            [h.succeeded, 'bar-ok'],
            [h.failed, 'bar-bad'],
          ]}
        />
        <figcaption>
          Attempts per hour, oldest left (tallest: {mostAttempts}): <span class="legend-ok">answered 2xx</span>,{' '}
          <span class="legend-bad">failed</span>.
        </figcaption>
      </figure>
      <figure>
        <Bars
          label="Latency p95 per hour, last 24 hours"
          hours={hours}
          parts={(h) => [[h.latencyMs?.p95 ?? 0, 'bar-latency']]}
        />
        <figcaption>Latency per hour (p95, an upper bound), oldest left (tallest: {ms(slowest)}).</figcaption>
      </figure>
      <details>
        <summary>The 24 hours as a table</summary>
        <table class="table compact">
          <caption class="visually-hidden">Attempts and latency per hour</caption>
          <thead>
            <tr>
              {['Hour', 'Attempts', '2xx', 'Failed', 'Success', 'p50', 'p95', 'Max'].map((c) => (
                <th key={c} scope="col">
                  {c}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {hours.map((h) => (
              <tr key={h.hour}>
                <th scope="row" title={formatTime(h.hour)}>
                  {hourLabel(h.hour)}
                </th>
                <td class="num">{h.attempts}</td>
                <td class="num">{h.succeeded}</td>
                <td class="num">{h.failed}</td>
                <td class="num">{percent(h.successRate)}</td>
                <td class="num">{ms(h.latencyMs?.p50)}</td>
                <td class="num">{ms(h.latencyMs?.p95)}</td>
                <td class="num">{ms(h.latencyMs?.max)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </div>
  );
}
