// Which Temporal the chaos run uses, from its environment: a dev server of its own (the default), a cluster of its own
// (CHAOS_TEMPORAL=cluster), or one that is already running (TEMPORAL_ADDRESS), which it cannot kill.

export const CHAOS_TEMPORAL_MODES = ['dev', 'cluster', 'external'] as const;

export type ChaosTemporalChoice =
  | { readonly mode: 'dev' }
  /** `oneBox`: HERALD_CLUSTER_ONE_BOX=1, the dev server's one-box tuning on top of Herald's dynamic config. */
  | { readonly mode: 'cluster'; readonly oneBox: boolean }
  | { readonly mode: 'external'; readonly address: string };

export type ChaosTemporalMode = ChaosTemporalChoice['mode'];

/** host:port, the host a name, an IPv4 address or a bracketed IPv6 one. */
const ADDRESS = /^(\[[0-9a-f:.]+\]|[a-z0-9.-]+):\d{1,5}$/i;

/** CHAOS_TEMPORAL and TEMPORAL_ADDRESS → the Temporal to use; throws a readable message on a contradiction. */
export function chaosTemporalChoice(env: NodeJS.ProcessEnv): ChaosTemporalChoice {
  const asked = env.CHAOS_TEMPORAL?.trim() || undefined;
  const address = env.TEMPORAL_ADDRESS?.trim() || undefined;
  if (asked !== undefined && !(CHAOS_TEMPORAL_MODES as readonly string[]).includes(asked))
    throw new Error(`CHAOS_TEMPORAL must be one of ${CHAOS_TEMPORAL_MODES.join(', ')} (got ${asked})`);
  const mode = (asked ?? (address ? 'external' : 'dev')) as ChaosTemporalMode;
  if (mode === 'external') {
    if (!address) throw new Error('CHAOS_TEMPORAL=external needs TEMPORAL_ADDRESS (host:port of a running Temporal)');
    if (!ADDRESS.test(address)) throw new Error(`TEMPORAL_ADDRESS must be host:port (got ${address})`);
    return { mode, address };
  }
  if (address)
    throw new Error(
      `CHAOS_TEMPORAL=${mode} starts a Temporal of its own, but TEMPORAL_ADDRESS is set (${address}): ` +
        'unset it, or leave CHAOS_TEMPORAL out to run against that server',
    );
  return mode === 'cluster' ? { mode, oneBox: env.HERALD_CLUSTER_ONE_BOX === '1' } : { mode };
}

/** Whether the address names this machine, where the server's process can be found and measured. */
export function isLoopback(address: string): boolean {
  const host = address.slice(0, address.lastIndexOf(':')).replace(/^\[|\]$/g, '');
  return host === 'localhost' || host === '::1' || /^127\./.test(host);
}
