// The Temporal SDK's own lines (the worker's, the workflows' through the logger sink, the activities') name a
// delivery by its workflow id or a run id only: this logger adds the delivery's five ids it knows
// (src/telemetry/delivery-log-ids.ts), learnt from each new run's first activation and from the attempt activities.
import type { DefaultLogger, Logger, LogLevel, LogMetadata } from '@temporalio/worker';
import { searchAttributes } from '../../workflows/search-attributes.js';
import { deliveryIdOfWorkflow, deliveryIdsOf, rememberDeliveryIds, type DeliveryLogIds } from './delivery-log-ids.js';

const SEVERITIES: readonly LogLevel[] = ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR'];

type Payload = { data?: Uint8Array | null } | null | undefined;
type Execution = { workflowId?: unknown; runId?: unknown } | null | undefined;

function decode(payload: Payload): unknown {
  if (!payload?.data) return undefined;
  try {
    return JSON.parse(Buffer.from(payload.data).toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}

const asString = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

interface InitializeJob {
  workflowId?: string;
  arguments?: Payload[] | null;
  searchAttributes?: { indexedFields?: Record<string, Payload> | null } | null;
  memo?: { fields?: Record<string, Payload> | null } | null;
}

/** What a run's first activation says: who the delivery is for (search attributes), its event (memo), first attempt. */
function decodeInitialization(init: InitializeJob): Partial<DeliveryLogIds> {
  const attributes = init.searchAttributes?.indexedFields ?? {};
  const input = decode(init.arguments?.[0]) as { firstAttemptNumber?: unknown; handOff?: { eventId?: unknown } };
  const attemptNumber = input?.firstAttemptNumber;
  return {
    subscriptionId: asString(decode(attributes[searchAttributes.subscriptionId.name])),
    integratorId: asString(decode(attributes[searchAttributes.integratorId.name])),
    eventId: asString(decode(init.memo?.fields?.eventId)) ?? asString(input?.handOff?.eventId),
    ...(typeof attemptNumber === 'number' ? { attemptNumber } : {}),
  };
}

/** Notes each new run of a delivery; its activation is decoded only if a line about it is ever written. */
function learnFromActivation(meta: LogMetadata): void {
  const jobs = meta.jobs as { initializeWorkflow?: InitializeJob | null }[] | undefined;
  if (!Array.isArray(jobs)) return;
  for (const job of jobs) {
    const init = job.initializeWorkflow;
    const deliveryId = deliveryIdOfWorkflow(init?.workflowId);
    if (init && deliveryId) rememberDeliveryIds({ deliveryId }, asString(meta.runId), () => decodeInitialization(init));
  }
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/;

/**
 * A line of the SDK's Rust core (forwarded: src/telemetry/temporal-runtime.ts) names a run in a `runId` field or
 * only in its text (`[TMPRL1104] <runId>:<eventId>:<attempt> Workflow task duration …`).
 */
const runOfCoreLine = (message: string, meta: LogMetadata): string | undefined =>
  meta.sdkComponent === 'core' ? UUID.exec(message)?.[0] : undefined;

/**
 * A line's own fields win over the map's, except on a core line: there a field named like one of the five ids means
 * something else (`eventId`: the number of a history event) and is kept as `core<Name>` (`coreEventId`).
 */
function withIds(ids: DeliveryLogIds, meta: LogMetadata): LogMetadata {
  if (meta.sdkComponent !== 'core') return { ...ids, ...meta };
  const clashes = Object.keys(ids)
    .filter((key) => key in meta)
    .map((key) => [`core${key[0]!.toUpperCase()}${key.slice(1)}`, meta[key]]);
  return { ...meta, ...ids, ...Object.fromEntries(clashes) };
}

/** The delivery a line is about: by a `delivery:` workflow id, else by a run id. */
function idsOfLine(message: string, meta: LogMetadata): DeliveryLogIds | undefined {
  const execution = (meta.start as { workflowExecution?: Execution } | undefined)?.workflowExecution;
  const deliveryId = deliveryIdOfWorkflow(meta.workflowId ?? execution?.workflowId);
  const runId = asString(meta.runId ?? meta.workflowRunId ?? execution?.runId ?? runOfCoreLine(message, meta));
  if (deliveryId === undefined && runId === undefined) return undefined;
  return deliveryIdsOf(deliveryId === undefined ? { runId } : { deliveryId });
}

/** Wraps the Runtime's logger; lines below `level` are dropped here, before any work on them. */
export function withDeliveryIds(inner: Logger, level: LogLevel = levelOf(inner)): Logger {
  const threshold = SEVERITIES.indexOf(level);
  const log = (lineLevel: LogLevel, message: string, meta?: LogMetadata): void => {
    if (meta?.jobs !== undefined) learnFromActivation(meta);
    if (SEVERITIES.indexOf(lineLevel) < threshold) return;
    const ids = meta && idsOfLine(message, meta);
    inner.log(lineLevel, message, ids ? withIds(ids, meta) : meta);
  };
  return {
    log,
    trace: (message, meta) => log('TRACE', message, meta),
    debug: (message, meta) => log('DEBUG', message, meta),
    info: (message, meta) => log('INFO', message, meta),
    warn: (message, meta) => log('WARN', message, meta),
    error: (message, meta) => log('ERROR', message, meta),
  };
}

function levelOf(logger: Logger): LogLevel {
  const level = (logger as Partial<DefaultLogger>).level;
  return level && SEVERITIES.includes(level) ? level : 'TRACE';
}
