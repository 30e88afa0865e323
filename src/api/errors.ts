import { z } from 'zod';

/** The one error shape every response uses: `{ error, status, message? }`. */
export const errorBodySchema = z
  .object({
    error: z.string().describe('machine-readable error code, e.g. `not_found`'),
    status: z.number().int().describe('HTTP status, repeated in the body'),
    message: z.string().optional().describe('human-readable detail; absent on 401, 500 and 503'),
  })
  .meta({ id: 'Error' });

export type ErrorBody = z.infer<typeof errorBodySchema>;

/** An error a route throws on purpose; the error handler answers it as is. */
export class HttpError extends Error {
  override readonly name = 'HttpError';
  constructor(
    readonly status: number,
    readonly code: string,
    message?: string,
    /** Response headers the error handler sets with the body (e.g. Retry-After of a 429). */
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message ?? code);
    this.expose = message !== undefined;
  }
  readonly expose: boolean;

  toBody(): ErrorBody {
    return this.expose
      ? { error: this.code, status: this.status, message: this.message }
      : { error: this.code, status: this.status };
  }
}

export const notFound = (): HttpError => new HttpError(404, 'not_found');
export const badRequest = (message: string, code = 'invalid_request'): HttpError => new HttpError(400, code, message);
export const conflict = (message: string): HttpError => new HttpError(409, 'conflict', message);
export const unauthorized = (): HttpError => new HttpError(401, 'unauthorized');
export const forbidden = (message: string): HttpError => new HttpError(403, 'forbidden', message);
/** A wait as a Retry-After value: whole seconds, at least 1. */
export const retryAfterSeconds = (waitSec: number): number => Math.max(1, Math.ceil(waitSec));

/** 429 with Retry-After (whole seconds, at least 1). */
export const tooMany = (code: string, message: string, retryAfterSec: number): HttpError =>
  new HttpError(429, code, message, { 'retry-after': String(retryAfterSeconds(retryAfterSec)) });

/**
 * The 429 body of `code` for each whole-second wait, made once per value up to 10 minutes: a refusal that sends it
 * allocates no error and runs no serializer.
 */
export function tooManyBodies(code: string, message: (seconds: number) => string): (seconds: number) => Buffer {
  const made = new Map<number, Buffer>();
  return (seconds) => {
    const body = made.get(seconds) ?? Buffer.from(JSON.stringify(tooMany(code, message(seconds), seconds).toBody()));
    if (seconds <= 600) made.set(seconds, body);
    return body;
  };
}

/** Response schemas for the error statuses a route can answer, to spread into `schema.response`. */
export const errorResponses = (...statuses: number[]): Record<number, typeof errorBodySchema> =>
  Object.fromEntries(statuses.map((s) => [s, errorBodySchema]));
