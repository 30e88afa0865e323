// A load client's `fetch` over one keep-alive undici Pool: Node's built-in fetch (WHATWG streams, an AbortSignal
// and a Response per call) cost the bench's process ≈ 1.4 ms of CPU per ingest request more (bench/delivery, 26 Nov),
// CPU that the two cores' other tenants — the servers under test — then lack. Only what HeraldAdminClient uses.
import { Pool } from 'undici';

export function poolFetch(origin: string, connections = 64): { fetch: typeof fetch; close: () => Promise<void> } {
  const pool = new Pool(origin, { connections });
  const fetchFn = async (url: string | URL, init: RequestInit = {}): Promise<Response> => {
    const { pathname, search } = new URL(url);
    const res = await pool.request({
      path: pathname + search,
      method: (init.method ?? 'GET') as 'GET',
      headers: init.headers as Record<string, string> | undefined,
      body: init.body as string | undefined,
    });
    const text = await res.body.text();
    return new Response(text === '' ? null : text, { status: res.statusCode });
  };
  return { fetch: fetchFn as typeof fetch, close: () => pool.close() };
}
