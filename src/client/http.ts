/** The error every Herald client method throws for a non-2xx answer: the status and the `{ error, status, message? }` body. */
export class HeraldApiError extends Error {
  override readonly name = 'HeraldApiError';
  constructor(
    readonly status: number,
    readonly body: { error: string; status: number; message?: string } | null,
  ) {
    super(body?.message ? `${status} ${body.error}: ${body.message}` : `${status} ${body?.error ?? 'error'}`);
  }
}

export type QueryValue = string | number | Date | undefined | null;

/** `path?query` with undefined/null values dropped and dates as ISO-8601 strings. */
export function withQuery(path: string, query: Record<string, QueryValue> = {}): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) {
    if (v === undefined || v === null) continue;
    params.append(k, v instanceof Date ? v.toISOString() : String(v));
  }
  const qs = params.toString();
  return qs ? `${path}?${qs}` : path;
}

/** Parses a response: the JSON body on 2xx (undefined on 204), a HeraldApiError otherwise. */
export async function readResponse<T>(res: Response): Promise<T> {
  const text = await res.text();
  let body: unknown = undefined;
  if (text) {
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
  }
  if (!res.ok) {
    const err = body && typeof body === 'object' && 'error' in body ? (body as HeraldApiError['body']) : null;
    throw new HeraldApiError(res.status, err);
  }
  return body as T;
}
