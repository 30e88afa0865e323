import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { createKeyVault, type KeyVault } from '../../../crypto/key-encryption.js';
import type { MasterKey } from '../../../crypto/master-key.js';
import { callbackUrlPolicyFromConfig } from '../../../net/policy-from-config.js';
import type { CallbackUrlPolicy } from '../../../net/callback-url.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Seals subscription signing keys under the master key (AES-256-GCM). */
    vault: KeyVault;
    /** The master key's bytes, for deriving further secrets (page cursors) — never logged. */
    masterKey: Buffer;
    /** Callback-URL rules (§6.3) with this process's resolver and allowlist. */
    callbackUrls: CallbackUrlPolicy;
  }
}

/** The master key (loaded by buildApp: start-up fails without one), the key vault and the callback-URL policy. */
export const vaultPlugin = fp(
  async (app: FastifyInstance, { master }: { master: MasterKey }) => {
    if (master.warning) app.log.warn(master.warning);
    app.decorate('masterKey', master.key);
    app.decorate('vault', createKeyVault(master.key));
    app.decorate('callbackUrls', callbackUrlPolicyFromConfig(app.config));
  },
  { name: 'vault', dependencies: ['connections'] },
);
