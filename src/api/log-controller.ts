import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';

/**
 * One JSON log line per request, written when the response is done (Fastify's default writes two). A request an auth
 * guard refused has none: the bounded failure log counts it (src/auth/failure-log.ts), so a flood of junk credentials
 * does not become a flood of lines.
 */
export class OneLinePerRequest extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null, request: FastifyRequest, reply: FastifyReply): void {
    if (request.authRefused && !error) return;
    const line = {
      method: request.method,
      route: request.routeOptions.url,
      url: request.url.split('?')[0],
      statusCode: reply.statusCode,
      responseTimeMs: Math.round(reply.elapsedTime * 100) / 100,
      integratorId: request.integratorId,
      ...request.deliveryLogIds,
    };
    if (error) reply.log.error({ ...line, err: error }, 'request errored');
    else reply.log.info(line, 'request');
  }
}
