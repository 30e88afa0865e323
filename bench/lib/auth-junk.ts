// `npm run bench -- auth junk`: the valid clients' latency with and without a flood of random keys. One load
// generator sends signed GETs at a steady rate; a second one, in phases, sends POSTs with a JSON body, each signed by a
// fresh random key (what no cache can have seen), at 1,000 requests/s; made whole before the phase and written on
// plain sockets, so that the junk's sender takes little of the two cores from what is measured. Phases alternate, the valid clients' p99 is
// taken in each, and the server's queries for keys are counted (random keys share the key directory's refreshes).
import type { ChildProcess } from 'node:child_process';
import type { CommandStartedEvent } from 'mongodb';
import { AUTH_PATH } from './auth-http.js';
import { ask, forkLoad, startAuthServer, type AuthBenchServer } from './auth-server.js';
import type { LoadReply, LoadResult } from './auth-load.js';

const VALID_CONNECTIONS = 16;
const JUNK_CONNECTIONS = 64;
const JUNK_PATH = '/v1/webhooks/subscriptions';

export interface JunkOptions {
  token: string;
  /** Length of each phase, seconds. */
  seconds: number;
  /** Pairs of phases (without junk, then with it). */
  rounds: number;
  validRate: number;
  junkRate: number;
  /** The junk sender's tick: what has come due is sent each tick (1: one request a tick at 1,000/s; 10: bursts of 10). */
  junkTickMs: number;
}

export interface JunkPhase {
  p50Ms: number;
  p99Ms: number;
  sent: number;
  /** Key lookups the server sent to the database during the phase. */
  keyLookups: number;
  /** CPU time of the server (this process) during the phase. */
  serverCpuMs: number;
  /** Busy share of one core in the valid clients' load generator, and in the junk one. */
  validCpu: number;
  junkStatuses?: Record<string, number>;
  junkSent?: number;
  junkCpu?: number;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function init(child: ChildProcess, server: AuthBenchServer, connections: number): Promise<void> {
  const { baseUrl, privateKeyPem, pubkey } = server;
  await ask(child, { type: 'init', baseUrl, privateKeyPem, pubkey, connections });
}

export async function measureJunk(opts: JunkOptions) {
  let keyLookups = 0;
  const server = await startAuthServer(opts.token, undefined, { monitorCommands: true });
  server.app.mongo.client.on('commandStarted', (e: CommandStartedEvent) => {
    if (e.commandName === 'find' && e.command.find === 'integrator_keys') keyLookups++;
  });
  const valid = forkLoad();
  const junk = forkLoad();
  try {
    await init(valid, server, VALID_CONNECTIONS);
    await init(junk, server, JUNK_CONNECTIONS);
    const phase = async (withJunk: boolean): Promise<JunkPhase> => {
      const count = Math.round(opts.validRate * opts.seconds);
      await ask(valid, { type: 'prepare', count, signedPath: AUTH_PATH });
      const junkMs = opts.seconds * 1000 + 500;
      const junkCount = Math.ceil((opts.junkRate * junkMs) / 1000);
      if (withJunk) await ask(junk, { type: 'prepareJunk', count: junkCount, path: JUNK_PATH, rate: opts.junkRate });
      const lookupsBefore = keyLookups;
      const cpu = process.cpuUsage();
      const flood = withJunk
        ? (ask(junk, { type: 'junk', rate: opts.junkRate, ms: junkMs, tickMs: opts.junkTickMs }) as Promise<
            LoadResult & LoadReply
          >)
        : undefined;
      const res = (await ask(valid, {
        type: 'run',
        path: AUTH_PATH,
        maxMs: opts.seconds * 1000 + 10_000,
        rate: opts.validRate,
      })) as LoadResult & LoadReply;
      const junkRes = await flood;
      const used = process.cpuUsage(cpu);
      const bad = Object.entries(res.statuses).filter(([status]) => status !== '200');
      if (bad.length > 0) throw new Error(`valid clients: non-200 answers ${JSON.stringify(res.statuses)}`);
      return {
        p50Ms: res.p50Ms,
        p99Ms: res.p99Ms,
        sent: res.sent,
        keyLookups: keyLookups - lookupsBefore,
        validCpu: res.clientCpuMs / res.ms,
        serverCpuMs: (used.user + used.system) / 1000,
        ...(junkRes
          ? { junkStatuses: junkRes.statuses, junkSent: junkRes.sent, junkCpu: junkRes.clientCpuMs / junkRes.ms }
          : {}),
      };
    };
    await phase(false); // warm-up: JIT, connections, key cache
    const quiet: JunkPhase[] = [];
    const flooded: JunkPhase[] = [];
    for (let i = 0; i < opts.rounds; i++) {
      quiet.push(await phase(false));
      flooded.push(await phase(true));
    }
    // What a junk request costs the server: its CPU beyond that of the phase without junk, per junk request sent.
    const perJunkUs = flooded.map((f, i) => ((f.serverCpuMs - quiet[i]!.serverCpuMs) * 1000) / (f.junkSent ?? 1));
    return {
      quiet,
      flooded,
      quietP99Ms: median(quiet.map((p) => p.p99Ms)),
      floodedP99Ms: median(flooded.map((p) => p.p99Ms)),
      serverCpuPerJunkUs: median(perJunkUs),
    };
  } finally {
    valid.kill();
    junk.kill();
    await server.close();
  }
}
