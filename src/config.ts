import { z } from 'zod';
import { DEFAULT_RETRY_AFTER_MAX_SECONDS } from './domain/attempt-rule.js';
import { dnsServers } from './config-dns-servers.js';
import { trustProxySetting } from './config-trust-proxy.js';
import { durationMs, retentionProblem } from './config-retention.js';

const port = z.coerce.number().int().min(0).max(65535);
const optionalString = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === '' ? undefined : v));

/** `a.example=1.2.3.4,b.example=5.6.7.8|::1` → { 'a.example': ['1.2.3.4'], 'b.example': ['5.6.7.8', '::1'] } */
const dnsStatic = optionalString.transform((raw, ctx) => {
  const map: Record<string, string[]> = {};
  for (const entry of (raw ?? '').split(',').filter((e) => e.trim() !== '')) {
    const [name, addrs] = entry.split('=');
    if (!name?.trim() || !addrs?.trim()) {
      ctx.addIssue({ code: 'custom', message: `expected name=address[|address…], got "${entry}"` });
      return z.NEVER;
    }
    map[name.trim().toLowerCase().replace(/\.$/, '')] = addrs.split('|').map((a) => a.trim());
  }
  return map;
});

/** A listen port, or `off` (also empty) for no listener at all. */
const portOrOff = (fallback: number) =>
  z
    .string()
    .default(String(fallback))
    .transform((raw, ctx) => {
      const v = raw.trim().toLowerCase();
      if (v === 'off' || v === '') return null;
      const n = Number(v);
      if (!Number.isInteger(n) || n < 0 || n > 65535) {
        ctx.addIssue({ code: 'custom', message: `expected a port (0-65535) or "off", got "${raw}"` });
        return z.NEVER;
      }
      return n;
    });

/** `1` (or `0`, the default) → a boolean: an explicit opt-in. */
const optIn = optionalString
  .pipe(z.enum(['0', '1'], { message: "must be '1' (or '0', the default)" }).optional())
  .transform((v) => v === '1');

const list = optionalString.transform((raw) =>
  (raw ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== ''),
);

export const configSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  HERALD_HOST: z.string().min(1).default('127.0.0.1'),
  HERALD_PORT: port.default(3000),
  MONGODB_URL: z
    .string()
    .regex(/^mongodb(\+srv)?:\/\//, 'must be a mongodb:// or mongodb+srv:// URL')
    .default('mongodb://127.0.0.1:27017/'),
  MONGODB_DB: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,60}$/, 'letters, digits, _ and - only')
    .default('herald'),
  /** Connections per process to MongoDB; unset: the URL's maxPoolSize, else 50 (docs/scale-and-size.md). */
  MONGODB_MAX_POOL_SIZE: z.coerce.number().int().min(1).max(1000).optional(),
  TEMPORAL_ADDRESS: z.string().min(1).default('127.0.0.1:7233'),
  TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
  TEMPORAL_TASK_QUEUE: z.string().min(1).default('herald-deliveries'),
  /** Secured Temporal (src/temporal/connection.ts): `1` = TLS with the system's CAs; implied by the ones below. */
  TEMPORAL_TLS: optionalString.pipe(z.enum(['0', '1'], { message: "must be '1' or '0'" }).optional()),
  TEMPORAL_TLS_CA_FILE: optionalString,
  TEMPORAL_TLS_CERT_FILE: optionalString,
  TEMPORAL_TLS_KEY_FILE: optionalString,
  TEMPORAL_TLS_SERVER_NAME: optionalString,
  TEMPORAL_API_KEY: optionalString,
  TEMPORAL_API_KEY_FILE: optionalString,
  /** Fastify's trustProxy (src/config-trust-proxy.ts): which peers' X-Forwarded-For names the client (docs/security.md). */
  HERALD_TRUST_PROXY: trustProxySetting,
  HERALD_ADMIN_TOKEN: optionalString.pipe(z.string().min(16, 'must be at least 16 characters').optional()),
  /** Unset: the admin API is served with the rest. Set: on this port only, the public listener answering 404. */
  HERALD_ADMIN_PORT: optionalString.pipe(z.coerce.number<string | undefined>().int().min(0).max(65535).optional()),
  HERALD_ADMIN_HOST: z.string().min(1).default('127.0.0.1'),
  /** Attempts one worker runs at once (maxConcurrentActivityTaskExecutions): docs/scale-and-size.md, "Sizing the worker". */
  HERALD_WORKER_MAX_ACTIVITIES: z.coerce.number().int().min(1).max(2000).default(100),
  /**
   * The share (percent) of a worker's attempt slots one integrator may hold at once; its further scheduled attempts
   * wait without a request (src/net/attempt-gate.ts, docs/scale-and-size.md). 100 turns the bound off.
   */
  HERALD_WORKER_INTEGRATOR_SHARE: z.coerce.number().int().min(1).max(100).default(25),
  /**
   * Delivery runs the worker keeps in memory between their workflow tasks (the SDK's maxCachedWorkflows); an evicted
   * run replays its history when it wakes: docs/scale-and-size.md, "Sizing the worker".
   */
  HERALD_WORKER_CACHED_WORKFLOWS: z.coerce.number().int().min(0).max(100_000).default(400),
  /**
   * Threads that run the worker's workflow tasks (the SDK's workflowThreadPoolSize; each has its share of the cache):
   * docs/scale-and-size.md, "The poll split and the workflow cache".
   */
  HERALD_WORKER_WORKFLOW_THREADS: z.coerce.number().int().min(1).max(16).default(1),
  /** On SIGTERM, how long a worker lets its in-flight attempts finish before it gives them up (they are retried). */
  HERALD_WORKER_SHUTDOWN_GRACE_SECONDS: z.coerce.number().int().min(0).max(3600).default(30),
  /**
   * The worker's V8 heaps (main and workflow threads) grow to (1 + this/100) × their live size before a full GC;
   * 0 leaves it to V8 (up to 4×): docs/scale-and-size.md, "Sizing the worker".
   */
  HERALD_WORKER_HEAP_GROWING_PERCENT: z.coerce.number().int().min(0).max(400).default(50),
  /**
   * The young generation of the worker's workflow threads: semi-spaces of at most this many MB; 0 leaves it to V8
   * (16): docs/scale-and-size.md, "Worker memory".
   */
  HERALD_WORKER_THREAD_SEMI_SPACE_MB: z.coerce.number().int().min(0).max(64).default(0),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** base64 of 32 bytes: encrypts subscription signing keys at rest (AES-256-GCM). */
  HERALD_MASTER_KEY: optionalString,
  HERALD_MASTER_KEY_FILE: optionalString,
  /** `1`: with no master key configured, the API uses a per-process random one (throw-away use; never production). */
  HERALD_INSECURE_EPHEMERAL_MASTER_KEY: optIn,
  /** HMAC secret for opaque page cursors; derived from the master key when unset. */
  HERALD_CURSOR_SECRET: optionalString,
  /** How the event history listing is stored: page documents (embedded server) or indexes (MongoDB); docs/events.md. */
  HERALD_LISTING_LAYOUT: z.enum(['auto', 'pages', 'indexes']).default('auto'),
  /**
   * What one listing page reads at most, rows examined and milliseconds; a page that reaches either answers what it
   * found with a cursor to go on (docs/events.md, "Bounded pages").
   */
  HERALD_LISTING_SCAN_ROWS: z.coerce.number().int().min(100).max(10_000_000).default(20_000),
  HERALD_LISTING_TIME_MS: z.coerce.number().int().min(10).max(60_000).default(500),
  /** Rows a second one integrator's listing pages examine at most in one process, all pages together (scan-pace.ts). */
  HERALD_LISTING_SCAN_RATE: z.coerce.number().int().min(100).max(100_000_000).default(10_000),
  /** Resolvers for callback hosts (`ip`, `ip:port`, `[ipv6]:port`, comma-separated); unset: the system's (resolv.conf). */
  HERALD_DNS_SERVERS: dnsServers,
  // Egress exemptions for tests and local development (docs/security.md, "Development egress exemptions"): fixed
  // answers for callback hosts, the ranges those pinned names may resolve into, and Node's own extra CAs (read here
  // only to be refused with NODE_ENV=production unless HERALD_UNSAFE_EGRESS=1: src/net/egress-exemptions.ts).
  HERALD_DNS_STATIC: dnsStatic,
  HERALD_ALLOW_CIDRS: list,
  NODE_EXTRA_CA_CERTS: optionalString,
  HERALD_UNSAFE_EGRESS: optIn,
  /** Failed authentications (integrator or admin) allowed per client address per window, then 429. */
  HERALD_AUTH_FAILURE_LIMIT: z.coerce.number().int().min(1).default(30),
  HERALD_AUTH_FAILURE_WINDOW_SEC: z.coerce.number().int().min(1).default(60),
  /** Requests per integrator and API instance: a token bucket refilled at this rate, holding this burst; 429 beyond. */
  HERALD_RATE_LIMIT_PER_SECOND: z.coerce.number().min(0.01).max(1_000_000).default(100),
  HERALD_RATE_LIMIT_BURST: z.coerce.number().int().min(1).max(1_000_000).default(200),
  /** Each count of a subscription's delivery summary stops here (a bounded read; docs/deliveries.md). */
  HERALD_SUMMARY_COUNT_LIMIT: z.coerce.number().int().min(1).max(10_000_000).default(10_000),
  /** Database lookups per second (and burst) for keys this instance does not hold; beyond, 401 with no query. */
  /**
   * Node's socket inactivity timeout (Fastify's connectionTimeout) and the time a client has to send a whole request,
   * headers and body (requestTimeout): a slow or silent client cannot hold a connection open indefinitely.
   */
  HERALD_CONNECTION_TIMEOUT_MS: z.coerce.number().int().min(100).max(3_600_000).default(60_000),
  HERALD_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(100).max(3_600_000).default(30_000),
  /**
   * How long the API waits for a worker to answer a workflow query or update (a recovery campaign's progress, pause,
   * resume, cancel); beyond it the request is answered 503 `workflow_unavailable` instead of waiting on.
   */
  HERALD_WORKFLOW_ANSWER_MS: z.coerce.number().int().min(100).max(60_000).default(5_000),
  /** Per-integrator quotas: live subscriptions; key rotations and test sends per hour (429 beyond). */
  HERALD_MAX_SUBSCRIPTIONS: z.coerce.number().int().min(1).default(100),
  HERALD_KEY_ROTATIONS_PER_HOUR: z.coerce.number().int().min(1).default(20),
  HERALD_TEST_SENDS_PER_HOUR: z.coerce.number().int().min(1).default(60),
  HERALD_SUBSCRIPTION_CREATES_PER_HOUR: z.coerce.number().int().min(1).default(100),
  HERALD_CAMPAIGN_STARTS_PER_HOUR: z.coerce.number().int().min(1).default(20),
  // Re-sends an integrator can cause (docs/deliveries.md, "Bounds on re-sends"): one hourly budget shared by manual
  // retries and campaign re-deliveries; running campaigns at once; how long a campaign's re-delivery keeps any later
  // campaign from re-sending that delivery.
  HERALD_RESEND_BUDGET_PER_HOUR: z.coerce.number().int().min(1).default(1000),
  HERALD_CAMPAIGNS_PER_INTEGRATOR: z.coerce.number().int().min(1).max(100).default(3),
  HERALD_CAMPAIGN_RESEND_WINDOW_HOURS: z.coerce.number().min(0).max(8760).default(24),
  /** Ingests one API instance runs at once, how many more may wait and how long (ms); beyond: 503 (ingest-gate.ts). */
  HERALD_INGEST_CONCURRENCY: z.coerce.number().int().min(1).max(1000).default(8),
  /** Of those, ingests of one integrator at once: a burst waits its turn here (docs/events.md, "Load shedding"). */
  HERALD_INGEST_CONCURRENCY_PER_INTEGRATOR: z.coerce.number().int().min(1).max(1000).default(2),
  HERALD_INGEST_QUEUE: z.coerce.number().int().min(0).max(100_000).default(256),
  HERALD_INGEST_WAIT_MS: z.coerce.number().int().min(0).max(60_000).default(2_000),
  /** Workflow tasks and attempts the API's in-process worker runs at once, for eager starts; 0 = no such worker. */
  HERALD_API_WORKER_SLOTS: z.coerce.number().int().min(0).max(200).default(0),
  // Delivery control (docs/subscriptions.md, docs/deliveries.md): how fast a resume releases held deliveries (per
  // subscription, deliveries/s), when a failing endpoint is paused, the longest wait a Retry-After may ask for.
  HERALD_RESUME_RATE: z.coerce.number().min(0.01).max(1000).default(10),
  HERALD_HEALTH_PAUSE_AFTER_SECONDS: z.coerce.number().int().min(1).default(86_400),
  HERALD_HEALTH_PAUSE_MIN_FAILURES: z.coerce.number().int().min(1).default(20),
  /** Seconds between two probes of an endpoint Herald paused; 0 (the default) = no probe (docs/subscriptions.md). */
  HERALD_HEALTH_PROBE_SECONDS: z.coerce.number().int().min(0).max(86_400).default(0),
  HERALD_RETRY_AFTER_MAX_SECONDS: z.coerce.number().int().min(0).default(DEFAULT_RETRY_AFTER_MAX_SECONDS),
  // Retention (docs/retention.md): how long what has ended is kept (ms; production refuses under 1d), how often the
  // purge's schedule runs, the rows one batch examines and the pause after each batch.
  HERALD_RETENTION: durationMs('30d'),
  HERALD_RETENTION_EVERY: durationMs('1h'),
  HERALD_RETENTION_BATCH: z.coerce.number().int().min(1).max(1000).default(500),
  HERALD_RETENTION_PAUSE_MS: z.coerce.number().int().min(0).max(60_000).default(200),
  HERALD_RETENTION_DUTY: z.coerce.number().gt(0).max(1).default(0.25),
  /** An erasure's wait between cancelling an integrator's work and erasing it (s): ingestion forgets it meanwhile. */
  HERALD_ERASURE_GRACE_SECONDS: z.coerce.number().int().min(0).max(3600).default(30),
  // The integrator portal (docs/portal.md): the URL its links point at (unset: this API's own origin, /portal/), who
  // may frame it (CSP frame-ancestors), and where its built assets are (unset: dist/portal of the package).
  HERALD_PORTAL_URL: optionalString.pipe(
    z
      .string()
      .regex(/^https?:\/\/[^/]+(\/.*)?\/$/, 'an http(s) URL ending with /, e.g. https://api.example.com/portal/')
      .optional(),
  ),
  HERALD_PORTAL_FRAME_ANCESTORS: z
    .string()
    .regex(/^[^;,]+$/, 'CSP sources separated by spaces, e.g. https://dashboard.example.com')
    .default("'none'"),
  HERALD_PORTAL_ASSETS: optionalString,
  /** Prometheus scrape listeners (docs/operations-metrics.md): the API's, the worker's, and the Temporal SDK's
   * exporter that the worker proxies onto its own (bound on loopback only; 0: a free port, so that workers sharing
   * a host need no setting for it). */
  HERALD_METRICS_HOST: z.string().min(1).default('127.0.0.1'),
  HERALD_METRICS_PORT: portOrOff(9464),
  HERALD_WORKER_METRICS_PORT: portOrOff(9465),
  HERALD_TEMPORAL_METRICS_PORT: portOrOff(0),
  /** OTLP/HTTP endpoint of a trace collector, e.g. http://127.0.0.1:4318; unset: no tracing. */
  OTEL_EXPORTER_OTLP_ENDPOINT: optionalString,
});

export type Config = Readonly<z.infer<typeof configSchema>>;

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/** Parses the environment once; a bad variable fails fast with a message that names it. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = configSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.') || '(environment)'}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const retention = retentionProblem(parsed.data);
  if (retention) throw new ConfigError(`Invalid configuration:\n  ${retention}`);
  return Object.freeze(parsed.data);
}
