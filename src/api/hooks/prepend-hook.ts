import type { RouteOptions, preValidationAsyncHookHandler } from 'fastify';

/** Puts `hook` first among a route's own preValidation hooks (called from an onRoute hook). */
export function prependPreValidation(route: RouteOptions, hook: preValidationAsyncHookHandler): void {
  const existing = route.preValidation;
  route.preValidation = [hook, ...(existing === undefined ? [] : Array.isArray(existing) ? existing : [existing])];
}
