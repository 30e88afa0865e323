import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { InvalidKeyError, parsePublicKeyHex } from '../../crypto/p256.js';
import { DuplicateKeyError, type IntegratorDoc, type IntegratorKeyDoc } from '../../store/integrators-repo.js';
import { badRequest, conflict, errorResponses, notFound } from '../errors.js';
import type { ErasureJob, SubjectErasureJob } from '../../delivery/index.js';
import {
  addKeyBody,
  createIntegratorBody,
  erasureJob,
  integrator,
  integratorKey,
  integratorParams,
  integratorWithKeys,
  keyParams,
  subjectErasureJob,
  subjectParams,
} from '../schemas/integrators.js';
const tags = ['internal: integrators'];

export const integratorOut = (doc: IntegratorDoc) => ({
  id: doc._id,
  name: doc.name,
  createdAt: doc.createdAt.toISOString(),
});
export const keyOut = (doc: IntegratorKeyDoc) => ({
  id: doc._id,
  publicKey: `0x${doc.publicKey}`,
  createdAt: doc.createdAt.toISOString(),
  revokedAt: doc.revokedAt?.toISOString() ?? null,
});

const jobOut = <J extends ErasureJob | SubjectErasureJob>(job: J) => ({
  ...job,
  startedAt: job.startedAt.toISOString(),
  closedAt: job.closedAt?.toISOString() ?? null,
});

/** Operators register integrators and their request-signing keys, and erase them (admin bearer token). */
export const adminIntegratorRoutes: FastifyPluginAsyncZod = async (app) => {
  const repo = app.store.integrators;

  app.post(
    '/internal/v1/integrators',
    {
      schema: {
        tags,
        summary: 'Register an integrator',
        body: createIntegratorBody,
        response: { 201: integrator, ...errorResponses(400, 401) },
      },
    },
    async (request, reply) => reply.code(201).send(integratorOut(await repo.create(request.body.name))),
  );

  app.get(
    '/internal/v1/integrators/:integratorId',
    {
      schema: {
        tags,
        summary: 'An integrator with its keys',
        params: integratorParams,
        response: { 200: integratorWithKeys, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const doc = await repo.find(request.params.integratorId);
      if (!doc) throw notFound();
      return { ...integratorOut(doc), keys: (await repo.listKeys(doc._id)).map(keyOut) };
    },
  );

  app.post(
    '/internal/v1/integrators/:integratorId/keys',
    {
      schema: {
        tags,
        summary: 'Register a request-signing key (stored as compressed lowercase hex)',
        params: integratorParams,
        body: addKeyBody,
        response: { 201: integratorKey, ...errorResponses(400, 401, 404, 409) },
      },
    },
    async (request, reply) => {
      let compressed: string;
      try {
        compressed = parsePublicKeyHex(request.body.publicKey, { allowUncompressed: true }).compressedHex;
      } catch (err) {
        if (err instanceof InvalidKeyError) throw badRequest(`body.publicKey: ${err.message}`, 'invalid_public_key');
        throw err;
      }
      if (!(await repo.exists(request.params.integratorId))) throw notFound();
      try {
        const doc = await repo.addKey(request.params.integratorId, compressed);
        app.authKeys.changedHere(doc);
        return await reply.code(201).send(keyOut(doc));
      } catch (err) {
        if (err instanceof DuplicateKeyError) throw conflict(err.message);
        throw err;
      }
    },
  );

  app.delete(
    '/internal/v1/integrators/:integratorId/keys/:keyId',
    {
      schema: {
        tags,
        summary: 'Revoke a key: it stops working within seconds on every API instance',
        params: keyParams,
        response: { 204: z.null(), ...errorResponses(400, 401, 404) },
      },
    },
    async (request, reply) => {
      const revoked = await repo.revokeKey(request.params.integratorId, request.params.keyId);
      if (!revoked) throw notFound();
      app.authKeys.changedHere(revoked);
      // A revoked key may have been the one compromised: every portal session of the integrator ends with it.
      await app.store.portalSessions.revokeIntegrator(request.params.integratorId);
      return await reply.code(204).send(null);
    },
  );

  app.delete(
    '/internal/v1/integrators/:integratorId',
    {
      schema: {
        tags,
        summary: 'Erase an integrator: a job to poll',
        description:
          'Revokes its keys, refuses its events, cancels its pending deliveries and campaigns, then erases its ' +
          'events, deliveries, attempts, subscriptions with their signing keys, listing rows and finally the ' +
          'integrator (docs/retention.md, "Erasure"). 202 with the job when this request started it, 200 with the ' +
          'job already started (running or done: idempotent); poll GET …/erasure (Location). 404 when there is ' +
          'neither the integrator nor an erasure of it.',
        params: integratorParams,
        response: { 200: erasureJob, 202: erasureJob, ...errorResponses(400, 401, 404) },
      },
    },
    async (request, reply) => {
      const id = request.params.integratorId;
      const started = await app.deliveryService.erase(id);
      if (!started) throw notFound();
      await app.store.portalSessions.revokeIntegrator(id);
      return await reply
        .code(started.created ? 202 : 200)
        .header('location', `/internal/v1/integrators/${id}/erasure`)
        .send(jobOut(started.job));
    },
  );

  app.get(
    '/internal/v1/integrators/:integratorId/erasure',
    {
      schema: {
        tags,
        summary: "An integrator's erasure: its state, step and counts",
        params: integratorParams,
        response: { 200: erasureJob, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const job = await app.deliveryService.erasure(request.params.integratorId);
      if (!job) throw notFound();
      return jobOut(job);
    },
  );

  app.delete(
    '/internal/v1/integrators/:integratorId/subjects/:subjectId',
    {
      schema: {
        tags,
        summary: "Erase a subject's events: a job to poll",
        description:
          'Erases every event of the integrator stored before this request whose body names the subject id (a ' +
          'routing field or anywhere in its data), with its deliveries, attempts and listing rows; its pending ' +
          'deliveries are cancelled first (docs/retention.md, "Erasing a subject"). 202 with the job when this ' +
          'request started it (a completed one is followed by a new one), 200 with the one running; poll GET ' +
          '…/erasure (Location). 404 when there is no such integrator.',
        params: subjectParams,
        response: { 200: subjectErasureJob, 202: subjectErasureJob, ...errorResponses(400, 401, 404) },
      },
    },
    async (request, reply) => {
      const { integratorId, subjectId } = request.params;
      const started = await app.deliveryService.eraseSubject(integratorId, subjectId);
      if (!started) throw notFound();
      return await reply
        .code(started.created ? 202 : 200)
        .header('location', `/internal/v1/integrators/${integratorId}/subjects/${subjectId}/erasure`)
        .send(jobOut(started.job));
    },
  );

  app.get(
    '/internal/v1/integrators/:integratorId/subjects/:subjectId/erasure',
    {
      schema: {
        tags,
        summary: "A subject's erasure: its state, step and counts",
        params: subjectParams,
        response: { 200: subjectErasureJob, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => {
      const { integratorId, subjectId } = request.params;
      const job = await app.deliveryService.subjectErasure(integratorId, subjectId);
      if (!job) throw notFound();
      return jobOut(job);
    },
  );
};
