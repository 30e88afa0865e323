// The load generator of bench/auth.ts, forked as a second process so the server's core is its own. Driven over IPC:
// `prepare` signs a batch (a fresh timestamp and a unique query per request, so neither the ±60 s window nor the
// replay cache can reject one), `run` sends it, untimed signing excluded, on a fixed number of keep-alive connections;
// `junk` sends credential-shaped requests signed by a fresh random key each, open loop, as an attacker would (their
// headers made by `prepareJunk` beforehand, so this process spends the timed phase sending, not making keys).
import { createPrivateKey, randomBytes, type KeyObject } from 'node:crypto';
import { Pool } from 'undici';
import { requestSigningInput, signRequest } from '../../src/crypto/request-signature.js';

export type LoadCommand =
  | { type: 'init'; baseUrl: string; privateKeyPem: string; pubkey: string; connections: number }
  | { type: 'prepare'; count: number; signedPath: string }
  | {
      type: 'run';
      path: string;
      maxMs: number;
      /** Open loop at this many requests/s; absent: as fast as answered. */ rate?: number;
    }
  | { type: 'prepareJunk'; count: number }
  | { type: 'junk'; path: string; rate: number; ms: number };

/** Tags this protocol's replies: tsx's loader uses the same IPC channel for its own messages. */
export const LOAD_CHANNEL = 'herald-auth-load';

export type LoadReply = { channel: typeof LOAD_CHANNEL } & ({ type: 'ready' } | LoadResult);

export interface LoadResult {
  type: 'result';
  sent: number;
  ms: number;
  /** status → count; anything but 200 means the figure is not a throughput of successful requests. */
  statuses: Record<string, number>;
  clientCpuMs: number;
  /** Milliseconds from when each request was due (its paced start) to its answer: p50 and p99. */
  p50Ms: number;
  p99Ms: number;
}

interface Prepared {
  query: string;
  headers: Record<string, string>;
}

let pool: Pool | undefined;
let key: KeyObject | undefined;
let pubkey = '';
let connections = 1;
let batch: Prepared[] = [];
let seq = 0;

function prepare(count: number, signedPath: string): void {
  const timestamp = String(Math.floor(Date.now() / 1000));
  batch = Array.from({ length: count }, () => {
    const query = `?n=${++seq}`;
    const signature = signRequest(key!, requestSigningInput(timestamp, 'GET', `${signedPath}${query}`));
    return { query, headers: { 'x-pubkey': pubkey, 'x-timestamp': timestamp, 'x-signature': signature } };
  });
}

/**
 * Sends the prepared batch to `path` (+ each request's query) from `connections` concurrent loops: as fast as they
 * are answered, or with `rate` each request i not before started + i / rate (an offered load the server can meet).
 */
async function run(path: string, maxMs: number, rate?: number): Promise<LoadResult> {
  const statuses: Record<string, number> = {};
  const latencies: number[] = [];
  const deadline = Date.now() + maxMs;
  const started = performance.now();
  let next = 0;
  const loop = async (): Promise<void> => {
    for (let i = next++; i < batch.length && Date.now() < deadline; i = next++) {
      const r = batch[i]!;
      // Timed from when the request was due, so a server that falls behind shows in the figure.
      const due = rate === undefined ? performance.now() : started + (i * 1000) / rate;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      const res = await pool!.request({ method: 'GET', path: `${path}${r.query}`, headers: r.headers });
      await res.body.dump();
      latencies.push(performance.now() - due);
      statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1;
    }
  };
  const cpu = process.cpuUsage();
  await Promise.all(Array.from({ length: connections }, loop));
  const ms = performance.now() - started;
  const used = process.cpuUsage(cpu);
  const sent = Object.values(statuses).reduce((a, b) => a + b, 0);
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.ceil(q * latencies.length) - 1)] ?? NaN;
  const clientCpuMs = (used.user + used.system) / 1000;
  return { type: 'result', sent, ms, statuses, clientCpuMs, p50Ms: at(0.5), p99Ms: at(0.99) };
}

let junkBatch: Array<Record<string, string>> = [];

/**
 * Headers of `count` junk requests: well-formed, each with a random key (a new one every time, so no cache can have
 * seen it) and a random signature; the timestamp is set when sent.
 */
function prepareJunk(count: number): void {
  junkBatch = Array.from({ length: count }, () => ({
    'content-type': 'application/json',
    'x-pubkey': `0x02${randomBytes(32).toString('hex')}`,
    'x-signature': `0x30${randomBytes(69).toString('hex')}`,
  }));
}

/** A JSON body of the size a real create sends: the server must answer before reading it. */
const JUNK_BODY = JSON.stringify({
  url: 'https://hooks.example.com/herald/webhooks',
  eventTypes: ['customer.created'],
});

/**
 * `rate` POSTs a second for `ms`, each with the prepared headers of a random key and a current timestamp; sent in
 * 10 ms ticks, never waiting for answers. Fails when fewer were prepared than the phase sends.
 */
async function junk(path: string, rate: number, ms: number): Promise<LoadResult> {
  const needed = Math.ceil((rate * ms) / 1000);
  if (junkBatch.length < needed) throw new Error(`junk: ${junkBatch.length} requests prepared, ${needed} needed`);
  const statuses: Record<string, number> = {};
  const cpu = process.cpuUsage();
  const started = performance.now();
  const inFlight = new Set<Promise<void>>();
  let sent = 0;
  const timestamp = (): string => String(Math.floor(Date.now() / 1000));
  const one = async (i: number): Promise<void> => {
    const headers = { ...junkBatch[i], 'x-timestamp': timestamp() };
    try {
      const res = await pool!.request({ method: 'POST', path, headers, body: JUNK_BODY });
      await res.body.dump();
      statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1;
    } catch {
      statuses.error = (statuses.error ?? 0) + 1;
    }
  };
  while (performance.now() - started < ms) {
    const due = Math.floor(((performance.now() - started) * rate) / 1000);
    for (; sent < due; sent++) {
      const p = one(sent);
      inFlight.add(p);
      void p.finally(() => inFlight.delete(p));
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  await Promise.all(inFlight);
  const used = process.cpuUsage(cpu);
  const elapsed = performance.now() - started;
  const clientCpuMs = (used.user + used.system) / 1000;
  return { type: 'result', sent, ms: elapsed, statuses, clientCpuMs, p50Ms: NaN, p99Ms: NaN };
}

process.on('message', (cmd: LoadCommand) => {
  const reply = (msg: object) => process.send!({ channel: LOAD_CHANNEL, ...msg });
  void (async () => {
    switch (cmd.type) {
      case 'init':
        key = createPrivateKey(cmd.privateKeyPem);
        pubkey = cmd.pubkey;
        connections = cmd.connections;
        pool = new Pool(cmd.baseUrl, { connections: cmd.connections, pipelining: 1 });
        return reply({ type: 'ready' });
      case 'prepare':
        prepare(cmd.count, cmd.signedPath);
        return reply({ type: 'ready' });
      case 'run':
        return reply(await run(cmd.path, cmd.maxMs, cmd.rate));
      case 'prepareJunk':
        prepareJunk(cmd.count);
        return reply({ type: 'ready' });
      case 'junk':
        return reply(await junk(cmd.path, cmd.rate, cmd.ms));
    }
  })().catch((err: unknown) => reply({ type: 'error', message: String(err) }));
});
