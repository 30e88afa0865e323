import type { FastifyInstance } from 'fastify';
import type { MongoOptions } from '../../src/store/mongo.js';
import type { DestinationStream } from 'pino';
import { buildApp } from '../../src/process/app.js';
import type { Config } from '../../src/config.js';
import { integratorScope } from '../../src/api/scopes/integrator-scope.js';
import { testConfig } from './env.js';

/**
 * The real app over the test bed's servers, with a private database; drop it with `closeTestApp`.
 * `extraRoutes` registers test-only routes in an integrator scope before the app is ready (guarded like real ones).
 * `logStream` receives the app's log lines, written as in production (LOG_LEVEL, redaction); else none are.
 */
export async function buildTestApp(
  overrides: Record<string, string> = {},
  extraRoutes?: (app: FastifyInstance) => void,
  logStream?: DestinationStream,
  mongoOptions?: MongoOptions,
): Promise<{ app: FastifyInstance; config: Config }> {
  const config = testConfig(overrides);
  const app = await buildApp({
    config,
    ...(logStream ? { logStream } : { logger: false }),
    ...(mongoOptions ? { mongoOptions } : {}),
  });
  if (extraRoutes) await app.register(integratorScope, { routes: [async (scope) => extraRoutes(scope)] });
  await app.ready();
  return { app, config };
}

export async function closeTestApp(app: FastifyInstance): Promise<void> {
  await app.mongo.db.dropDatabase().catch(() => undefined);
  await app.close();
}
