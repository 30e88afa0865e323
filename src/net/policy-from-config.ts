import type { Config } from '../config.js';
import { createAddressPolicy } from './address-policy.js';
import { createCallbackUrlPolicy, type CallbackUrlPolicy } from './callback-url.js';
import { createResolver } from './resolver.js';

/**
 * The one callback-URL policy of a process, from HERALD_DNS_STATIC and HERALD_ALLOW_CIDRS (which exempts the names
 * the former pins, no other), resolving other names through HERALD_DNS_SERVERS (unset: the system's resolvers). The
 * API checks subscription URLs with it; the worker re-checks every address with it at connect time.
 */
export function callbackUrlPolicyFromConfig(
  config: Pick<Config, 'HERALD_DNS_STATIC' | 'HERALD_ALLOW_CIDRS'> & Partial<Pick<Config, 'HERALD_DNS_SERVERS'>>,
): CallbackUrlPolicy {
  return createCallbackUrlPolicy({
    resolver: createResolver({ staticMap: config.HERALD_DNS_STATIC, servers: config.HERALD_DNS_SERVERS ?? [] }),
    addressPolicy: createAddressPolicy(config.HERALD_ALLOW_CIDRS),
  });
}
