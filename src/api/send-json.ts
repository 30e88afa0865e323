import type { FastifyReply } from 'fastify';

/**
 * Sends JSON text that is already serialised. Fastify passes a string through untouched (no response-schema
 * serialisation), so the route's tests check the text against the declared schema instead.
 */
export async function sendJsonText(reply: FastifyReply, status: number, json: string): Promise<FastifyReply> {
  return await reply.code(status).type('application/json; charset=utf-8').send(json);
}
