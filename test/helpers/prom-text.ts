// A small reader of the Prometheus text format, enough to check scraped figures in tests.
import { freeLoopbackPort } from '../../src/telemetry/metrics-server.js';

export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

const LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+\d+)?$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

export function parseSamples(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = LINE.exec(line);
    if (!m) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, k, v] of (m[2] ?? '').matchAll(LABEL)) labels[k!] = v!;
    samples.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return samples;
}

/** Sum of the samples named `name` whose labels include `labels` (0 when there are none). */
export function sum(samples: readonly Sample[], name: string, labels: Record<string, string> = {}): number {
  return samples
    .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    .reduce((a, s) => a + s.value, 0);
}

/** Metric family names: the `# TYPE` names, and each sample's name (histogram series included). */
export function metricNames(text: string): Set<string> {
  const names = new Set<string>();
  for (const line of text.split('\n')) {
    const type = /^# TYPE (\S+) /.exec(line);
    if (type) names.add(type[1]!);
  }
  for (const s of parseSamples(text)) names.add(s.name);
  return names;
}

export async function scrape(url: string): Promise<{ text: string; samples: Sample[]; contentType: string }> {
  const res = await fetch(url);
  if (res.status !== 200) throw new Error(`${url}: ${res.status}`);
  const text = await res.text();
  return { text, samples: parseSamples(text), contentType: res.headers.get('content-type') ?? '' };
}

/** A loopback port free right now (for a listener that cannot bind port 0 and report it, like Temporal's). */
export const freePort = (): Promise<number> => freeLoopbackPort('127.0.0.1');
