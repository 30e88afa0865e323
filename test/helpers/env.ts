import { randomBytes } from 'node:crypto';
import { loadConfig, type Config } from '../../src/config.js';

/** A fresh database name, so test files sharing the one test-bed server never see each other's data. */
export function uniqueDbName(prefix = 't'): string {
  return `${prefix}_${randomBytes(6).toString('hex')}`;
}

/** Config for a test: the test bed's servers (set by scripts/test.ts), a private database, quiet logs. */
export function testConfig(overrides: Record<string, string> = {}): Config {
  return loadConfig({
    ...process.env,
    MONGODB_DB: uniqueDbName(),
    TEMPORAL_TASK_QUEUE: `test-${randomBytes(4).toString('hex')}`,
    LOG_LEVEL: 'silent',
    HERALD_ADMIN_TOKEN: 'test-admin-token-0123456789', // = ADMIN_TOKEN of test/helpers/integrators.ts
    HERALD_MASTER_KEY: randomBytes(32).toString('base64'),
    HERALD_CURSOR_SECRET: randomBytes(32).toString('base64'),
    // Tests send many bad credentials from one address; the failure limit has its own test (auth-limits).
    HERALD_AUTH_FAILURE_LIMIT: '100000',
    // Property and fuzz tests send one integrator's requests faster than any client should; the request budget has
    // its own test (rate-limit).
    HERALD_RATE_LIMIT_PER_SECOND: '100000',
    HERALD_RATE_LIMIT_BURST: '100000',
    // No scrape listeners on fixed ports: test files run side by side (metrics tests pass ports of their own).
    HERALD_METRICS_PORT: 'off',
    HERALD_WORKER_METRICS_PORT: 'off',
    HERALD_TEMPORAL_METRICS_PORT: 'off',
    // No worker in test apps unless a test asks for one (test/integration/api-worker.test.ts): each test file
    // decides which worker runs its task queue.
    HERALD_API_WORKER_SLOTS: '0',
    // Every worker creates its task queue's retention schedule: in tests it never fires on its own (interval
    // boundaries ten years apart), and nothing seeded is older than what it keeps; retention-schedule.test.ts runs it.
    HERALD_RETENTION_EVERY: '3650d',
    HERALD_RETENTION: '36500d',
    ...overrides,
  });
}

export function requireEnv(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run the tests with \`npm test\`, which starts the test bed`);
  return value;
}
