import type { RouteOptions } from 'fastify';

/**
 * The methods each registered path answers, so a request whose path exists under other methods is told 405 with
 * `Allow` rather than 404 (Fastify's router only knows "no route for this method and path"). Fed from an onRoute
 * hook; matched on the path alone, `:param` as one segment and `*` as the rest. Admin routes are left out: the
 * public listener must not reveal that an admin API exists (src/api/plugins/app/admin-listener.ts), so a wrong
 * method there stays a 404.
 */
export interface RouteMethods {
  add(route: RouteOptions): void;
  /** The methods registered for this request path (query string ignored), sorted; empty when the path is unknown. */
  allowed(url: string): string[];
}

const patternOf = (url: string): RegExp =>
  new RegExp(
    '^' +
      url
        .split('/')
        .map((segment) =>
          segment.startsWith(':') ? '[^/]+' : segment.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*'),
        )
        .join('/') +
      '$',
  );

export function createRouteMethods(): RouteMethods {
  const routes: Array<{ route: RouteOptions; pattern: RegExp }> = [];
  return {
    add(route) {
      routes.push({ route, pattern: patternOf(route.url) });
    },
    allowed(url) {
      const path = url.split('?', 1)[0] ?? '';
      const methods = new Set<string>();
      for (const { route, pattern } of routes) {
        // Read now, not when added: the admin scope marks its routes in an onRoute hook that runs after this one.
        if (route.config?.adminRoute === true || !pattern.test(path)) continue;
        for (const m of [route.method].flat()) methods.add(m.toUpperCase());
      }
      return [...methods].sort();
    },
  };
}
