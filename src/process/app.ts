import Fastify, { type FastifyInstance, type FastifyServerOptions, type RouteOptions } from 'fastify';
import type { DestinationStream } from 'pino';
import type { MongoOptions } from '../store/mongo.js';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Config } from '../config.js';
import { fastifyTrustProxy } from '../config-trust-proxy.js';
import { loadMasterKey } from '../crypto/master-key.js';
import { checkEgressExemptions } from '../net/egress-exemptions.js';
import { connectionsPlugin } from '../api/plugins/external/connections.js';
import { openapiPlugin } from '../api/plugins/external/openapi.js';
import { errorHandlerPlugin } from '../api/plugins/app/error-handler.js';
import { adminListenerPlugin } from '../api/plugins/app/admin-listener.js';
import { rawBodyPlugin } from '../api/plugins/app/raw-body.js';
import { authFailuresPlugin } from '../api/plugins/app/auth-failures.js';
import fastifyCookie from '@fastify/cookie';
import { integratorAuthPlugin } from '../api/plugins/app/integrator-auth.js';
import { portalAuthPlugin } from '../api/plugins/app/portal-auth.js';
import { idempotencyPlugin } from '../api/plugins/app/idempotency.js';
import { requestBudgetPlugin } from '../api/plugins/app/request-budget.js';
import { createFrontGate } from '../api/front-gate.js';
import { storePlugin } from '../api/plugins/app/store.js';
import { vaultPlugin } from '../api/plugins/app/vault.js';
import { apiWorkerPlugin } from '../api/plugins/app/api-worker.js';
import { deliveryServicePlugin } from '../api/plugins/app/delivery-service.js';
import { expirySweeperPlugin } from '../api/plugins/app/expiry-sweeper.js';
import { registerRoutes } from '../api/routes/index.js';
import { OneLinePerRequest } from '../api/log-controller.js';
import { decorateRequestContext } from '../api/request-context.js';
import { telemetryPlugin } from '../api/plugins/app/telemetry.js';
import type { HeraldMetrics } from '../telemetry/metrics.js';

/** Largest accepted request body (JSON); larger → 413 payload_too_large. */
export const BODY_LIMIT_BYTES = 256 * 1024;

export interface BuildAppOptions {
  config: Config;
  logger?: FastifyServerOptions['logger'];
  /** Where the default logger writes (default stdout); ignored when `logger` is given. */
  logStream?: DestinationStream;
  /** Create the indexes at start-up (default true). Off only to probe readiness against a server that is down. */
  ensureIndexes?: boolean;
  /** Called for every route registered, first of all hooks (the route-walk test collects them with it). */
  onRoute?: (route: RouteOptions) => void;
  mongoOptions?: MongoOptions;
  /** The metrics to record into (default: a fresh registry, or none with HERALD_METRICS_PORT=off). */
  metrics?: HeraldMetrics;
}

/** Builds the app in layers: external connections → app plugins → routes. It does not listen. */
export async function buildApp({
  config,
  logger,
  ensureIndexes = true,
  metrics,
  logStream,
  onRoute,
  mongoOptions,
}: BuildAppOptions): Promise<FastifyInstance> {
  // Before any connection: without a master key the API must not start at all (src/crypto/master-key.ts).
  const master = loadMasterKey(config);
  const egressWarning = checkEgressExemptions(config);
  // Refusals decided before Fastify sees a request: an integrator over its request budget (issue 45).
  const gate = createFrontGate();
  const app = Fastify({
    serverFactory: gate.serverFactory,
    logger: logger ?? {
      level: config.LOG_LEVEL,
      redact: {
        paths: [
          'req.headers.authorization',
          'req.headers["x-signature"]',
          'req.headers.cookie',
          'req.headers["x-portal-link"]',
        ],
        censor: '[redacted]',
      },
      ...(logStream ? { stream: logStream } : {}),
    },
    logController: new OneLinePerRequest(),
    // Behind a TLS proxy every peer is the proxy: request.ip (the failure limiter's key) comes from X-Forwarded-For.
    trustProxy: fastifyTrustProxy(config.HERALD_TRUST_PROXY),
    bodyLimit: BODY_LIMIT_BYTES,
    connectionTimeout: config.HERALD_CONNECTION_TIMEOUT_MS,
    requestTimeout: config.HERALD_REQUEST_TIMEOUT_MS,
    http: {
      // Given to Node too, so its headersTimeout defaults from it (min(60 s, requestTimeout)).
      requestTimeout: config.HERALD_REQUEST_TIMEOUT_MS,
      // Node enforces both only when it sweeps its connections (every 30 s by default): sweep often enough that a
      // request is cut off close to its timeout.
      connectionsCheckingInterval: Math.min(5_000, Math.ceil(config.HERALD_REQUEST_TIMEOUT_MS / 4)),
    },
    forceCloseConnections: 'idle',
    return503OnClosing: true,
    routerOptions: { ignoreTrailingSlash: false },
  }).withTypeProvider<ZodTypeProvider>();
  if (egressWarning) app.log.warn(egressWarning);
  decorateRequestContext(app);
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  if (onRoute) app.addHook('onRoute', onRoute);

  // 1. external
  await app.register(connectionsPlugin, { config, ensureIndexes, ...(mongoOptions ? { mongoOptions } : {}) });
  await app.register(openapiPlugin);
  await app.register(fastifyCookie);
  // 2. app
  await app.register(telemetryPlugin, metrics ? { metrics } : {});
  await app.register(errorHandlerPlugin);
  await app.register(adminListenerPlugin);
  await app.register(vaultPlugin, { master });
  await app.register(storePlugin);
  await app.register(deliveryServicePlugin);
  await app.register(apiWorkerPlugin);
  await app.register(expirySweeperPlugin);
  await app.register(rawBodyPlugin);
  await app.register(authFailuresPlugin);
  await app.register(integratorAuthPlugin);
  await app.register(requestBudgetPlugin, { gate });
  await app.register(idempotencyPlugin);
  await app.register(portalAuthPlugin);
  // 3. routes
  await registerRoutes(app);
  return app;
}
