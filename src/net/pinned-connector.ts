import { isIP } from 'node:net';
import { buildConnector } from 'undici';
import type { CallbackUrlPolicy } from './callback-url.js';

/** The host resolved to a forbidden address; no connection was attempted. */
export class BlockedDestinationError extends Error {
  override readonly name = 'BlockedDestinationError';
  readonly code = 'HERALD_BLOCKED';
}

/** The host did not resolve at connect time. */
export class DestinationResolutionError extends Error {
  override readonly name = 'DestinationResolutionError';
  readonly code = 'HERALD_DNS';
}

export interface PinnedConnector {
  /** An undici `connect` function: resolve, check every address, then connect to a checked one. */
  connect: buildConnector.connector;
  /** The address a socket was pinned to, or that a failed connection attempt last tried. */
  addressOf(socketOrError: object): string | undefined;
}

/** Errors after which another address of the same host may work; TLS and timeout errors are final. */
const TRY_NEXT = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL']);
/** Bounds the fallback walk for hosts that publish many addresses. */
const MAX_ADDRESSES_TRIED = 4;

/**
 * DNS-rebinding defence: the name is resolved and every address checked once per connection, here, and the socket
 * connects to the checked address itself, so no second resolution can swap in another one. TLS still verifies
 * (and SNI still names) the real hostname. `timeoutMs` bounds TCP + TLS per address; the resolver bounds DNS.
 */
export function createPinnedConnector(deps: {
  checkHost: CallbackUrlPolicy['checkHost'];
  timeoutMs: number;
}): PinnedConnector {
  const base = buildConnector({ timeout: deps.timeoutMs, rejectUnauthorized: true });
  const addresses = new WeakMap<object, string>();

  const connectTo = (
    options: buildConnector.Options,
    candidates: readonly string[],
    callback: buildConnector.Callback,
  ): void => {
    const [address, ...rest] = candidates;
    if (address === undefined) {
      callback(new BlockedDestinationError(`${options.hostname} has no address to connect to`), null);
      return;
    }
    const servername = options.servername || (isIP(options.hostname) === 0 ? options.hostname : undefined);
    base({ ...options, hostname: address, ...(servername ? { servername } : {}) }, (...result) => {
      const [err, socket] = result;
      const key = err ?? socket;
      if (key) addresses.set(key, address);
      const code = (err as NodeJS.ErrnoException | null)?.code;
      if (err && code && TRY_NEXT.has(code) && rest.length > 0) connectTo(options, rest, callback);
      else callback(...result);
    });
  };

  const connect: buildConnector.connector = (options, callback) => {
    deps.checkHost(options.hostname).then(
      (verdict) => {
        if (verdict.ok) connectTo(options, verdict.addresses.slice(0, MAX_ADDRESSES_TRIED), callback);
        else if (verdict.rule === 'does_not_resolve') callback(new DestinationResolutionError(verdict.message), null);
        else callback(new BlockedDestinationError(verdict.message), null);
      },
      (err: unknown) => callback(err instanceof Error ? err : new Error(String(err)), null),
    );
  };

  return { connect, addressOf: (socketOrError) => addresses.get(socketOrError) };
}
