import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { lifecycleEventTypes, providers } from '../../src/domain/event-types.js';
import { newEventDoc } from '../../src/domain/event-record.js';
import { jsonTextOf } from '../../src/domain/json-text.js';
import type { EventDoc } from '../../src/store/documents.js';
import { adminHeaders } from './integrators.js';

/** A valid POST /internal/v1/events body (every field set) for this integrator. */
export function sampleEvent(integratorId: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: randomUUID(),
    eventType: 'transaction.completed',
    occurredAt: '2026-03-01T12:34:56.789Z',
    livemode: false,
    payloadVersion: 1,
    integratorId,
    accountId: randomUUID(),
    userId: randomUUID(),
    entityId: null,
    beneficiaryId: randomUUID(),
    transactionId: randomUUID(),
    provider: 'transfer_provider',
    providerEventId: 'tp_evt_0001',
    data: { amount: '12.50', currency: 'EUR', nested: { list: [1, 'two', null, true] } },
    ...overrides,
  };
}

/** POST /internal/v1/events with the admin token; a string payload is sent as raw JSON text. */
export async function postEvent(app: FastifyInstance, payload: unknown, headers: Record<string, string> = {}) {
  return await app.inject({
    method: 'POST',
    url: '/internal/v1/events',
    headers: { ...adminHeaders, 'content-type': 'application/json', ...headers },
    payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
  });
}

export interface SeedSpec {
  integratorId: string;
  createdAt: Date;
  accountId?: string | null;
  userId?: string | null;
  transactionId?: string | null;
  eventType?: EventDoc['eventType'];
}

/** An event document as ingestion stores it, with a chosen createdAt (for deterministic ordering tests). */
export function seedDoc(spec: SeedSpec, i = 0): EventDoc {
  return newEventDoc(
    {
      id: randomUUID(),
      eventType: spec.eventType ?? lifecycleEventTypes[i % lifecycleEventTypes.length]!,
      occurredAt: new Date(spec.createdAt.getTime() - 1000),
      livemode: i % 2 === 0,
      payloadVersion: 1,
      integratorId: spec.integratorId,
      accountId: spec.accountId ?? null,
      userId: spec.userId ?? null,
      entityId: null,
      beneficiaryId: null,
      transactionId: spec.transactionId ?? null,
      provider: providers[i % providers.length]!,
      providerEventId: `p-${i}`,
      data: jsonTextOf({ i }),
    },
    spec.createdAt,
  );
}
