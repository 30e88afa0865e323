// `npm run bench -- auth overbudget [--seconds 10] [--rate 400] [--rounds 3]`: what a request refused by the request
// budget costs the server, against a verified one. The same signed GETs of /v1/credentials/current at the same rate
// from a load generator of their own, to a server whose integrator has the bench's large budget (each answered 200
// after its signature is verified) and to one whose integrator has 1 request a second (all but one a second
// answered 429 from the key alone, before the signature). The server's CPU per request of each, over the whole
// request and beyond what the same server spends on the same handler without authentication (reading the request,
// routing, answering): the goal compares the latter.
import { randomBytes } from 'node:crypto';
import { AUTH_PATH, UNAUTH_PATH } from './auth-http.js';
import { ask, forkLoad, startAuthServer } from './auth-server.js';
import type { LoadReply, LoadResult } from './auth-load.js';

const CONNECTIONS = 16;

export interface OverBudgetOptions {
  token: string;
  seconds: number;
  rate: number;
  rounds: number;
}

export interface OverBudgetPhase {
  statuses: Record<string, number>;
  /** The server's CPU per request sent, µs. */
  cpuUsPerRequest: number;
  /** The same requests to the same handler without authentication: what reading and answering a request costs. */
  unauthUsPerRequest?: number;
}

async function phase(opts: OverBudgetOptions, overBudget: boolean): Promise<OverBudgetPhase> {
  const budget: Record<string, string> = overBudget
    ? { HERALD_RATE_LIMIT_PER_SECOND: '1', HERALD_RATE_LIMIT_BURST: '1' }
    : {};
  const server = await startAuthServer(
    opts.token,
    (app) => app.get(UNAUTH_PATH, async () => ({ integratorId: 'bench', keyId: 'bench', publicKey: 'bench' })),
    undefined,
    budget,
  );
  const load = forkLoad();
  try {
    const { baseUrl, privateKeyPem, pubkey } = server;
    await ask(load, { type: 'init', baseUrl, privateKeyPem, pubkey, connections: CONNECTIONS });
    const run = async (seconds: number, path = AUTH_PATH) => {
      await ask(load, { type: 'prepare', count: Math.round(opts.rate * seconds), signedPath: AUTH_PATH });
      const cpu = process.cpuUsage();
      const res = (await ask(load, {
        type: 'run',
        path,
        maxMs: seconds * 1000 + 10_000,
        rate: opts.rate,
      })) as LoadResult & LoadReply;
      const used = process.cpuUsage(cpu);
      return { statuses: res.statuses, cpuUsPerRequest: (used.user + used.system) / res.sent };
    };
    await run(2); // warm-up: JIT, connections, the key cache
    const measured = await run(opts.seconds);
    if (overBudget) return measured;
    await run(2, UNAUTH_PATH);
    return { ...measured, unauthUsPerRequest: (await run(opts.seconds, UNAUTH_PATH)).cpuUsPerRequest };
  } finally {
    load.kill();
    await server.close();
  }
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Alternating rounds of both; the medians of their CPU per request. */
export async function measureOverBudget(opts: OverBudgetOptions) {
  const verified: OverBudgetPhase[] = [];
  const refused: OverBudgetPhase[] = [];
  for (let i = 0; i < opts.rounds; i++) {
    verified.push(await phase(opts, false));
    refused.push(await phase(opts, true));
  }
  return {
    verified,
    refused,
    verifiedUs: median(verified.map((p) => p.cpuUsPerRequest)),
    refusedUs: median(refused.map((p) => p.cpuUsPerRequest)),
    unauthUs: median(verified.map((p) => p.unauthUsPerRequest ?? Number.NaN)),
  };
}

/** Issue 45: a request refused by the budget costs at most this share of a verified one. */
const GOAL_SHARE = 0.1;

/** The mode's report: each round, the medians, the goal, one JSON line. */
export async function overBudgetMode(flags: Omit<OverBudgetOptions, 'token'>): Promise<void> {
  console.log(
    `auth bench, over-budget mode: signed GETs at ${flags.rate}/s for ${flags.seconds} s, ${flags.rounds} rounds, ` +
      `a verified integrator's and one over its budget alternating`,
  );
  const m = await measureOverBudget({ token: randomBytes(24).toString('hex'), ...flags });
  for (const [i, v] of m.verified.entries()) {
    const r = m.refused[i]!;
    console.log(
      `    round ${i + 1}: verified ${v.cpuUsPerRequest.toFixed(1)} µs ${JSON.stringify(v.statuses)}; ` +
        `over budget ${r.cpuUsPerRequest.toFixed(1)} µs ${JSON.stringify(r.statuses)}`,
    );
  }
  const whole = m.refusedUs / m.verifiedUs;
  const share = (m.refusedUs - m.unauthUs) / (m.verifiedUs - m.unauthUs);
  console.log(
    `    server CPU per request (median of rounds): verified ${m.verifiedUs.toFixed(1)} µs, over budget ` +
      `${m.refusedUs.toFixed(1)} µs, the same handler without authentication ${m.unauthUs.toFixed(1)} µs`,
  );
  console.log(
    `    beyond reading and answering a request: over budget ${(m.refusedUs - m.unauthUs).toFixed(1)} µs against ` +
      `${(m.verifiedUs - m.unauthUs).toFixed(1)} µs verified: ${share.toFixed(2)} × (goal ≤ ${GOAL_SHARE}: ` +
      `${share <= GOAL_SHARE ? 'met' : 'MISSED'}); whole requests ${whole.toFixed(2)} ×`,
  );
  const us = (x: number) => Number(x.toFixed(1));
  const figures = { verifiedUs: us(m.verifiedUs), refusedUs: us(m.refusedUs), unauthUs: us(m.unauthUs) };
  console.log(JSON.stringify({ bench: 'auth-overbudget', ...flags, ...figures, share, whole }));
}
