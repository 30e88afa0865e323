import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { FastifyServerFactory } from 'fastify';

/**
 * A refusal decided on the raw request, before Fastify builds a request and a reply, routes, runs hooks or makes a
 * logger: true when it answered the request itself. It must answer only what the routes' own hooks would refuse
 * too (they stay the exact guard; this is their cheap path).
 */
export type EarlyRefusal = (req: IncomingMessage, res: ServerResponse) => boolean;

export interface FrontGate {
  /** Fastify's `serverFactory`: the HTTP server Fastify would make, with the gate before Fastify's handler. */
  readonly serverFactory: FastifyServerFactory<Server>;
  /** Installs the refusal (one; installed by the request budget, src/api/plugins/app/request-budget.ts). */
  install(refusal: EarlyRefusal): void;
}

export function createFrontGate(): FrontGate {
  let refuse: EarlyRefusal | undefined;
  const serverFactory: FastifyServerFactory<Server> = (handler, options) => {
    const server = createServer(options.http ?? {}, (req, res) => {
      if (refuse?.(req, res) !== true) handler(req, res);
    });
    // What Fastify does to an HTTP/1 server it makes itself (fastify/lib/server.js, getServerInstance).
    server.keepAliveTimeout = options.keepAliveTimeout as number;
    server.requestTimeout = options.requestTimeout as number;
    server.setTimeout(options.connectionTimeout as number);
    const perSocket = options.maxRequestsPerSocket as number | undefined;
    if (perSocket !== undefined && perSocket > 0) server.maxRequestsPerSocket = perSocket;
    return server;
  };
  return {
    serverFactory,
    install(refusal) {
      refuse = refusal;
    },
  };
}
