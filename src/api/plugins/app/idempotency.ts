import { createHash, randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { uuidV5 } from '../../../store/derived-ids.js';
import { HttpError } from '../../errors.js';
import { JSON_TYPE } from '../../send-json.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The `_id` of the Idempotency-Key this request holds (src/store/idempotency-repo.ts), once it holds one. */
    idempotencyId?: string;
  }
  interface FastifyInstance {
    /** Idempotency-Key on the integrator's POSTs: installed by the integrator scope. */
    idempotency: {
      /** preHandler, after validation: takes the key, or answers the first answer, 409 or 422 instead. */
      begin(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined>;
      /** onSend: keeps the answer under the key, or frees the key when the answer is not one to keep. */
      finish(request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown>;
    };
  }
}

export const IDEMPOTENCY_HEADER = 'idempotency-key';
/** How long a key and its answer are kept (Stripe's 24 h). */
export const IDEMPOTENCY_KEEP_MS = 24 * 3_600_000;
/** A request holding a key longer than this (its instance died) lets the next request with the key take over. */
export const IDEMPOTENCY_LOCK_MS = 60_000;

/** The key's `_id`: scoped to the integrator, and not the key itself (a client may put anything in it). */
export const idempotencyIdOf = (integratorId: string, key: string): string =>
  createHash('sha256').update(`${integratorId}\n${key}`).digest('base64url');

/**
 * The id of what this request creates (`purpose`: what it is): derived from the request's Idempotency-Key when it
 * holds one, so a try that goes on after a crashed one addresses what that one made instead of making a second;
 * random otherwise.
 */
export const keyedId = (request: FastifyRequest, purpose: string): string =>
  request.idempotencyId === undefined ? randomUUID() : uuidV5(`${purpose}:${request.idempotencyId}`);

/** The answers kept: every answer the route made, but a 5xx (Herald's failure) and a 429 (made nothing). */
const worthKeeping = (status: number): boolean => status < 500 && status !== 429;

/**
 * Safe retries of the integrator's POSTs (Stripe's and Svix's Idempotency-Key; the IETF draft
 * httpapi-idempotency-key-header): a repeat of a request with the same key and the same method, target and body
 * answers the first answer with `Idempotent-Replayed: true`; with another request, 422; while the first is still
 * running, 409 `idempotency_in_flight` with Retry-After. A request refused before its handler (401, 429 of the
 * request budget, 400 of validation) never takes the key. docs/auth.md says what clients do with it.
 */
export const idempotencyPlugin = fp(
  async (app: FastifyInstance) => {
    const repo = app.store.idempotency;
    app.decorateRequest('idempotencyId', undefined);
    app.decorate('idempotency', {
      async begin(request: FastifyRequest, reply: FastifyReply) {
        const key = request.headers[IDEMPOTENCY_HEADER];
        if (request.method !== 'POST' || typeof key !== 'string' || request.integratorId === undefined)
          return undefined;
        const id = idempotencyIdOf(request.integratorId, key);
        const fingerprint = createHash('sha256')
          .update(`${request.method} ${request.raw.url ?? request.url}\n`)
          .update(request.rawBody ?? Buffer.alloc(0))
          .digest('base64url');
        const use = await repo.begin(id, fingerprint, new Date(), {
          lockMs: IDEMPOTENCY_LOCK_MS,
          keepMs: IDEMPOTENCY_KEEP_MS,
        });
        if (use.kind === 'first') {
          request.idempotencyId = id;
          return undefined;
        }
        if (use.kind === 'replay') {
          if (use.answer.location !== null) void reply.header('location', use.answer.location);
          return await reply
            .code(use.answer.status)
            .header('idempotent-replayed', 'true')
            .type(JSON_TYPE)
            .send(use.answer.body);
        }
        if (use.kind === 'running') {
          const message = 'a request with this Idempotency-Key is still running; send it again after Retry-After';
          // Most requests finish within a second: a repeat then finds the answer (a crashed one frees the key later).
          throw new HttpError(409, 'idempotency_in_flight', message, { 'retry-after': '1' });
        }
        const message = 'this Idempotency-Key was used with another request (method, path or body) in the last 24 h';
        throw new HttpError(422, 'idempotency_key_reused', message);
      },

      async finish(request: FastifyRequest, reply: FastifyReply, payload: unknown) {
        const id = request.idempotencyId;
        if (id === undefined) return payload;
        request.idempotencyId = undefined;
        const status = reply.statusCode;
        const body = typeof payload === 'string' ? payload : payload == null ? '' : null;
        const location = reply.getHeader('location');
        try {
          if (worthKeeping(status) && body !== null)
            await repo.keep(id, { status, body, location: typeof location === 'string' ? location : null });
          else await repo.release(id);
        } catch (err) {
          // The answer stands; the key stays locked until IDEMPOTENCY_LOCK_MS, then a repeat goes on in its place.
          request.log.warn({ err }, 'idempotency key: answer not kept');
        }
        return payload;
      },
    });
  },
  { name: 'idempotency', dependencies: ['store'] },
);
