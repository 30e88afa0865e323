import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';

/** One JSON log line per request, written when the response is done (Fastify's default writes two). */
export class OneLinePerRequest extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null, request: FastifyRequest, reply: FastifyReply): void {
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
