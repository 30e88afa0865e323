import type { FastifyInstance, RouteOptions } from 'fastify';
import { buildApp } from '../../src/process/app.js';
import { testConfig } from './env.js';

/** The real app, ready, with every route it registered, as registered (scopes' onRoute hooks applied). */
export async function appWithRoutes(
  overrides: Record<string, string> = {},
): Promise<{ app: FastifyInstance; routes: RouteOptions[] }> {
  const routes: RouteOptions[] = [];
  const app = await buildApp({ config: testConfig(overrides), logger: false, onRoute: (r) => routes.push(r) });
  await app.ready();
  return { app, routes };
}

export const methodsOf = (route: RouteOptions): string[] => [route.method].flat();
