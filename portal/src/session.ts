// The portal session (the server sets an HttpOnly cookie; the page keeps only the CSRF token in memory).
import type { Session } from './types';

const SESSION_URL = '/portal/session';

export class SessionFailure extends Error {}

function tokenFromHash(): string | null {
  const hash = location.hash.replace(/^#/, '');
  if (!hash) return null;
  return new URLSearchParams(hash).get('token');
}

async function read(res: Response): Promise<Session | null> {
  if (res.status === 401) return null;
  if (!res.ok) throw new SessionFailure(`The portal could not open its session (${res.status}). Try again later.`);
  return (await res.json()) as Session;
}

/** Exchanges a link's token for a session, or resumes the current one; null when there is none (401). */
export async function openSession(): Promise<Session | null> {
  const token = tokenFromHash();
  try {
    if (token === null) return await read(await fetch(SESSION_URL, { credentials: 'same-origin' }));
    const res = await fetch(SESSION_URL, {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'X-Portal-Link': token, Accept: 'application/json' },
    });
    return await read(res);
  } catch (err) {
    if (err instanceof SessionFailure) throw err;
    throw new SessionFailure('The server could not be reached. Check your connection and reload the page.');
  } finally {
    // The token is single-use: never leave it in the address bar or the history.
    if (token !== null) history.replaceState(history.state, '', location.pathname + location.search);
  }
}

export async function closeSession(csrfToken: string): Promise<void> {
  try {
    await fetch(SESSION_URL, { method: 'DELETE', credentials: 'same-origin', headers: { 'X-CSRF-Token': csrfToken } });
  } catch {
    // Signed out locally whatever the answer: the cookie expires on its own.
  }
}
