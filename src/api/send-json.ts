import type { FastifyReply } from 'fastify';

/** The content type of every JSON answer, the prebuilt refusals' included. */
export const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * Sends JSON text that is already serialised. Fastify passes a string through untouched (no response-schema
 * serialisation), so the route's tests check the text against the declared schema instead.
 */
export async function sendJsonText(reply: FastifyReply, status: number, json: string): Promise<FastifyReply> {
  return await reply.code(status).type(JSON_TYPE).send(json);
}
