// The load generator of bench/auth.ts, forked as a second process so the server's core is its own. Driven over IPC:
// `prepare` signs a batch (a fresh timestamp and a unique query per request, so neither the ±60 s window nor the
// replay cache can reject one), `run` sends it, untimed signing excluded, on a fixed number of keep-alive connections;
// `junk` sends credential-shaped requests signed by a fresh random key each, open loop, as an attacker would: made
// whole by `prepareJunk` beforehand and written on plain sockets (bench/lib/raw-junk.ts), so this process spends as
// little of the two cores as it can on sending them.
import { createPrivateKey, randomBytes, type KeyObject } from 'node:crypto';
import { Pool } from 'undici';
import { requestSigningInput, signRequest } from '../../src/crypto/request-signature.js';
import { openRawJunk, type RawJunk } from './raw-junk.js';

export type LoadCommand =
  | { type: 'init'; baseUrl: string; privateKeyPem: string; pubkey: string; connections: number }
  | { type: 'prepare'; count: number; signedPath: string }
  | {
      type: 'run';
      path: string;
      maxMs: number;
      /** Open loop at this many requests/s; absent: as fast as answered. */ rate?: number;
    }
  | { type: 'prepareJunk'; count: number; path: string; rate: number }
  | { type: 'junk'; rate: number; ms: number; tickMs: number };

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
      // Timed from when the request was due, so a server that falls behind shows in the figure; from when it was
      // sent if the timer fired early (libuv's timers may run up to a millisecond before `due`).
      const due = rate === undefined ? performance.now() : started + (i * 1000) / rate;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      const from = Math.min(due, performance.now());
      const res = await pool!.request({ method: 'GET', path: `${path}${r.query}`, headers: r.headers });
      await res.body.dump();
      latencies.push(performance.now() - from);
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

let junkBatch: Buffer[] = [];
let junkSender: RawJunk | undefined;
let baseUrl = '';

/** A JSON body of the size a real create sends: the server must answer before reading it. */
const JUNK_BODY = JSON.stringify({
  url: 'https://hooks.example.com/herald/webhooks',
  eventTypes: ['customer.created'],
});

/**
 * `count` junk POSTs to `path`, whole (request line, headers, body), for a phase that sends `rate` a second from
 * now: well-formed headers, each with a random key (a new one every time, so no cache can have seen it), a random
 * signature, and the timestamp of the second it will be sent in.
 */
function prepareJunk(count: number, path: string, rate: number): void {
  const { host } = new URL(baseUrl);
  const t0 = Math.floor(Date.now() / 1000);
  junkBatch = Array.from({ length: count }, (_, i) =>
    Buffer.from(
      `POST ${path} HTTP/1.1\r\nhost: ${host}\r\ncontent-type: application/json\r\n` +
        `content-length: ${Buffer.byteLength(JUNK_BODY)}\r\nx-pubkey: 0x02${randomBytes(32).toString('hex')}\r\n` +
        `x-timestamp: ${t0 + Math.floor(i / rate)}\r\nx-signature: 0x30${randomBytes(69).toString('hex')}\r\n\r\n` +
        JUNK_BODY,
    ),
  );
}

/**
 * `rate` of the prepared POSTs a second for `ms`, sent in ticks of `tickMs` (each tick sends what has come due: at
 * 1 ms and 1,000/s, one request a tick, paced as the valid clients are), never waiting for answers (a request waits
 * only for a free connection of JUNK's). Fails when fewer were prepared than the phase sends.
 */
async function junk(rate: number, ms: number, tickMs: number): Promise<LoadResult> {
  const needed = Math.ceil((rate * ms) / 1000);
  if (junkBatch.length < needed) throw new Error(`junk: ${junkBatch.length} requests prepared, ${needed} needed`);
  const { hostname, port } = new URL(baseUrl);
  junkSender ??= await openRawJunk(hostname, Number(port), connections);
  const before = { ...junkSender.statuses };
  const cpu = process.cpuUsage();
  const started = performance.now();
  let sent = 0;
  while (performance.now() - started < ms) {
    const due = Math.floor(((performance.now() - started) * rate) / 1000);
    for (; sent < due; sent++) junkSender.send(junkBatch[sent]!);
    await new Promise((resolve) => setTimeout(resolve, tickMs));
  }
  await junkSender.drain();
  const used = process.cpuUsage(cpu);
  const elapsed = performance.now() - started;
  const statuses = Object.fromEntries(
    Object.entries(junkSender.statuses)
      .map(([status, n]) => [status, n - (before[status] ?? 0)] as const)
      .filter(([, n]) => n > 0),
  );
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
        baseUrl = cmd.baseUrl;
        pool = new Pool(cmd.baseUrl, { connections: cmd.connections, pipelining: 1 });
        return reply({ type: 'ready' });
      case 'prepare':
        prepare(cmd.count, cmd.signedPath);
        return reply({ type: 'ready' });
      case 'run':
        return reply(await run(cmd.path, cmd.maxMs, cmd.rate));
      case 'prepareJunk':
        prepareJunk(cmd.count, cmd.path, cmd.rate);
        return reply({ type: 'ready' });
      case 'junk':
        return reply(await junk(cmd.rate, cmd.ms, cmd.tickMs));
    }
  })().catch((err: unknown) => reply({ type: 'error', message: String(err) }));
});
