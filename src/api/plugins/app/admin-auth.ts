import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { HttpError, notFound } from '../../errors.js';

export const ADMIN_PREFIX = '/internal/';

const digest = (s: string): Buffer => createHash('sha256').update(s).digest();

/**
 * Guards every /internal/ route with `Authorization: Bearer $HERALD_ADMIN_TOKEN`, compared in constant time.
 * Without a configured token the internal API does not exist: 404.
 */
export const adminAuthPlugin = fp(
  async (app: FastifyInstance) => {
    const token = app.config.HERALD_ADMIN_TOKEN;
    const expected = token === undefined ? undefined : digest(token);
    app.addHook('onRequest', async (request) => {
      if (!request.url.startsWith(ADMIN_PREFIX)) return;
      if (expected === undefined) throw notFound();
      const header = request.headers.authorization ?? '';
      const given = header.startsWith('Bearer ') ? digest(header.slice(7)) : digest('');
      // Hashing first makes both sides 32 bytes, so the comparison leaks neither content nor length.
      if (!timingSafeEqual(given, expected) || header.length <= 7) {
        request.log.info({ cause: 'admin token mismatch' }, 'unauthorized');
        app.metrics.authFailed('admin_token');
        throw new HttpError(401, 'unauthorized');
      }
    });
  },
  { name: 'admin-auth', dependencies: ['connections', 'telemetry'] },
);
