import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import FindMyWay, { type HTTPMethod } from 'find-my-way';
import { credentialShapeProblem, timestampProblem } from '../../../auth/authenticator.js';
import type { KeyCache } from '../../../auth/key-cache.js';
import type { HeraldMetrics } from '../../../telemetry/metrics.js';
import { retryAfterSeconds } from '../../errors.js';
import { costOfRoute } from '../../route-costs.js';
import { JSON_TYPE } from '../../send-json.js';

/** What an integrator route carries in the gate's router. */
interface GuardedRoute {
  readonly url: string;
  readonly cost: number;
}

export interface EarlyBudgetDeps {
  readonly keys: KeyCache;
  /** The request budget's buckets (src/util/token-buckets.ts): `peek` spends nothing. */
  readonly buckets: { peek(key: string, cost?: number): number };
  /** The 429 body for a wait of `seconds`, made once per value. */
  readonly bodyFor: (seconds: number) => Buffer;
  readonly metrics: HeraldMetrics;
  readonly now?: () => number;
}

const single = (value: string | string[] | undefined): string | undefined =>
  typeof value === 'string' ? value : undefined; // a repeated header is not a credential

/**
 * The request budget's refusal on the raw request (src/api/front-gate.ts): a signed request to an integrator route
 * whose key (from the key directory, in memory) names an integrator that cannot pay the route's cost is answered
 * 429 `rate_limited` with Retry-After, the same body as the scope's hook, without Fastify: no request object, no
 * routing through the app, no hook, no logger. Anything it cannot decide from memory (no key header, a key not in
 * the directory, a portal session, a route outside the integrator scope, headers that are no credential, which
 * answer 401) goes on to Fastify, whose hooks stay the exact guard. A refusal spends nothing and writes no digest.
 */
export function createEarlyBudget(deps: EarlyBudgetDeps) {
  const now = deps.now ?? Date.now;
  // The integrator scope's routes only, matched as Fastify's router matches them (src/process/app.ts routerOptions).
  const router = FindMyWay({ ignoreTrailingSlash: false });
  const noop = (): void => undefined;

  return {
    /** Adds an integrator route (each of its methods) at its cost (src/api/route-costs.ts). */
    guard(method: string | readonly string[], url: string): void {
      for (const m of [method].flat()) {
        const store: GuardedRoute = { url, cost: costOfRoute(m, url) };
        router.on(m as HTTPMethod, url, noop, store);
      }
    },
    /** True when it answered the request (429); false: Fastify handles it. */
    refuse(req: IncomingMessage, res: ServerResponse): boolean {
      const started = performance.now();
      const pubkey = single(req.headers['x-pubkey']);
      if (pubkey === undefined || req.method === undefined || req.url === undefined) return false;
      const route = router.find(req.method as HTTPMethod, req.url);
      if (!route) return false;
      const key = deps.keys.directory.lookup(pubkey.slice(2).toLowerCase());
      if (!key) return false;
      const { url, cost } = route.store as GuardedRoute;
      const wait = deps.buckets.peek(key.integratorId, cost);
      if (wait <= 0) return false;
      // Over budget: refused here only when the hooks would not answer 401 first (shapes, then the time window).
      const timestamp = single(req.headers['x-timestamp']);
      if (credentialShapeProblem(pubkey, timestamp, single(req.headers['x-signature'])) !== undefined) return false;
      if (timestampProblem(timestamp!, now()) !== undefined) return false;
      const seconds = retryAfterSeconds(wait);
      const body = deps.bodyFor(seconds);
      res.writeHead(429, { 'content-type': JSON_TYPE, 'content-length': body.length, 'retry-after': String(seconds) });
      res.end(body);
      deps.metrics.httpRequest(req.method, url, 429, (performance.now() - started) / 1000);
      return true;
    },
  };
}
